/**
 * Slots: which nodes move now (docs/rollout.md "The model"). One unavailability budget across all
 * revisions: every node in flight, on the desired revision or a superseded one, holds one of the
 * `limit` slots; a new forward move needs a free one. A node busy with a superseded revision is
 * handed the desired one only while the desired revision's own nodes in flight are below the
 * limit. While a node that took a revision forward is NotReady, gone or misconfigured before
 * finishing it, no forward move of any revision happens (the hold).
 *
 * Rollbacks (to an older revision: identity.ts) are never held: not by pause, wave or hold, and
 * not by the soak (soaking nodes hold no slot against a rollback); nodes whose host runs an invalid
 * revision go first; a node that already restored the target on its own needs no slot.
 */
import { shortHash, type MoveKind, type NetworkConfigRevision } from '@nodenet/api';
import type { Verdict } from './classify.js';
import { moveKind, ranBeforeMove } from './identity.js';
import { SLOT_STATES, type AssignAction, type NodeState } from './types.js';

export interface SlotInput {
  /** Target nodes' verdicts in start order. */
  verdicts: readonly Verdict[];
  desired: NetworkConfigRevision;
  limit: number;
  /** Hashes of revisions marked invalid (only to put nodes whose host runs one first). */
  invalidHashes: ReadonlySet<string>;
  /** Names of revisions marked invalid (or aborted): leaving one for an older one is a rollback. */
  invalidNames: ReadonlySet<string>;
  /** The fleet-wide pause (RolloutPolicy `default`): holds whatever revision is desired. */
  fleetPaused?: boolean;
  /** Waves are barriers: forward moves only in the first wave not done (with the wave label). */
  wave?: { label: string; barrier: boolean };
  mono: number;
}

export interface SlotResult {
  assignments: AssignAction[];
  /**
   * The verdicts of the target nodes assigned in this pass: pending now; every other target node
   * is in its verdict's state (stateAfter). A few, not a state per node: a pass moves few nodes.
   */
  moved: ReadonlySet<Verdict>;
  inProgress: number;
  /** Forward moves are held because this node went NotReady after taking a revision forward. */
  heldBy?: string;
  /** The wave barrier: the wave forward moves are limited to, and the nodes it waits for. */
  wave?: { value: string; waitingFor: string[] };
}

const isDone = (v: Verdict): boolean =>
  (v.onDesired === true && v.state === 'upToDate') || v.state === 'failed' || v.state === 'unavailable';

export function fillSlots(input: SlotInput): SlotResult {
  const { limit } = input;
  const count = survey(input.verdicts, input.mono);
  const m = new Moves(input, count.holder);
  // The host config stays as it is (unchanged.ts): no slot, and neither the NotReady hold nor a wave
  // barrier applies (nothing reaches the host); a pause still holds a forward one.
  for (const v of count.unchanged) {
    if (!(m.isRollback(v) || m.unpaused(v))) continue;
    m.assign(v, `host config unchanged by revision ${m.targetOf(v).spec.number}; no slot`, 'unchanged');
  }
  // Busy with a superseded revision: a forward move of the desired one, under its own limit.
  for (const v of count.busy) {
    if (!m.may(v)) continue;
    // Only while the others in flight leave room: a node that resumed a finished assignment by itself
    // (its agent restarted) had no slot.
    if (!m.isRollback(v) && count.settled >= limit) continue;
    if (!SLOT_STATES.has(v.state as NodeState)) count.inProgress++;
    count.settled++;
    m.assign(
      v,
      `node was busy with ${shortHash(v.nc?.spec.revision ?? '')}, which is no longer desired; keeps its slot`,
    );
  }
  const inProgress = fillFreeSlots(m, count, count.waiting);
  return {
    assignments: m.assignments,
    moved: m.moved,
    inProgress,
    ...(m.heldBy !== undefined ? { heldBy: m.heldBy } : {}),
    ...(m.wave ? { wave: m.wave } : {}),
  };
}

interface Held {
  /** Nodes holding a slot. */
  inProgress: number;
  /** Of those, soaking: they hold it against forward moves only. */
  soaking: number;
  /** In flight and not busy elsewhere (on the desired revision, or finishing a catch-up or a rollback). */
  settled: number;
}

/** A target node's state after this pass's assignments. */
export const stateAfter = (v: Verdict, moved: ReadonlySet<Verdict>): NodeState =>
  moved.size > 0 && moved.has(v) ? 'pending' : (v.state as NodeState);

