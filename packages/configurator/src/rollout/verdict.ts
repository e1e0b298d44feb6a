/**
 * A node's verdict (classify.ts): what the slot step, the revision status and the failure record
 * read of one node, and the reading of the node that the verdict is decided from.
 */
import type { FailedNode, MoveKind, NetworkConfigRevision, NodeConfig } from '@nodenet/api';
import { factsOf } from './facts.js';
import type { Policy } from '../policy/policy.js';
import { isCompleted, type RevisionIndex } from './identity.js';
import type { NodeObservation } from './observe.js';
import type { Progress } from './progress.js';
import type { NodeInfo, NodeState } from './types.js';

export interface Verdict {
  name: string;
  node: NodeInfo | undefined;
  nc: NodeConfig | undefined;
  /** undefined: not a target (unselected or gone, and not in flight). */
  state: NodeState | undefined;
  /** The revision the node is assigned (its NodeConfig's, by number). */
  assigned?: NetworkConfigRevision;
  /** The revision it is moved to, when not the desired one (identity.ts targetFor: a fallback or a rollback retry). */
  target?: NetworkConfigRevision;
  /** Assigned the desired revision with the spec the node's labels give. */
  onDesired?: boolean;
  /** Took its assignment forward and is NotReady, gone or misconfigured before finishing it: holds every forward move. */
  holds?: boolean;
  /** In flight on a revision other than the desired one, its agent still working: re-assigned under the limit. */
  busyElsewhere?: boolean;
  /** Why it must be (re)assigned although it carries the desired spec; it needs a slot. */
  reassign?: string;
  /** A re-assignment waits until then (monotonic ms): the backoff after an interruption or a failed rollback. */
  notBefore?: number;
  /** The move a re-assignment keeps (a failed rollback is retried as a rollback). */
  keepMove?: MoveKind;
  /** The attempt number the re-assignment writes. */
  attempt?: number;
  failure?: FailedNode;
  /** The revision (name) the failure belongs to: the assigned one. */
  failedRevision?: string;
  /** Whether the failure counts against that revision (it took it forward). */
  counts?: boolean;
  /** The agent was not answering before this revision reached the node: why (listed, never counted). */
  unavailable?: string;
  /** When (monotonic ms) this verdict changes by itself: a timeout, a soak's end, a backoff's end. */
  deadline?: number;
  /** The host already runs the desired revision: moving it changes nothing on the host (no slot). */
  hostOnDesired?: boolean;
  /** Moving it to its target leaves its host config unchanged (unchanged.ts): it moves without a slot. */
  unchanged?: boolean;
  /** Its NodeConfig was moved without a slot (its move annotation says `unchanged`); undefined: not looked up. */
  movedUnchanged?: boolean;
}

export interface ClassifyContext {
  desired: NetworkConfigRevision;
  index: RevisionIndex;
  /** Names of invalid revisions: a node soaking on one is rolled back at once. */
  invalid: ReadonlySet<string>;
  policy: Policy;
  mono: number;
  /** Wall clock, only for the `at` of failures (shown, never compared). */
  now: number;
  /** The spec hash the node should carry for the desired revision (undefined: not compared). */
  expectedSpecHash?: string;
}

/** The node a verdict is about: its name, its Node and NodeConfig, and what was observed of it. */
export interface Subject {
  name: string;
  node: NodeInfo | undefined;
  nc: NodeConfig | undefined;
  observation: NodeObservation | undefined;
}

/** The reading of a node that the verdict functions share. */
export interface NodeReading {
  ctx: ClassifyContext;
  obs: NodeObservation;
  down: string | undefined;
  starting: string | undefined;
  selected: boolean;
  soakEnd: number | undefined;
  fail: (message: string, counts?: boolean) => Verdict;
  unavailable: (why: string) => Verdict;
}

export type Base = Pick<Verdict, 'name' | 'node' | 'nc' | 'assigned'>;
export type Facts = ReturnType<typeof factsOf>;

/** The host runs the desired revision already (a restore that worked; never a RestoreFailed report). */
export const hostRuns = (nc: NodeConfig, hash: string): boolean =>
  nc.status?.lastAppliedRevision === hash &&
  nc.status.configStatus !== 'provisioning' &&
  nc.status.failureCause !== 'RestoreFailed';

/**
 * The move took the change to the node and its failure counts (issue 35): forward onto a revision
 * that has not completed, or a catch-up onto one that has (a node that joined, was relabelled into
 * the selector or lost its NodeConfig after completion: a change that harms only such nodes would
 * otherwise reach every one of them uncounted). A forward move recorded before its revision
 * completed belongs to that revision's finished rollout.
 */
export const countedMove = (move: MoveKind, assigned: NetworkConfigRevision | undefined): boolean =>
  (move === 'forward' && !(assigned !== undefined && isCompleted(assigned))) || move === 'catch-up';

/** Took its assignment forward (or as a catch-up), not yet finished (working, waiting or soaking): in flight. */
export const inFlightUnselected = (b: Base, p: Progress, f: Facts, l: NodeReading): boolean =>
  countedMove(f.move, b.assigned) &&
  (p.kind === 'working' ||
    p.kind === 'waiting' ||
    (p.kind === 'provisioned' && l.soakEnd !== undefined && l.ctx.mono < l.soakEnd));

/**
 * The verdict with every field present, in one order: the planner's walks over every target per
 * pass (slots, revision status) read verdicts of one hidden class then, not of the dozen shapes
 * classify's object literals make (property reads that stay monomorphic, several times faster).
 * The same fields with the same values (an absent field reads undefined either way), and what the
 * revision status reads of the NodeConfig's facts (`movedUnchanged`: no lookup per target per pass).
 */
export const uniform = (v: Verdict): Verdict => {
  // Every key required: a field added to Verdict and not listed here fails to compile rather than
  // being dropped from every verdict the planner hands on.
  const all: { [K in keyof Required<Verdict>]: Verdict[K] } = {
    name: v.name,
    node: v.node,
    nc: v.nc,
    state: v.state,
    assigned: v.assigned,
    target: v.target,
    onDesired: v.onDesired,
    holds: v.holds,
    busyElsewhere: v.busyElsewhere,
    reassign: v.reassign,
    notBefore: v.notBefore,
    keepMove: v.keepMove,
    attempt: v.attempt,
    failure: v.failure,
    failedRevision: v.failedRevision,
    counts: v.counts,
    unavailable: v.unavailable,
    deadline: v.deadline,
    hostOnDesired: v.hostOnDesired,
    unchanged: v.unchanged,
    movedUnchanged: v.nc !== undefined && factsOf(v.nc).move === 'unchanged',
  };
  return all;
};
