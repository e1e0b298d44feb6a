/** NodeConfig fixtures of the FRR golden tests (one per golden file). */
import type { NodeBgpPeeringEntry, NodeConfigSpec, NodeVrfEntry, PrefixItem } from '@nodenet/api';

export type FrrSpec = Pick<NodeConfigSpec, 'vrf' | 'routingTable' | 'bgpPeering'>;

export const settings = { asn: 4200065001, routerId: '10.50.0.11', vrfRouterId: '10.51.0.11' };

const p = (
  cidr: string,
  seq: number,
  action: 'permit' | 'deny' = 'permit',
  ge?: number,
  le?: number,
): PrefixItem => ({
  cidr,
  seq,
  action,
  ...(ge !== undefined ? { ge } : {}),
  ...(le !== undefined ? { le } : {}),
});

/** A peering as a node receives it: defaults of the merge, IPv4 and IPv6, nothing allowed. */
export const peering = (e: Partial<NodeBgpPeeringEntry> & { name: string }): NodeBgpPeeringEntry => ({
  addressFamilies: ['ipv4', 'ipv6'],
  export: [],
  import: [],
  importCommunities: [],
  listenRanges: [],
  neighbors: [],
  remoteAS: 'external',
  ...e,
});

export const vrf = (v: Partial<NodeVrfEntry> & { vrf: string }): NodeVrfEntry => ({
  name: `${v.vrf}-${v.seq ?? 10}`,
  vni: 100,
  import: [],
  export: [],
  aggregate: [],
  seq: 10,
  mtu: 9000,
  ...v,
});

