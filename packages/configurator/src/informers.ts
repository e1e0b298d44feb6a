/**
 * The controller's informers: every kind a pass reads, and the BGP password Secrets of one namespace
 * (build/password-secrets.ts). A standby keeps them warm too.
 */
import type { BGPPeering, Inputs, NetworkConfigRevision, NodeConfig, RolloutPolicy } from '@nodenet/api';
import { Informer, type Clients, type Node } from '@nodenet/kube';
import type { PasswordSecrets } from './build/index.js';
import { NODE_CONFIG_PAGE, nodeConfigSummary } from './nodes/node-config-summary.js';

export type Informers = {
  vrf: Informer<Inputs['vrf'][number]>;
  layer2: Informer<Inputs['layer2'][number]>;
  routingTable: Informer<Inputs['routingTable'][number]>;
  bgpPeering: Informer<BGPPeering>;
  revision: Informer<NetworkConfigRevision>;
  nodeConfig: Informer<NodeConfig>;
  rolloutPolicy: Informer<RolloutPolicy>;
  node: Informer<Node>;
  secret: PasswordSecrets['informer'];
};

export function controllerInformers(c: Clients, resync: number, passwords: PasswordSecrets): Informers {
  return {
    vrf: new Informer(c.vrf, { resyncMs: resync }),
    layer2: new Informer(c.layer2, { resyncMs: resync }),
    routingTable: new Informer(c.routingTable, { resyncMs: resync }),
    bgpPeering: new Informer(c.bgpPeering, { resyncMs: resync }),
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
  };
}
