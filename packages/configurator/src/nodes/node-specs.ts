/**
 * NodeConfig specs per node, memoized. A node's spec depends only on the revision and on the values
 * of the label keys that the revision's node selectors (Layer-2 networks, VRFs) mention, so nodes
 * that agree on those share one spec: 5,000 nodes in 50 racks cost 50 selector evaluations per network, not 5,000.
 */
import { nodeConfigSpec, type NetworkConfig, type NodeConfigSpec } from '@nodenet/api';

/** The label keys a revision's selectors mention, and the spec of each list of their values. */
interface RevisionSpecs {
  keys: readonly string[];
  byValues: Map<string, NodeConfigSpec>;
}

export class NodeSpecCache {
  /** By revision hash: one revision at a time matters, the last few are kept (bounded). */
  private readonly revisions = new Map<string, RevisionSpecs>();
  /**
   * The last answer per labels object: a Node's labels are one object for as long as the Node is
   * unchanged (informer objects are replaced, never mutated), and the planner asks for every node
   * on every pass, so most questions are answered without building the selector-values key.
   */
  private readonly byLabels = new WeakMap<
    object,
    { hash: string; node: string | undefined; spec: NodeConfigSpec }
  >();

  spec(
    revision: { config: NetworkConfig; hash: string },
    labels: Record<string, string>,
    node?: string,
  ): NodeConfigSpec {
    const last = this.byLabels.get(labels);
    if (last?.hash === revision.hash && last.node === node) return last.spec;
    // A revision with loopback addresses gives every node its own spec: no sharing by labels values.
    const spec =
      (revision.config.loopbackAddresses ?? []).length > 0
        ? nodeConfigSpec(revision, labels, node)
        : this.specFor(revision, labels);
    this.byLabels.set(labels, { hash: revision.hash, node, spec });
    return spec;
  }

  private specFor(
    revision: { config: NetworkConfig; hash: string },
    labels: Record<string, string>,
  ): NodeConfigSpec {
    const specs = this.revisions.get(revision.hash) ?? this.add(revision);
    const key = valuesKey(specs.keys, labels);
    let spec = specs.byValues.get(key);
    if (!spec) {
      spec = nodeConfigSpec(revision, labels);
      specs.byValues.set(key, spec);
    }
    return spec;
  }

  private add(revision: { config: NetworkConfig; hash: string }): RevisionSpecs {
    const set = new Set<string>();
    for (const { nodeSelector } of [...revision.config.layer2, ...revision.config.vrf]) {
      for (const k of Object.keys(nodeSelector?.matchLabels ?? {})) set.add(k);
      for (const e of nodeSelector?.matchExpressions ?? []) set.add(e.key);
    }
    const specs = { keys: [...set].sort(), byValues: new Map<string, NodeConfigSpec>() };
    this.revisions.set(revision.hash, specs);
    // Drop the oldest revision's specs so memory stays bounded.
    if (this.revisions.size > 4) this.revisions.delete(this.revisions.keys().next().value as string);
    return specs;
  }
}

/**
 * The values of `keys` in `labels` as one string that tells every two value lists apart: each
 * value JSON-quoted (so it cannot contain the separator unquoted), an absent label as `-`, apart
 * from the empty string `""`. Written by hand: JSON.stringify of a mapped array cost a copy per node.
 */
function valuesKey(keys: readonly string[], labels: Record<string, string>): string {
  let out = '';
  for (const k of keys) out += Object.hasOwn(labels, k) ? `${JSON.stringify(labels[k])},` : '-,';
  return out;
}
