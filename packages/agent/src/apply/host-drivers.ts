/**
 * Adapts the netlink and FRR drivers (src/netlink, src/frr) to the small boundary the pipeline
 * needs (`HostDrivers`), so the pipeline does not depend on either driver's wider API. The L3 VNI
 * devices a netlink apply holds down come up after FRR's reload (l3vni-order.ts).
 */
import type { NodeConfigSpec } from '@nodenet/api';
import {
  configFileHash,
  describeDrift,
  isEmptyDrift,
  restoreFileBefore,
  type FrrDriver,
} from '../frr/index.js';
import { queryL3Vnis } from '../frr/vni.js';
import { DEFAULT_L3VNI_ORDER, l3VniOrder, type L3VniOrderSettings } from './l3vni-order.js';
import { EMPTY_SPEC, type NetlinkDriver } from '../netlink/index.js';
import type { HostDrivers } from './contract.js';
import type { PasswordBook } from '../secrets/password-book.js';

export function hostDrivers(
  netlink: NetlinkDriver,
  frr: FrrDriver,
  l3vni: L3VniOrderSettings = DEFAULT_L3VNI_ORDER,
  /** The BGP passwords the renderer reads (secrets/password-book.ts); absent: none are read. */
  passwords?: Pick<PasswordBook, 'prepare'>,
): HostDrivers {
  // Every render of a spec (apply, restore, drift repair) has its passwords first: from the book,
  // or read from their Secrets when the book lacks them.
  const prepare = async (spec: NodeConfigSpec): Promise<void> => {
    await passwords?.prepare(spec);
  };
  const order = l3VniOrder(
    { query: () => queryL3Vnis(frr.instance), bringUp: (devices) => netlink.bringUp(devices) },
    l3vni,
  );
  return {
    netlink: {
      apply: async (spec: NodeConfigSpec) => {
        const r = await netlink.apply(spec);
        order.hold(r.gates);
        // Held `up` steps count: they are carried out after the FRR reload.
        return { operations: r.operations + r.gates.length };
      },
      removeAdded: async (spec: NodeConfigSpec) => ({ removed: await netlink.removeAdded(spec) }),
      // Applying the empty spec deletes every owned device and nothing else.
      removeAll: async () => {
        order.hold([]);
        return { operations: (await netlink.apply(EMPTY_SPEC)).operations };
      },
    },
    frr: {
      prepare,
      apply: async (spec, options) => {
        await prepare(spec);
        const { changed } = await frr.applySpec(spec, { force: options?.repair ?? false });
        await order.afterReload();
        return { changed };
      },
      // Drift repair: judged on FRR's running config; held L3 VNI devices come up afterwards too.
      sync: async (spec) => {
        await prepare(spec);
        const r = await frr.syncSpec(spec);
        await order.afterReload();
        return { changed: r.changed, ...(isEmptyDrift(r.drift) ? {} : { drift: describeDrift(r.drift) }) };
      },
      removeAll: async () => ({
        changed: (await frr.applySpec({ vrf: [], routingTable: [] }, { force: true })).changed,
      }),
      fileHash: () => configFileHash(frr),
      restoreFile: async (before) => {
        const done = await restoreFileBefore(frr, before);
        if (done === 'restored') await order.afterReload();
        return done;
      },
    },
  };
}
