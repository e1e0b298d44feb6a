import type {
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
