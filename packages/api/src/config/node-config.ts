import { selectedEntries } from './selector-groups.js';
import { nodePeerings } from './bgp-peering-merge.js';
import type {
  Layer2Entry,
  NetworkConfig,
  NodeConfigSpec,
  NodeLayer2Entry,
  NodeVrfEntry,
  VrfEntry,
} from '../resources/schema.js';
import type { NodeLoopbackAddress } from '../resources/vrf-extras.js';
import type { AgentConfigEntry, NodeAgentConfig } from '../resources/agent-configuration.js';
import { matchesSelector } from './selector.js';

/** `entry\0loopback\0node` → address, once per config (every node asks the same config). */
const addressIndex = new WeakMap<object, Map<string, string>>();
const addressKey = (entry: string, loopback: string, node: string): string =>
  `${entry}\u0000${loopback}\u0000${node}`;

function addressesOf(config: NetworkConfig): Map<string, string> {
  let index = addressIndex.get(config);
  if (!index) {
    index = new Map(
      (config.loopbackAddresses ?? []).map((a) => [addressKey(a.entry, a.loopback, a.node), a.address]),
    );
    addressIndex.set(config, index);
  }
  return index;
}

/**
 * Each entry without its node selector, made once per entry: entries are never changed after they
 * are made, and the merge keeps the entry of every unchanged input across builds (merge.ts), so the
 * nodes of every label group, and the next revision's, share one copy instead of one each.
 */
const withoutSelector = new WeakMap<object, object>();

function unselected<E extends { nodeSelector?: unknown }>(entry: E): Omit<E, 'nodeSelector'> {
  const known = withoutSelector.get(entry);
  if (known) return known as Omit<E, 'nodeSelector'>;
  const { nodeSelector: _selector, ...rest } = entry;
  withoutSelector.set(entry, rest);
  return rest;
}

/** An entry as the node gets it: no selector; the node's address of each loopback that has one. */
function nodeVrfEntry(config: NetworkConfig, entry: VrfEntry, node: string | undefined): NodeVrfEntry {
  const rest = unselected(entry);
  if (entry.loopbacks === undefined) return rest;
  const index = addressesOf(config);
  const mine: NodeLoopbackAddress[] = [];
  for (const l of entry.loopbacks) {
    const address = node === undefined ? undefined : index.get(addressKey(entry.name, l.name, node));
    if (address !== undefined) mine.push({ address, name: l.name });
  }
  return mine.length > 0 ? { ...rest, loopbackAddresses: mine } : rest;
}

interface VrfPart {
  vrf: NodeVrfEntry[];
  /** The VRFs of those entries. */
  vrfsHere: ReadonlySet<string>;
}

/**
 * The VRF entries of a config's nodes by the groups of VRF entries that matched them: without
 * loopback addresses a node's VRF entries depend on nothing else, and nodes in 50 racks that all get
 * the 500 VRFs share one list instead of building 50.
 */
const vrfParts = new WeakMap<NetworkConfig, Map<string, VrfPart>>();

function vrfPart(
  config: NetworkConfig,
  selected: { vrf: readonly number[]; vrfGroups: string },
  nodeName: string | undefined,
): VrfPart {
  const shared = (config.loopbackAddresses ?? []).length === 0;
  let byGroups = shared ? vrfParts.get(config) : undefined;
  const known = byGroups?.get(selected.vrfGroups);
  if (known) return known;
  const vrf: NodeVrfEntry[] = [];
  const vrfsHere = new Set<string>();
  for (const i of selected.vrf) {
    const entry = config.vrf[i] as VrfEntry;
    // Most entries have neither a selector nor loopbacks: the same object, no copy.
    vrf.push(
      entry.nodeSelector === undefined && entry.loopbacks === undefined
        ? entry
        : nodeVrfEntry(config, entry, nodeName),
    );
    vrfsHere.add(entry.vrf);
  }
  const part = { vrf, vrfsHere };
  if (shared) {
    byGroups ??= new Map();
    vrfParts.set(config, byGroups);
    byGroups.set(selected.vrfGroups, part);
  }
  return part;
}

/**
 * The NodeConfig spec one node receives from a revision: the VRF entries and Layer-2 networks whose
 * node selector matches the node's labels (without the selector itself), and every routing table.
 * A Layer-2 network in a VRF none of whose entries reaches the node is left out too: validation
 * refuses such a network already, this keeps a node from ever getting a network without its VRF.
 * `nodeName` picks the node's loopback addresses from the revision (none without it).
 */
export function nodeConfigSpec(
  revision: { config: NetworkConfig; hash: string },
  nodeLabels: Record<string, string>,
  nodeName?: string,
): NodeConfigSpec {
  const { config } = revision;
  const selected = selectedEntries(config, nodeLabels);
  const { vrf, vrfsHere } = vrfPart(config, selected, nodeName);
  const layer2: NodeLayer2Entry[] = [];
  for (const i of selected.layer2) {
    const entry = config.layer2[i] as Layer2Entry;
    const { vrf: inVrf } = entry;
    if (inVrf !== undefined && selected.vrfsAnywhere.has(inVrf) && !vrfsHere.has(inVrf)) continue;
    layer2.push(unselected(entry));
  }
  // A peering reaches the node only where its VRF does: the VRFs this node receives, not every
  // VRF of the revision (a VRF's node selector takes its peerings with it).
  const bgpPeering = nodePeerings(config, nodeLabels, vrfsHere);
  const agent = nodeAgentConfig(config, nodeLabels);
  // Keys in sorted order: canonicalJson hashes it without copying.
  return {
    ...(agent ? { agent } : {}),
    ...(bgpPeering.length > 0 ? { bgpPeering } : {}),
    layer2,
    revision: revision.hash,
    routingTable: config.routingTable,
    vrf,
  };
}

/**
 * The AgentConfiguration that selects the node (validation refuses a second one that could; the
 * first by name otherwise), without its selector: one object per entry, shared by its nodes.
 */
function nodeAgentConfig(config: NetworkConfig, labels: Record<string, string>): NodeAgentConfig | undefined {
  const entry = (config.agentConfig ?? []).find((e: AgentConfigEntry) =>
    matchesSelector(e.nodeSelector, labels),
  );
  return entry ? unselected(entry) : undefined;
}
