/**
 * What this configurator observed, and when, on its own monotonic clock (invariant 9). Timestamps
 * written by other machines (the agent's `lastUpdate`, the kubelet's `lastTransitionTime`, another
 * configurator's `assigned-at`) are shown to people and never compared with this clock: a deadline
 * runs from the first time this process saw the fact it is about. A new leader starts with no
 * observations, so its timers start afresh: it may wait longer than its predecessor, never fail
 * earlier.
 */
import { ASSIGNED_AT_ANNOTATION, SPEC_HASH_ANNOTATION, canonicalEqual, type NodeConfig } from '@nodenet/api';
import { writtenForAnotherNode } from './facts.js';
import type { NodeInfo } from './node-info.js';

/** Per node: the facts the deadlines depend on and when each was first seen (monotonic ms). */
export interface NodeObservation {
  /** The assignment the NodeConfig carries (revision, assigned-at, generation, spec hash). */
  assignKey?: string;
  assignSince: number;
  /**
   * The agent's status as a whole, compared by content (canonicalEqual: no text made per report):
   * any change (a heartbeat too) is progress.
   */
  status?: NonNullable<NodeConfig['status']>;
  statusSince: number;
  /** The agent's liveness Lease renewal marker (NodeInfo.renewal), and since when this one was seen. */
  renewal?: string | undefined;
  renewalSince: number;
  /** Ready, NotReady, or gone (no Node object, or being deleted). */
  readiness: 'ready' | 'notReady' | 'gone';
  /** Since when ready, or since when not ready (NotReady then gone is one stretch: deleting a NotReady Node never restarts its timer). */
  readinessSince: number;
  /**
   * Not-ready time of the stretches that ended since the assignment was first seen (each from the
   * later of its start and the assignment): a node that flaps accumulates it (classify.ts), so
   * stretches each shorter than --not-ready-timeout still reach it. 0 for a new assignment.
   */
  downMs: number;
  /**
   * The longest Ready stretch that ended since the assignment was first seen, counted from the first
   * sight of its `provisioned` report: one as long as the soak means the node finished before it
   * went NotReady (a later outage is not the change's). 0 for a new assignment.
   */
  readyRunMs: number;
}

export type Observations = ReadonlyMap<string, NodeObservation>;

const assignKeys = new WeakMap<NodeConfig, string>();
function assignKeyOf(nc: NodeConfig): string {
  let k = assignKeys.get(nc);
  if (k === undefined) {
    const a = nc.metadata.annotations ?? {};
    k = `${nc.spec.revision}|${a[ASSIGNED_AT_ANNOTATION] ?? ''}|${nc.metadata.generation ?? ''}|${a[SPEC_HASH_ANNOTATION] ?? ''}`;
    assignKeys.set(nc, k);
  }
  return k;
}

/** Whether two statuses say the same (both absent, or the same content). */
const sameStatus = (a: NodeObservation['status'], b: NodeObservation['status']): boolean =>
  a === b || (a !== undefined && b !== undefined && canonicalEqual(a, b));

/**
 * The observations after looking at the current objects at `mono`: a fact that changed (or is seen
 * for the first time) is stamped `mono`, an unchanged one keeps its stamp. Nodes with neither a Node
 * nor a NodeConfig are forgotten. Pure: returns a new map, `prev` is not modified.
 */
export function observe(
  prev: Observations,
  nodes: readonly NodeInfo[],
  nodeConfigs: readonly NodeConfig[],
  mono: number,
): Map<string, NodeObservation> {
  const out = new Map<string, NodeObservation>();
  const { nodeByName, ncByName, names } = joinByName(nodes, nodeConfigs);
  for (const name of names)
    out.set(name, observeNode(prev.get(name), nodeByName.get(name), ncByName.get(name), mono));
  return out;
}

/**
 * One node's observation at `mono`, from its last one (undefined: first seen) and its Node and
 * NodeConfig now: the last one itself (the same object) when nothing it records changed.
 */
