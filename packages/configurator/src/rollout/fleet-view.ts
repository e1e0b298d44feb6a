/**
 * The Nodes and NodeConfigs of the fleet joined by name, and what this configurator observed of each
 * (observe.ts), kept between passes by the incremental planner (incremental.ts). Informer objects are
 * replaced on change, never mutated: a node whose Node and NodeConfig are the objects of the last
 * pass is unchanged, so a pass looks at the changed ones only. The result equals `joinByName` and
 * `observe` of the same lists (test/sim/incremental.test.ts compares them on every pass).
 */
import type { NodeConfig } from '@nodenet/api';
import { joinByName, observeNode, type NodeObservation } from './observe.js';
import type { NodeInfo } from './types.js';

export class FleetView {
  nodeByName = new Map<string, NodeInfo>();
  ncByName = new Map<string, NodeConfig>();
  /** Every node name (a Node, a NodeConfig, or both), as joinByName orders them; a new array only when that changes. */
  names: readonly string[] = [];
  /** Per node, what was observed and when (observe.ts): updated for the changed nodes only. */
  readonly observations = new Map<string, NodeObservation>();
  private nodes: readonly NodeInfo[] = [];
  private nodeConfigs: readonly NodeConfig[] = [];
  /** The last lists held each name once: an object replaced in its place leaves the join as it was. */
  private unique = false;
  /** Per NodeConfig name, its index in the list (set when joined afresh: replacing in place keeps it). */
  private ncPosition = new Map<string, number>();

  /** Whether the lists of the last update held each name once (then the maps hold every object of them). */
  get eachNameOnce(): boolean {
    return this.unique;
  }

  /** The index of the NodeConfig named `name` in the last list (-1: none). */
  positionOf(name: string): number {
    return this.ncPosition.get(name) ?? -1;
  }

  /** Takes the lists of this pass at `mono`; returns the names whose Node or NodeConfig changed, came or went. */
  update(nodes: readonly NodeInfo[], nodeConfigs: readonly NodeConfig[], mono: number): Set<string> {
    const changed = new Set<string>();
    const inPlace =
      this.unique &&
      replacedInPlace(this.nodes, nodes, (n) => n.name, changed) &&
      replacedInPlace(this.nodeConfigs, nodeConfigs, (nc) => nc.metadata.name, changed);
    if (inPlace) this.replaceInPlace(nodes, nodeConfigs);
    else this.rejoin(nodes, nodeConfigs, changed);
    this.nodes = nodes;
    this.nodeConfigs = nodeConfigs;
    for (const name of changed) {
      const node = this.nodeByName.get(name);
      const nc = this.ncByName.get(name);
      if (!node && !nc) this.observations.delete(name);
      else this.observations.set(name, observeNode(this.observations.get(name), node, nc, mono));
    }
    return changed;
  }

  /** The same names in the same places: the replaced objects go into the maps where they were. */
  private replaceInPlace(nodes: readonly NodeInfo[], nodeConfigs: readonly NodeConfig[]): void {
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i] as NodeInfo;
      if (this.nodes[i] !== n) this.nodeByName.set(n.name, n);
    }
    for (let i = 0; i < nodeConfigs.length; i++) {
      const nc = nodeConfigs[i] as NodeConfig;
      if (this.nodeConfigs[i] !== nc) this.ncByName.set(nc.metadata.name, nc);
    }
  }

  /** Names came, went or moved: joined afresh, and every name whose objects differ is changed. */
  private rejoin(nodes: readonly NodeInfo[], nodeConfigs: readonly NodeConfig[], changed: Set<string>): void {
    const j = joinByName(nodes, nodeConfigs);
    for (const name of this.names) if (!j.nodeByName.has(name) && !j.ncByName.has(name)) changed.add(name);
    for (const name of j.names)
      if (
        j.nodeByName.get(name) !== this.nodeByName.get(name) ||
        j.ncByName.get(name) !== this.ncByName.get(name)
      )
        changed.add(name);
    this.nodeByName = j.nodeByName;
    this.ncByName = j.ncByName;
    this.names = j.names;
    this.unique = j.nodeByName.size === nodes.length && j.ncByName.size === nodeConfigs.length;
    this.ncPosition = new Map(nodeConfigs.map((nc, i) => [nc.metadata.name, i]));
  }
}

/**
 * Whether `now` holds the names of `before` in the same places; the names whose object was
 * replaced are added to `changed` (some of them when not: the caller then joins afresh, and finds them changed too).
 */
function replacedInPlace<T>(
  before: readonly T[],
  now: readonly T[],
  nameOf: (x: T) => string,
  changed: Set<string>,
): boolean {
  if (before.length !== now.length) return false;
  for (let i = 0; i < now.length; i++) {
    const a = before[i] as T;
    const b = now[i] as T;
    if (a === b) continue;
    const name = nameOf(b);
    if (nameOf(a) !== name) return false;
    changed.add(name);
  }
  return true;
}