export const goldenCases: Record<string, FrrSpec> = {
  empty: { vrf: [], routingTable: [] },
  ipv4: {
    vrf: [
      vrf({
        vrf: 'red',
        vni: 2001,
        import: [p('0.0.0.0/0', 10)],
        export: [p('10.20.0.0/16', 10, 'permit', undefined, 24), p('10.20.99.0/24', 5, 'deny')],
      }),
    ],
    routingTable: [],
  },
  ipv6: {
    vrf: [
      vrf({
        vrf: 'blue',
        vni: 2002,
        routeTarget: '65000:2002',
        import: [p('::/0', 1)],
        // Upper-case and uncompressed on purpose: rendered in FRR's own canonical form.
        export: [
          p('FD00:0:0:10::/64', 10),
          p('fd00:20::/48', 20, 'permit', 56, 64),
          p('fd00:99::/32', 30, 'deny'),
        ],
      }),
    ],
    routingTable: [],
  },
  'several-vrfs': {
    vrf: [
      vrf({ vrf: 'red', vni: 2001, seq: 20, export: [p('10.21.0.0/16', 1)], community: '65000:21' }),
      vrf({
        vrf: 'red',
        vni: 2001,
        seq: 10,
        export: [p('10.20.0.0/16', 1), p('fd00:20::/48', 2)],
        routeTarget: '65000:2001',
      }),
      vrf({
        vrf: 'green',
        vni: 2003,
        routeTarget: '10.0.0.1:3',
        import: [p('192.168.0.0/16', 1, 'permit', 24, 32)],
      }),
    ],
    routingTable: [],
  },
  leaking: {
    vrf: [
      vrf({
        vrf: 'mgmt',
        vni: 3000,
        import: [p('10.30.0.0/16', 10), p('10.30.5.0/24', 5, 'deny'), p('fd00:30::/48', 20)],
        export: [p('10.0.0.0/8', 10, 'permit', 16, 32)],
      }),
    ],
    routingTable: [
      { name: 'taas-b', tableId: 4000 },
      { name: 'taas-a', tableId: 42 },
    ],
  },
  communities: {
    vrf: [
      vrf({ vrf: 'edge', vni: 500, seq: 1, export: [p('10.1.0.0/16', 1)], community: '65000:100' }),
      vrf({
        vrf: 'edge',
        vni: 500,
        seq: 2,
        export: [p('10.2.0.0/16', 1), p('fd00:2::/48', 1)],
        community: '4200065001:1:2',
      }),
      vrf({ vrf: 'edge', vni: 500, seq: 3, export: [p('10.3.0.0/16', 1)], community: 'no-export' }),
    ],
    routingTable: [],
  },
  'static-routes': {
    vrf: [
      vrf({
        vrf: 'blue',
        vni: 700,
        export: [p('10.70.0.0/16', 1)],
        staticRoutes: [
          { prefix: '10.71.0.0/16', nextHop: '10.70.0.9' },
          { prefix: '10.71.0.0/16', nextHop: '10.70.0.8' },
          { prefix: '0.0.0.0/0', nextHop: '192.0.2.1', onlink: true, nextHopVRF: 'default' },
          { prefix: '10.72.0.0/16', nextHopVRF: 'red' },
          { prefix: 'fd00:71::/48', nextHop: 'fd00:70::9' },
          { prefix: '10.71.0.0/24', nextHop: '192.0.2.2', onlink: true },
        ],
      }),
      vrf({
        vrf: 'red',
        vni: 701,
        staticRoutes: [{ prefix: '10.73.0.0/16', nextHop: '10.74.0.1', nextHopVRF: 'blue' }],
      }),
    ],
    routingTable: [],
  },
  loopbacks: {
    vrf: [
      vrf({
        vrf: 'tenant',
        vni: 800,
        export: [p('10.80.0.0/16', 10)],
        community: '65000:80',
        loopbacks: [{ name: 'lo', subnet: '10.255.0.0/24' }],
        loopbackAddresses: [{ name: 'lo', address: '10.255.0.7' }],
      }),
      vrf({
        vrf: 'tenant',
        vni: 800,
        seq: 20,
        loopbacks: [{ name: 'lo6', subnet: 'fd00:ff::/64' }],
        loopbackAddresses: [{ name: 'lo6', address: 'fd00:ff::7' }],
      }),
    ],
    routingTable: [],
  },
  aggregates: {
    vrf: [
      vrf({
        vrf: 'agg',
        vni: 600,
        aggregate: ['10.60.0.0/16', 'fd00:60::/48', '10.61.0.0/16'],
        export: [
          p('10.60.0.0/16', 1, 'permit', undefined, 32),
          p('fd00:60::/48', 2, 'permit', undefined, 128),
        ],
      }),
    ],
    routingTable: [],
  },
  'peering-listen-range': {
    vrf: [vrf({ vrf: 'tenant', vni: 700 })],
    routingTable: [],
    bgpPeering: [
      peering({
        name: 'workloads',
        vrf: 'tenant',
        listenRanges: ['10.70.0.0/24', 'fd00:70::/64'],
        import: [p('10.96.0.0/12', 10, 'permit', undefined, 32), p('fd00:96::/48', 10, 'permit', 64, 128)],
        importCommunities: ['65000:70', '4200065001:7:0'],
      }),
    ],
  },
  'peering-neighbor': {
    vrf: [],
    routingTable: [],
    bgpPeering: [
      peering({
        name: 'router',
        neighbors: ['192.0.2.10', '2001:db8::10', '192.0.2.9'],
        remoteAS: '65010',
        ebgpMultihop: 2,
        addressFamilies: ['ipv6'],
        export: [p('10.50.0.0/16', 5, 'permit', undefined, 24), p('fd00:50::/48', 5)],
      }),
    ],
  },
  'peering-timers-max-prefix': {
    vrf: [vrf({ vrf: 'tenant', vni: 700 })],
    routingTable: [],
    bgpPeering: [
      peering({
        name: 'lb',
        vrf: 'tenant',
        neighbors: ['10.71.0.5'],
        remoteAS: 'internal',
        holdTime: 9,
        keepaliveTime: 3,
        addressFamilies: ['ipv4'],
        maxPrefixes: { ipv4: 50 },
        import: [p('10.97.0.0/16', 1, 'permit', undefined, 32)],
      }),
    ],
  },
  'peering-bfd-filters': {
    vrf: [vrf({ vrf: 'tenant', vni: 700 })],
    routingTable: [],
    bgpPeering: [
      peering({
        name: 'vms',
        vrf: 'tenant',
        listenRanges: ['10.72.0.0/24'],
        bfd: { receiveInterval: 100, transmitInterval: 150, detectMultiplier: 5, passiveMode: true },
        maxPrefixes: { ipv4: 20, ipv6: 30 },
        import: [
          p('10.98.0.0/16', 10, 'permit', undefined, 32),
          p('10.98.99.0/24', 5, 'deny', undefined, 32),
        ],
        export: [p('0.0.0.0/0', 1)],
      }),
      peering({ name: 'appliance', neighbors: ['192.0.2.20'], remoteAS: '65020', bfd: {} }),
    ],
  },
};
