/**
 * What the build reads of the Nodes (pure): which get loopback addresses, the labels the inputs'
 * `Selected` condition is judged by, and every Node's address with the site's underlay settings for
 * the peering guards (@nodenet/api underlay-guards.ts, issue #37).
 */
import { nodeAddressesOf, type UnderlayContext } from '@nodenet/api';
import type { Node } from '@nodenet/kube';
import type { Policy } from '../policy/policy.js';
import { managedNodeLabels } from '../nodes/node-info.js';
import { loopbackNodes } from './loopback-step.js';
import type { BuildOptions } from './revisions.js';

/** The site-wide part of the peering guards (UnderlayContext without the node addresses). */
export type SiteUnderlay = Omit<UnderlayContext, 'nodeAddresses'>;

export function nodeFacts(
  nodes: readonly Node[],
  policy: Pick<Policy, 'nodeSelector'>,
  site: SiteUnderlay | undefined,
): Pick<BuildOptions, 'nodes' | 'nodeLabels' | 'underlay'> {
  return {
    nodes: loopbackNodes(nodes, policy.nodeSelector),
    nodeLabels: managedNodeLabels(nodes, policy),
    // Every Node's address, managed or not: no peering may name or cover one.
    underlay: { ...site, nodeAddresses: nodeAddressesOf(nodes) },
  };
}
