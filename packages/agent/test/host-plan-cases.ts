/**
 * The host-plan cases: a previous and a next NodeConfig spec per kind of change, each with the
 * disruption class its plan must have. The golden test fixes their plan text; the host test
 * (test/agent/host-plan.test.ts) applies them on a real host.
 */
import type { NodeBgpPeeringEntry, NodeLayer2Entry, NodeVrfEntry } from '@nodenet/api';
import type { DisruptionClass, HostSpec } from '@nodenet/agent';

export const l2 = (over: Partial<NodeLayer2Entry> = {}): NodeLayer2Entry => ({
  name: 'web',
  id: 100,
  mtu: 1500,
  vni: 1100,
  anycastGateways: [],
  advertiseNeighbors: false,
  createMacVLANInterface: false,
  neighSuppression: false,
  ...over,
});

export const vrf = (over: Partial<NodeVrfEntry> & { vrf: string }): NodeVrfEntry => ({
  name: `${over.vrf}-${over.seq ?? 10}`,
  vni: 2001,
  import: [],
  export: [],
  aggregate: [],
  seq: 10,
  mtu: 1500,
  ...over,
});

export const peering = (over: Partial<NodeBgpPeeringEntry> & { name: string }): NodeBgpPeeringEntry => ({
  addressFamilies: ['ipv4'],
  export: [],
  import: [],
  importCommunities: [],
  listenRanges: [],
  neighbors: ['192.0.2.10'],
  remoteAS: '65010',
  ...over,
});

const spec = (s: Partial<HostSpec>): HostSpec => ({ vrf: [], layer2: [], routingTable: [], ...s });

const red = vrf({ vrf: 'red', export: [{ cidr: '10.20.0.0/16', seq: 10, action: 'permit' }] });

export interface HostPlanCase {
  previous: HostSpec;
  next: HostSpec;
  class: DisruptionClass;
  /** Needs VRF devices in the kernel (runs in the real-kernel VM, not in a netns on this kernel). */
  vrf: boolean;
}

export const HOST_PLAN_CASES: Record<string, HostPlanCase> = {
  'add-l2': { previous: spec({}), next: spec({ layer2: [l2()] }), class: 'none', vrf: false },
  'mtu-change': {
    previous: spec({ layer2: [l2()] }),
    next: spec({ layer2: [l2({ mtu: 1450 })] }),
    class: 'none',
    vrf: false,
  },
  'gateway-added': {
    previous: spec({ layer2: [l2({ anycastMac: '02:00:00:00:01:00' })] }),
    next: spec({ layer2: [l2({ anycastMac: '02:00:00:00:01:00', anycastGateways: ['10.60.0.1/24'] })] }),
    class: 'none',
    vrf: false,
  },
  'vni-change': {
    previous: spec({ layer2: [l2()] }),
    next: spec({ layer2: [l2({ vni: 1200 })] }),
    class: 'l2-interruption',
    vrf: false,
  },
  'gateway-removed': {
    previous: spec({ layer2: [l2({ anycastMac: '02:00:00:00:01:00', anycastGateways: ['10.60.0.1/24'] })] }),
    next: spec({ layer2: [l2({ anycastMac: '02:00:00:00:01:00' })] }),
    class: 'l2-interruption',
    vrf: false,
  },
  'vrf-added': { previous: spec({}), next: spec({ vrf: [red] }), class: 'none', vrf: true },
  'loopback-added': {
    previous: spec({ vrf: [red] }),
    next: spec({
      vrf: [
        {
          ...red,
          loopbacks: [{ name: 'lo', subnet: '10.255.0.0/24' }],
          loopbackAddresses: [{ name: 'lo', address: '10.255.0.7' }],
        },
      ],
    }),
    class: 'none',
    vrf: true,
  },
  // The agent deletes just the address (RTM_DELADDR): the VRF, its table and L3 VNI stay.
  'loopback-removed': {
    previous: spec({
      vrf: [
        {
          ...red,
          loopbacks: [{ name: 'lo', subnet: '10.255.0.0/24' }],
          loopbackAddresses: [{ name: 'lo', address: '10.255.0.7' }],
        },
      ],
    }),
    next: spec({ vrf: [red] }),
    class: 'l2-interruption',
    vrf: true,
  },
  'route-map-entry': {
    previous: spec({ vrf: [red] }),
    next: spec({
      vrf: [red, vrf({ vrf: 'red', seq: 20, export: [{ cidr: '10.21.0.0/16', seq: 10, action: 'permit' }] })],
    }),
    class: 'refilter',
    vrf: true,
  },
  'prefix-removed': {
    previous: spec({ vrf: [red] }),
    next: spec({ vrf: [{ ...red, export: [] }] }),
    class: 'refilter',
    vrf: true,
  },
  'neighbor-as-change': {
    previous: spec({ bgpPeering: [peering({ name: 'router' })] }),
    next: spec({ bgpPeering: [peering({ name: 'router', remoteAS: '65020' })] }),
    class: 'session-reset',
    vrf: false,
  },
  'vrf-vni-change': {
    previous: spec({ vrf: [red] }),
    next: spec({ vrf: [{ ...red, vni: 2002 }] }),
    class: 'vrf-rebuild',
    vrf: true,
  },
};
