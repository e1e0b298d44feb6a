import { hashConfig, type NodeConfigSpec } from '@nodenet/api';

/** A small but complete NodeConfig spec; `variant` changes the VNI so specs (and revisions) differ. */
export function sampleSpec(variant = 1): NodeConfigSpec {
  const config = {
    vrf: [
      {
        name: 'blue',
        vrf: 'blue',
        vni: 1000 + variant,
        import: [{ cidr: '10.1.0.0/16', seq: 10, action: 'permit' as const }],
        export: [],
        aggregate: [],
        seq: 10,
        mtu: 9000,
      },
    ],
    layer2: [
      {
        name: 'l2-100',
        id: 100,
        mtu: 1500,
        vni: 20100,
        anycastGateways: ['10.100.0.1/24'],
        advertiseNeighbors: false,
        createMacVLANInterface: false,
        neighSuppression: false,
        vrf: 'blue',
      },
    ],
    routingTable: [],
  };
  return { revision: hashConfig(config), ...config };
}