/** What the steps of a pass look at, found in one walk over the targets (in start order). */
interface Survey extends Held {
  /** The first node that holds every forward move (Verdict.holds). */
  holder: string | undefined;
  unchanged: Verdict[];
  busy: Verdict[];
  /** Waiting for a move: outdated, or failed and re-assigned (not busy elsewhere, not unchanged). */
  waiting: Verdict[];
}

/** The slots held before this pass's moves, and the nodes each step looks at. */
function survey(verdicts: readonly Verdict[], mono: number): Survey {
  const h: Survey = {
    inProgress: 0,
    soaking: 0,
    settled: 0,
    holder: undefined,
    unchanged: [],
    busy: [],
    waiting: [],
  };
  for (const v of verdicts) {
    if (v.holds && h.holder === undefined) h.holder = v.name;
    if (v.unchanged) h.unchanged.push(v);
    if (v.busyElsewhere) h.busy.push(v);
    else if (!v.unchanged && (v.state === 'outdated' || (v.state === 'failed' && v.reassign)))
      h.waiting.push(v);
    // Interrupted, waiting out its backoff: keeps its slot for the re-assignment.
    if (
      v.state === 'outdated' &&
      (v.keepMove === 'forward' || v.keepMove === 'catch-up') &&
      v.notBefore !== undefined &&
      !due(v, mono)
    )
      h.inProgress++;
    if (v.hostOnDesired || !v.state || !SLOT_STATES.has(v.state)) continue;
    h.inProgress++;
    if (v.state === 'soaking') h.soaking++;
    if (!v.busyElsewhere) h.settled++;
  }
  return h;
}

const due = (v: Verdict, mono: number): boolean => v.notBefore === undefined || v.notBefore <= mono;

/** The moves of one pass: what each node is moved to and how, whether it may move, and the assignments. */
class Moves {
  readonly assignments: AssignAction[] = [];
  /** The nodes assigned (pending now). */
  readonly moved = new Set<Verdict>();
  /** Forward moves are held because this node went NotReady after taking a revision forward. */
  readonly heldBy: string | undefined;
  readonly wave: { value: string; waitingFor: string[] } | undefined;
  private readonly paused: boolean;

  constructor(
    readonly input: SlotInput,
    heldBy: string | undefined,
  ) {
    this.paused = input.desired.spec.paused === true || input.fleetPaused === true;
    this.wave = waveBarrier(input.verdicts, input.wave);
    this.heldBy = heldBy;
  }

  targetOf(v: Verdict): NetworkConfigRevision {
    return v.target ?? this.input.desired;
  }

  moveOf(v: Verdict): MoveKind {
    return (
      v.keepMove ??
      moveKind(
        v.assigned,
        this.targetOf(v),
        undefined,
        v.assigned !== undefined && this.input.invalidNames.has(v.assigned.metadata.name),
      )
    );
  }

  isRollback(v: Verdict): boolean {
    return this.moveOf(v) === 'rollback';
  }

  /** Neither the fleet, the desired revision, nor the revision this node is moved to is paused. */
  unpaused(v: Verdict): boolean {
    return !this.paused && this.targetOf(v).spec.paused !== true;
  }

  /** A rollback always; a forward move when mayMoveForward. */
  may(v: Verdict): boolean {
    return this.isRollback(v) || this.mayMoveForward(v);
  }

  /** A forward move: unpaused, not held, and in the wave of the barrier. */
  mayMoveForward(v: Verdict): boolean {
    const wave = this.input.wave;
    return (
      this.unpaused(v) &&
      this.heldBy === undefined &&
      (!this.wave || (wave ? (v.node?.labels[wave.label] ?? '') : '') === this.wave.value)
    );
  }

  /** The host runs an invalid revision (it took it, or is taking it): most urgent. */
  runsInvalid(v: Verdict): boolean {
    const applied = v.nc?.status?.lastAppliedRevision;
    return applied !== undefined && this.input.invalidHashes.has(applied);
  }

  assign(v: Verdict, reason: string, kind?: MoveKind): void {
    const from = v.nc?.spec.revision;
    const move = kind ?? this.moveOf(v);
    const to = this.targetOf(v);
    this.assignments.push({
      type: 'assign',
      node: v.name,
      revision: to.metadata.name,
      hash: to.spec.hash,
      number: to.spec.number,
      ...(from !== undefined ? { from } : {}),
      rollback: move === 'rollback',
      move,
      ...(v.attempt !== undefined ? { attempt: v.attempt } : {}),
      ...ranBeforeOf(v, to),
      reason,
    });
    this.moved.add(v);
  }
}

