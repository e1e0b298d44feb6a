/**
 * Per revision, the nodes on it (revision-status.ts shows them on revisions that are not desired):
 * counted afresh by plan(), and kept between passes by the incremental planner, which counts again
 * only the nodes whose Node or NodeConfig changed.
 */
import { REVISION_NUMBER_LABEL, type NodeConfig } from '@nodenet/api';
import { countKey } from './readable.js';
import type { NodeInfo } from './types.js';

/** Nodes with a Node and a NodeConfig on one revision: all, ready, in progress. */
export interface RevisionCount {
  total: number;
  ready: number;
  ongoing: number;
}

interface CountedAs {
  key: string;
  progress: 'ready' | 'ongoing' | undefined;
}

const counted = new WeakMap<NodeConfig, CountedAs>();
/**
 * Where a NodeConfig counts in its revision's status (once per informer object): under the revision
 * it was handed (hash and number: a revision with the same config but another number, a retry or an
 * older copy, shows its own nodes only), as ready, still in progress, or neither (refused).
 */
function countedAs(nc: NodeConfig): CountedAs {
  let c = counted.get(nc);
  if (c === undefined) {
    const h = nc.spec.revision;
    const st = nc.status;
    c = {
      key: countKey(h, Number(nc.metadata.labels?.[REVISION_NUMBER_LABEL]) || undefined),
      progress:
        st?.configStatus === 'provisioned' && st.lastAppliedRevision === h
          ? 'ready'
          : st?.configStatus !== 'invalid'
            ? 'ongoing'
            : undefined,
    };
    counted.set(nc, c);
  }
  return c;
}

function add(counts: Map<string, RevisionCount>, c: CountedAs, by: 1 | -1): void {
  const e = counts.get(c.key) ?? { total: 0, ready: 0, ongoing: 0 };
  e.total += by;
  if (c.progress !== undefined) e[c.progress] += by;
  if (e.total === 0) counts.delete(c.key);
  else counts.set(c.key, e);
}

/** Per revision (countKey), the nodes with a Node and a NodeConfig on it. */
export function revisionCounts(
  ncByName: ReadonlyMap<string, NodeConfig>,
  nodeByName: ReadonlyMap<string, NodeInfo>,
): Map<string, RevisionCount> {
  const counts = new Map<string, RevisionCount>();
  for (const [name, nc] of ncByName) if (nodeByName.has(name)) add(counts, countedAs(nc), 1);
  return counts;
}

/**
 * revisionCounts kept between passes: each node's part is taken out and put in again when it
 * changed. With them, the revision hashes the NodeConfigs' specs reference (history.ts keeps those
 * revisions), each with the number of NodeConfigs that reference it.
 */
export class KeptRevisionCounts {
  readonly counts = new Map<string, RevisionCount>();
  readonly referenced = new Map<string, number>();
  private readonly parts = new Map<string, CountedAs>();
  private readonly references = new Map<string, string>();

  update(
    changed: Iterable<string>,
    fleet: { ncByName: ReadonlyMap<string, NodeConfig>; nodeByName: ReadonlyMap<string, NodeInfo> },
  ): void {
    for (const name of changed) {
      this.reference(name, fleet.ncByName.get(name));
      const before = this.parts.get(name);
      if (before) add(this.counts, before, -1);
      const nc = fleet.ncByName.get(name);
      if (nc && fleet.nodeByName.has(name)) {
        const now = countedAs(nc);
        add(this.counts, now, 1);
        this.parts.set(name, now);
      } else this.parts.delete(name);
    }
  }

  /** The node's NodeConfig now references its spec's revision (none: the NodeConfig is gone). */
  private reference(name: string, nc: NodeConfig | undefined): void {
    const before = this.references.get(name);
    const now = nc?.spec.revision;
    if (before === now) return;
    if (before !== undefined) {
      const n = (this.referenced.get(before) ?? 0) - 1;
      if (n > 0) this.referenced.set(before, n);
      else this.referenced.delete(before);
    }
    if (now === undefined) this.references.delete(name);
    else {
      this.references.set(name, now);
      this.referenced.set(now, (this.referenced.get(now) ?? 0) + 1);
    }
  }

  /** Differences of the kept referenced hashes from those counted afresh over `nodeConfigs` (tests). */
  referencedDiff(nodeConfigs: readonly NodeConfig[]): string[] {
    const fresh = new Map<string, number>();
    for (const nc of nodeConfigs) fresh.set(nc.spec.revision, (fresh.get(nc.spec.revision) ?? 0) + 1);
    const hashes = new Set([...fresh.keys(), ...this.referenced.keys()]);
    return [...hashes]
      .filter((h) => fresh.get(h) !== this.referenced.get(h))
      .map((h) => `referenced ${h}: kept ${this.referenced.get(h)}, counted ${fresh.get(h)}`);
  }
}
