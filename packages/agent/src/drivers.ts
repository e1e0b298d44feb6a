/**
 * Adapts the netlink and FRR drivers (src/netlink, src/frr) to the small boundary the pipeline
 * needs (`HostDrivers`), so the pipeline does not depend on either driver's wider API.
 */
import type { NodeConfigSpec } from '@nodenet/api';
import { describeDrift, isEmptyDrift, type FrrDriver } from './frr/index.js';
import { EMPTY_SPEC, type NetlinkDriver } from './netlink/index.js';
import type { HostDrivers } from './pipeline.js';

export function hostDrivers(netlink: NetlinkDriver, frr: FrrDriver): HostDrivers {
  return {
    netlink: {
      apply: async (spec: NodeConfigSpec) => ({ operations: (await netlink.apply(spec)).operations }),
      // Applying the empty spec deletes every managed device and nothing else.
      removeAll: async () => ({ operations: (await netlink.apply(EMPTY_SPEC)).operations }),
    },
    frr: {
      apply: async (spec, options) => ({
        changed: (await frr.applySpec(spec, { force: options?.repair ?? false })).changed,
      }),
      sync: async (spec) => {
        const r = await frr.syncSpec(spec);
        return { changed: r.changed, ...(isEmptyDrift(r.drift) ? {} : { drift: describeDrift(r.drift) }) };
      },
      removeAll: async () => ({
        changed: (await frr.applySpec({ vrf: [], routingTable: [] }, { force: true })).changed,
      }),
    },
  };
}