const ranBeforeOf = (v: Verdict, to: NetworkConfigRevision): { ranBefore?: number } => {
  const n = ranBeforeMove(v.nc, v.assigned, to);
  return n !== undefined ? { ranBefore: n } : {};
};

/**
 * The nodes waiting for a move take the free slots: rollbacks first (those whose host runs an
 * invalid revision before the others), then re-assignments, then the rest in start order. Returns
 * the slots in use after.
 */
function fillFreeSlots(m: Moves, held: Held, waiting: readonly Verdict[]): number {
  const { limit } = m.input;
  const queues = waitingQueues(m, waiting);
  let inProgress = held.inProgress;
  // Soaking nodes hold their slots against forward moves only.
  let freeForRollback = Math.max(0, limit - (inProgress - held.soaking));
  let free = Math.max(0, limit - inProgress);
  for (const { rollback, nodes } of queues) {
    for (const v of nodes) {
      if (rollback ? freeForRollback === 0 : free === 0) {
        if (rollback) continue;
        return inProgress;
      }
      freeForRollback = Math.max(0, freeForRollback - 1);
      free = Math.max(0, free - 1);
      inProgress++;
      m.assign(v, `${whyMoved(v, m.input.desired, rollback)}; slot ${inProgress}/${limit}`);
    }
  }
  return inProgress;
}

/**
 * The nodes waiting for a move that may move now, in the order they take free slots: rollbacks
 * whose host runs an invalid revision, the other rollbacks, re-assignments (after an interruption:
 * the slot it kept is its own), the rest in start order. A rollback to what the host already runs
 * needs no slot: assigned here.
 */
function waitingQueues(
  m: Moves,
  waiting: readonly Verdict[],
): Array<{ rollback: boolean; nodes: Verdict[] }> {
  const offInvalid: Verdict[] = [];
  const rollbacks: Verdict[] = [];
  const reassigned: Verdict[] = [];
  const rest: Verdict[] = [];
  for (const v of waiting) {
    if (!due(v, m.input.mono)) continue;
    const rollback = m.isRollback(v);
    if (!rollback && !m.mayMoveForward(v)) continue;
    if (rollback && v.hostOnDesired)
      m.assign(v, `rollback from ${shortHash(v.nc?.spec.revision ?? '')}; host already restored it, no slot`);
    else if (rollback) (m.runsInvalid(v) ? offInvalid : rollbacks).push(v);
    else (v.reassign !== undefined ? reassigned : rest).push(v);
  }
  return [
    { rollback: true, nodes: offInvalid },
    { rollback: true, nodes: rollbacks },
    { rollback: false, nodes: reassigned },
    { rollback: false, nodes: rest },
  ];
}

/** Why a node takes a slot, for the assignment's reason. */
function whyMoved(v: Verdict, desired: NetworkConfigRevision, rollback: boolean): string {
  if (v.reassign) return v.reassign;
  if (!v.nc) return 'new node';
  if (rollback) return `rollback from revision ${v.assigned?.spec.number ?? shortHash(v.nc.spec.revision)}`;
  if (
    v.assigned !== undefined &&
    (desired.spec.retryOf === v.assigned.metadata.name ||
      (v.assigned.status?.isInvalid === true && v.assigned.spec.hash === desired.spec.hash))
  )
    return `retry of a configuration that failed under revision ${v.assigned.spec.number}`;
  if (v.assigned?.spec.number === desired.spec.number) return 'node labels changed its spec';
  return `outdated (${v.assigned ? `revision ${v.assigned.spec.number}` : shortHash(v.nc.spec.revision)})`;
}

/** The first wave (in start order) with a node not done, when waves are barriers. */
function waveBarrier(
  verdicts: readonly Verdict[],
  wave: SlotInput['wave'],
): { value: string; waitingFor: string[] } | undefined {
  if (!wave?.barrier) return undefined;
  const first = verdicts.find((v) => !isDone(v));
  if (!first) return undefined;
  const value = first.node?.labels[wave.label] ?? '';
  const waitingFor = verdicts
    .filter((v) => (v.node?.labels[wave.label] ?? '') === value && !isDone(v))
    .map((v) => v.name);
  return { value, waitingFor };
}
