/**
 * The controller's informers: every kind a pass reads, which of them are the build's inputs, and the
 * BGP password Secrets of one namespace (build/password-secrets.ts). A standby keeps them warm too.
 */
import type {
  AgentConfiguration,
  BGPPeering,
  Inputs,
  NetworkConfigRevision,
  NodeConfig,
  RolloutPolicy,
} from '@nodenet/api';
import { Informer, type Clients, type Node } from '@nodenet/kube';
import type { PasswordSecrets } from './build/index.js';
import { agentLeaseInformer, type AgentLeaseInformer } from './nodes/agent-leases.js';
import { NODE_CONFIG_PAGE, nodeConfigSummary } from './nodes/node-config-summary.js';

export type Informers = {
  vrf: Informer<Inputs['vrf'][number]>;
  layer2: Informer<Inputs['layer2'][number]>;
  routingTable: Informer<Inputs['routingTable'][number]>;
  bgpPeering: Informer<BGPPeering>;
  agentConfiguration: Informer<AgentConfiguration>;
  revision: Informer<NetworkConfigRevision>;
  nodeConfig: Informer<NodeConfig>;
  rolloutPolicy: Informer<RolloutPolicy>;
  node: Informer<Node>;
  secret: PasswordSecrets['informer'];
  agentLease: AgentLeaseInformer;
};

/** The informers of the input kinds: an event of theirs is a reason to build. */
export const INPUT_INFORMERS: ReadonlySet<string> = new Set([
  'vrf',
  'layer2',
  'routingTable',
  'bgpPeering',
  'agentConfiguration',
]);

export function makeInformers(
  c: Clients,
  resync: number,
  passwords: PasswordSecrets,
  agentLeaseNamespace: string,
): Informers {
  return {
    vrf: new Informer(c.vrf, { resyncMs: resync }),
    layer2: new Informer(c.layer2, { resyncMs: resync }),
    routingTable: new Informer(c.routingTable, { resyncMs: resync }),
    bgpPeering: new Informer(c.bgpPeering, { resyncMs: resync }),
    agentConfiguration: new Informer(c.agentConfiguration, { resyncMs: resync }),
    revision: new Informer(c.revision, { resyncMs: resync }),
    // One summary per node, not its whole configuration (node-config-summary.ts).
    nodeConfig: new Informer(c.nodeConfig, {
      resyncMs: resync,
      transform: nodeConfigSummary,
      pageSize: NODE_CONFIG_PAGE,
    }),
    rolloutPolicy: new Informer(c.rolloutPolicy, { resyncMs: resync }),
    node: new Informer(c.node, { resyncMs: resync }),
    secret: passwords.informer,
    agentLease: agentLeaseInformer(c, agentLeaseNamespace, resync),
  };
}
