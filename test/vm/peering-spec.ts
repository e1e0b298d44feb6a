/**
 * The NodeConfig spec of the VM peering scenario (l3vni-vm.test.ts, peering-guest.ts), built on the
 * host the way the configurator builds it (buildRevision with the node for the loopback allocation,
 * then nodeConfigSpec for that node): VRF blue (L3 VNI 5000, as the L3 VNI scenario before it) with
 * a per-node loopback, the Layer-2 network `workloads` in blue with gateway 10.70.0.1/24, and the
 * BGPPeering `workloads` in listen-range mode on that network: external peers, IPv4, at most
 * 3 prefixes, accepting 10.96.0.0/12 and announcing the loopback subnet.
 */
import {
  API_VERSION,
  nodeConfigSpec,
  type BGPPeering,
  type Inputs,
  type NodeConfigSpec,
  type PrefixItem,
} from '@nodenet/api';
import { buildRevision } from '@nodenet/configurator';
import { layer2, vrf } from '../../packages/api/test/fixtures.js';
import { WORKLOAD } from './peering-guest.js';

export const PEERING_NODE = 'vm-node';
export const MAX_PREFIXES = 3;
export const LOOPBACK_SUBNET = '10.250.0.0/24';

const permit = (cidr: string, seq: number): PrefixItem => ({ cidr, seq, le: 32, action: 'permit' });

const workloadsPeering: BGPPeering = {
  apiVersion: API_VERSION,
  kind: 'BGPPeering',
  metadata: { name: 'workloads' },
  spec: {
    listenRange: { layer2: 'workloads' },
    remoteAS: 'external',
    addressFamilies: ['ipv4'],
    maxPrefixes: { ipv4: MAX_PREFIXES },
    import: [permit('10.96.0.0/12', 10)],
    export: [permit(LOOPBACK_SUBNET, 10)],
  },
};

export function peeringInputs(): Inputs {
  return {
    vrf: [
      vrf('blue', {
        vrf: 'blue',
        vni: 5000,
        routeTarget: '65010:5000',
        import: [],
        export: [],
        seq: 10,
        loopbacks: [{ name: 'node', subnet: LOOPBACK_SUBNET }],
      }),
    ],
    layer2: [
      layer2('workloads', {
        id: 70,
        vni: 20070,
        vrf: 'blue',
        anycastMac: '02:00:00:00:70:01',
        anycastGateways: [`${WORKLOAD.gateway}/24`],
      }),
    ],
    routingTable: [],
    bgpPeering: [workloadsPeering],
  };
}

/** The node's spec, as the configurator would assign it; throws if it would not build a revision. */
export function peeringNodeSpec(): NodeConfigSpec {
  const built = buildRevision(peeringInputs(), [], Date.now(), {
    nodes: [{ name: PEERING_NODE, labels: {} }],
  });
  if (built.decision.action !== 'create')
    throw new Error(`configurator would not create a revision: ${JSON.stringify(built.decision)}`);
  return nodeConfigSpec(built.decision.revision.spec, {}, PEERING_NODE);
}
