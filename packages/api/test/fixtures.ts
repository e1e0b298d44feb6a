import type {
  BGPPeering,
  BGPPeeringSpec,
  Inputs,
  Layer2NetworkConfiguration,
  Layer2NetworkConfigurationSpec,
  RoutingTable,
  VRFRouteConfiguration,
  VRFRouteConfigurationSpec,
} from '@nodenet/api';
import { API_VERSION } from '@nodenet/api';

export const vrf = (name: string, spec: VRFRouteConfigurationSpec): VRFRouteConfiguration => ({
  apiVersion: API_VERSION,
  kind: 'VRFRouteConfiguration',
  metadata: { name },
  spec,
});

export const layer2 = (name: string, spec: Layer2NetworkConfigurationSpec): Layer2NetworkConfiguration => ({
  apiVersion: API_VERSION,
  kind: 'Layer2NetworkConfiguration',
  metadata: { name },
  spec,
});

export const table = (name: string, tableId: number): RoutingTable => ({
  apiVersion: API_VERSION,
  kind: 'RoutingTable',
  metadata: { name },
  spec: { tableId },
});

/** A valid, representative input set: two VRF objects for one VRF, v4 and v6, two L2 networks, a table. */
export function goodInputs(): Inputs {
  return {
    vrf: [
      vrf('blue', {
        vrf: 'blue',
        vni: 100,
        routeTarget: '65000:100',
        import: [{ cidr: '10.1.0.0/16', seq: 10, action: 'permit' }],
        export: [
          { cidr: '10.2.0.0/16', seq: 10, le: 24, action: 'permit' },
          { cidr: '10.2.99.0/24', seq: 5, action: 'deny' },
        ],
        aggregate: ['10.2.0.0/16'],
        seq: 10,
        community: '65000:1',
      }),
      vrf('blue-v6', {
        vrf: 'blue',
        vni: 100,
        import: [{ cidr: '2001:db8:1::/48', seq: 10, ge: 56, le: 64, action: 'permit' }],
        export: [],
        seq: 20,
      }),
      vrf('red', { vrf: 'red', vni: 200, seq: 10, mtu: 1500 }),
    ],
    layer2: [
      layer2('web', {
        id: 10,
        vni: 10010,
        mtu: 1500,
        anycastMac: '02:00:5E:00:01:01',
        anycastGateways: ['10.10.0.1/24', '2001:db8:10::1/64'],
        vrf: 'blue',
        nodeSelector: { matchLabels: { role: 'worker' } },
      }),
      layer2('storage', { id: 20, vni: 10020, createMacVLANInterface: true, neighSuppression: true }),
    ],
    routingTable: [table('t1', 5000)],
  };
}

export const peering = (name: string, spec: BGPPeeringSpec): BGPPeering => ({
  apiVersion: API_VERSION,
  kind: 'BGPPeering',
  metadata: { name },
  spec,
});

/** goodInputs plus a listen-range peering on `web` (VRF blue) and a neighbour peering in VRF red. */
export function inputsWithPeerings(): Inputs {
  const inputs = goodInputs();
  inputs.bgpPeering = [
    peering('workloads', {
      listenRange: { layer2: 'web' },
      remoteAS: 'external',
      holdTime: 9,
      keepaliveTime: 3,
      maxPrefixes: { ipv4: 100 },
      import: [{ cidr: '10.10.0.0/16', seq: 10, le: 32, action: 'permit' }],
      importCommunities: ['65000:7'],
      bfd: { receiveInterval: 100, transmitInterval: 100, detectMultiplier: 5 },
      nodeSelector: { matchLabels: { bgp: 'yes' } },
    }),
    peering('router', {
      neighbor: { addresses: ['192.0.2.1', '2001:DB8::1'], vrf: 'red', ebgpMultihop: 2 },
      remoteASN: 65010,
      addressFamilies: ['ipv4'],
      export: [{ cidr: '10.20.0.0/16', seq: 5, action: 'permit' }],
    }),
  ];
  return inputs;
}
