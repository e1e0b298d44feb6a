import { matchesSelector } from './selector.js';
import { nodePeerings } from './bgp-peering-merge.js';
import type { NetworkConfig, NodeConfigSpec, NodeLayer2Entry } from './schema.js';

/**
 * The NodeConfig spec one node receives from a revision: every VRF and routing table, and the
 * Layer-2 networks whose node selector matches the node's labels (without the selector itself).
 */
export function nodeConfigSpec(
  revision: { config: NetworkConfig; hash: string },
  nodeLabels: Record<string, string>,
): NodeConfigSpec {
  const layer2: NodeLayer2Entry[] = [];
  for (const entry of revision.config.layer2) {
    if (!matchesSelector(entry.nodeSelector, nodeLabels)) continue;
    const { nodeSelector: _selector, ...rest } = entry;
    layer2.push(rest);
  }
  // A peering reaches the node only where its VRF does: once VRFs have node selectors, this set
  // must be the VRFs this node receives (the list below), not every VRF of the revision.
  const bgpPeering = nodePeerings(
    revision.config,
    nodeLabels,
    new Set(revision.config.vrf.map((v) => v.vrf)),
  );
  // Keys in sorted order: canonicalJson hashes it without copying.
  return {
    ...(bgpPeering.length > 0 ? { bgpPeering } : {}),
    layer2,
    revision: revision.hash,
    routingTable: revision.config.routingTable,
    vrf: revision.config.vrf,
  };
}
