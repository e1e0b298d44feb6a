/**
 * The Nodes and NodeConfigs of the fleet joined by name, and what this configurator observed of each
 * (observe.ts), kept between passes by the incremental planner (incremental.ts). Informer objects are
 * replaced on change, never mutated: a node whose Node and NodeConfig are the objects of the last
 * pass is unchanged, so a pass looks at the changed ones only. The result equals `joinByName` and
 * `observe` of the same lists (test/sim/incremental.test.ts compares them on every pass).
 */
import type { NodeConfig } from '@nodenet/api';
import { writtenForAnotherNode } from './facts.js';
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
    const newNodes = this.unique ? replacedInPlace(this.nodes, nodes, (n) => n.name) : undefined;
    const newNodeConfigs =
      newNodes && replacedInPlace(this.nodeConfigs, nodeConfigs, (nc) => nc.metadata.name);
    if (newNodes && newNodeConfigs && !this.pairsAnotherNode(newNodes, newNodeConfigs)) {
      // The same names in the same places: the replaced objects go into the maps where they were.
      for (const n of newNodes) {
        this.nodeByName.set(n.name, n);
        changed.add(n.name);
      }
      for (const nc of newNodeConfigs) {
        this.ncByName.set(nc.metadata.name, nc);
        changed.add(nc.metadata.name);
      }
    } else this.rejoin(nodes, nodeConfigs, changed);
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

  /**
   * A replaced Node or NodeConfig that pairs a Node with a NodeConfig written for another Node of its
   * name (a re-created Node: joinByName leaves it out), so the join is done afresh.
   */
  private pairsAnotherNode(nodes: readonly NodeInfo[], nodeConfigs: readonly NodeConfig[]): boolean {
    if (nodes.some((n) => writtenForAnotherNode(n, this.ncByName.get(n.name)))) return true;
    const newNc = new Map(nodeConfigs.map((nc) => [nc.metadata.name, nc]));
    return (
      nodes.some((n) => writtenForAnotherNode(n, newNc.get(n.name))) ||
      nodeConfigs.some((nc) => writtenForAnotherNode(this.nodeByName.get(nc.metadata.name), nc))
    );
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
 * The objects of `now` that replaced one of the same name in the same place of `before` (one walk
 * of pointer compares); undefined when `now` does not hold the names of `before` in the same places
 * (the caller then joins afresh).
 */
function replacedInPlace<T>(
  before: readonly T[],
  now: readonly T[],
  nameOf: (x: T) => string,
): T[] | undefined {
  if (before.length !== now.length) return undefined;
  const replaced: T[] = [];
  for (let i = 0; i < now.length; i++) {
    const a = before[i] as T;
    const b = now[i] as T;
    if (a === b) continue;
    if (nameOf(a) !== nameOf(b)) return undefined;
    replaced.push(b);
  }
  return replaced;
}