export function observeNode(
  old: NodeObservation | undefined,
  node: NodeInfo | undefined,
  nc: NodeConfig | undefined,
  mono: number,
): NodeObservation {
  const readiness = !node || node.deleting ? 'gone' : node.ready ? 'ready' : 'notReady';
  const assignKey = nc ? assignKeyOf(nc) : undefined;
  const status = nc?.status;
  const assignSame = old !== undefined && old.assignKey === assignKey;
  const statusSame = old !== undefined && sameStatus(old.status, status);
  const renewal = node?.renewal;
  const renewalSame = old !== undefined && old.renewal === renewal;
  if (old && assignSame && statusSame && renewalSame && old.readiness === readiness) return old; // nothing changed: keep the stamps (and the object)
  // Every field present, in one order (an absent one is undefined): one hidden class, and no
  // object spread, which costs microseconds per call on objects of varying shapes.
  const sameReadiness = sameStretch(old?.readiness, readiness);
  return {
    assignKey,
    assignSince: assignSame ? old.assignSince : mono,
    status,
    statusSince: statusSame ? old.statusSince : mono,
    renewal,
    renewalSince: renewalSame ? old.renewalSince : mono,
    readiness,
    readinessSince: sameReadiness ? (old as NodeObservation).readinessSince : mono,
    downMs: assignSame ? old.downMs + (sameReadiness ? 0 : endedDownMs(old, mono)) : 0,
    readyRunMs: assignSame ? Math.max(old.readyRunMs, sameReadiness ? 0 : endedReadyRunMs(old, mono)) : 0,
  };
}

/** The not-ready stretch of `old` ending at `mono` (0: it was a Ready one), from the assignment on. */
const endedDownMs = (old: NodeObservation, mono: number): number =>
  old.readiness === 'ready' ? 0 : Math.max(0, mono - Math.max(old.readinessSince, old.assignSince));

/** The Ready stretch of `old` ending at `mono` (0: a not-ready one), from the first sight of `provisioned` on. */
function endedReadyRunMs(old: NodeObservation, mono: number): number {
  const provisioned =
    old.status?.configStatus === 'provisioned' && old.statusSince >= old.assignSince
      ? old.statusSince
      : undefined;
  if (old.readiness !== 'ready' || provisioned === undefined) return 0;
  return Math.max(0, mono - Math.max(old.readinessSince, provisioned));
}

/**
 * The Nodes and NodeConfigs by name, and every name once: the Nodes' first, in input order. A Node
 * re-created under the name of a NodeConfig written for its predecessor (facts.ts
 * writtenForAnotherNode) is left out: that name is the old node's, gone, until its NodeConfig is
 * collected (plan.ts); the new Node then joins with a NodeConfig of its own (issue 35: the old
 * status made a silent new agent look answered).
 */
export function joinByName(
  nodes: readonly NodeInfo[],
  nodeConfigs: readonly NodeConfig[],
): { nodeByName: Map<string, NodeInfo>; ncByName: Map<string, NodeConfig>; names: string[] } {
  const ncByName = new Map<string, NodeConfig>();
  for (const nc of nodeConfigs) ncByName.set(nc.metadata.name, nc);
  const nodeByName = new Map<string, NodeInfo>();
  for (const n of nodes) if (!writtenForAnotherNode(n, ncByName.get(n.name))) nodeByName.set(n.name, n);
  const names = [...nodeByName.keys()];
  for (const name of ncByName.keys()) if (!nodeByName.has(name)) names.push(name);
  return { nodeByName, ncByName, names };
}

/** Whether two readings are one stretch of readiness: both ready, or both not ready (NotReady or gone). */
export const sameStretch = (
  a: NodeObservation['readiness'] | undefined,
  b: NodeObservation['readiness'],
): boolean => a !== undefined && (a === 'ready') === (b === 'ready');
