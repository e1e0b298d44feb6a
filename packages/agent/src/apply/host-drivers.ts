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
import { queryL3Vnis } from '../frr/read/index.js';
import { readIfExists } from '../frr/change/index.js';
import { DEFAULT_L3VNI_ORDER, l3VniOrder, type L3VniOrderSettings } from './l3vni-order.js';
import { EMPTY_SPEC, type Device, type HostModel, type NetlinkDriver } from '../netlink/index.js';
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
  /** Check, write and reload a text; the held L3 VNI devices come up afterwards. */
  const applyText = async (text: string, options?: { repair?: boolean }): Promise<{ changed: boolean }> => {
    const { changed } = await frr.apply(text, { force: options?.repair ?? false });
    await order.afterReload();
    return { changed };
  };
  /** Drift repair towards a text, judged on FRR's running config. */
  const syncText = async (text: string): Promise<{ changed: boolean; drift?: string }> => {
    const r = await frr.sync(text);
    await order.afterReload();
    return { changed: r.changed, ...(isEmptyDrift(r.drift) ? {} : { drift: describeDrift(r.drift) }) };
  };
  return {
    netlink: {
      apply: async (spec: NodeConfigSpec) => {
        const r = await netlink.apply(spec);
        order.hold(r.gates);
        // Held `up` steps count: they are carried out after the FRR reload.
        return { operations: r.operations + r.gates.length, rendering: modelList(r.desired) };
      },
      removeAdded: async (spec: NodeConfigSpec) => ({ removed: await netlink.removeAdded(spec) }),
      // Applying the empty spec deletes every owned device and nothing else.
      removeAll: async () => {
        order.hold([]);
        return { operations: (await netlink.apply(EMPTY_SPEC)).operations };
      },
      rendering: async (spec) => modelList((await netlink.plan(spec)).desired),
      applyRendering: async (devices) => {
        order.hold([]);
        return netlink.applyModel(new Map((devices as Device[]).map((d) => [d.name, d])));
      },
    },
    frr: {
      prepare,
      apply: async (spec, options) => {
        await prepare(spec);
        return applyText(frr.render(spec), options);
      },
      // Drift repair: judged on FRR's running config; held L3 VNI devices come up afterwards too.
      sync: async (spec) => {
        await prepare(spec);
        return syncText(frr.render(spec));
      },
      removeAll: async () => ({ changed: (await frr.apply(frr.renderEmpty(), { force: true })).changed }),
      fileHash: () => configFileHash(frr),
      restoreFile: async (before) => {
        const done = await restoreFileBefore(frr, before);
        if (done === 'restored') await order.afterReload();
        return done;
      },
      render: (spec) => frr.render(spec),
      onHost: () => readIfExists(frr.instance.configFile),
      applyText,
      syncText,
    },
  };
}

/** A model as the checkpoint keeps it: its devices sorted by name (plain JSON). */
const modelList = (model: HostModel): Device[] =>
  [...model.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
