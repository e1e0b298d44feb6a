/**
 * Adapts the netlink and FRR drivers (src/netlink, src/frr) to the small boundary the pipeline
 * needs (`HostDrivers`), so the pipeline does not depend on either driver's wider API.
 *
 * Every caller (apply, drift repair, restore) runs netlink, then FRR: the L3 VNI devices the netlink
 * apply held down are brought up after FRR's reload, once FRR shows their VNIs as L3 (l3vni-order.ts).
 */
import type { NodeConfigSpec } from '@nodenet/api';
import { describeDrift, isEmptyDrift, type FrrDriver } from '../frr/index.js';
import { queryL3Vnis } from '../frr/vni.js';
import { bringUpL3Vnis, DEFAULT_L3VNI_ORDER, type L3VniOrderSettings } from './l3vni-order.js';
import { EMPTY_SPEC, type L3VniGate, type NetlinkDriver } from '../netlink/index.js';
import type { HostDrivers } from './pipeline.js';

export function hostDrivers(
  netlink: NetlinkDriver,
  frr: FrrDriver,
  l3vni: L3VniOrderSettings = DEFAULT_L3VNI_ORDER,
): HostDrivers {
  /** Gates of the last netlink apply, passed by the FRR apply that follows it. */
  let held: L3VniGate[] = [];
  const afterReload = async (): Promise<void> => {
    const gates = held;
    held = [];
    await bringUpL3Vnis(
      gates,
      { query: () => queryL3Vnis(frr.instance), bringUp: (devices) => netlink.bringUp(devices) },
      l3vni,
    );
  };
  return {
    netlink: {
      apply: async (spec: NodeConfigSpec) => {
        const r = await netlink.apply(spec);
        held = r.gates;
        // Held `up` steps count: they are carried out after the FRR reload.
        return { operations: r.operations + r.gates.length };
      },
      // Applying the empty spec deletes every owned device and nothing else.
      removeAll: async () => {
        held = [];
        return { operations: (await netlink.apply(EMPTY_SPEC)).operations };
      },
    },
    frr: {
      apply: async (spec, options) => {
        const { changed } = await frr.applySpec(spec, { force: options?.repair ?? false });
        await afterReload();
        return { changed };
      },
      // Drift repair: judged on FRR's running config; held L3 VNI devices come up afterwards too.
      sync: async (spec) => {
        const r = await frr.syncSpec(spec);
        await afterReload();
        return { changed: r.changed, ...(isEmptyDrift(r.drift) ? {} : { drift: describeDrift(r.drift) }) };
      },
      removeAll: async () => ({
        changed: (await frr.applySpec({ vrf: [], routingTable: [] }, { force: true })).changed,
      }),
    },
  };
}
