import { matchesSelector } from './selector.js';
import type { NetworkConfig, NodeConfigSpec, NodeLayer2Entry, NodeVrfEntry } from './schema.js';

/**
 * The NodeConfig spec one node receives from a revision: the VRF entries and Layer-2 networks whose
 * node selector matches the node's labels (without the selector itself), and every routing table.
 * A Layer-2 network in a VRF none of whose entries reaches the node is left out too: validation
 * refuses such a network already, this keeps a node from ever getting a network without its VRF.
 */
export function nodeConfigSpec(
  revision: { config: NetworkConfig; hash: string },
  nodeLabels: Record<string, string>,
): NodeConfigSpec {
  const vrf: NodeVrfEntry[] = [];
  const vrfsHere = new Set<string>();
  const vrfsAnywhere = new Set<string>();
  for (const entry of revision.config.vrf) {
    vrfsAnywhere.add(entry.vrf);
    if (entry.nodeSelector === undefined) {
      // Most entries have no selector: the same object, no copy.
      vrf.push(entry);
      vrfsHere.add(entry.vrf);
      continue;
    }
    if (!matchesSelector(entry.nodeSelector, nodeLabels)) continue;
    const { nodeSelector: _selector, ...rest } = entry;
    vrf.push(rest);
    vrfsHere.add(entry.vrf);
  }
  const layer2: NodeLayer2Entry[] = [];
  for (const entry of revision.config.layer2) {
    if (!matchesSelector(entry.nodeSelector, nodeLabels)) continue;
    if (entry.vrf !== undefined && vrfsAnywhere.has(entry.vrf) && !vrfsHere.has(entry.vrf)) continue;
    const { nodeSelector: _selector, ...rest } = entry;
    layer2.push(rest);
  }
  // Keys in sorted order: canonicalJson hashes it without copying.
  return {
    layer2,
    revision: revision.hash,
    routingTable: revision.config.routingTable,
    vrf,
  };
}
