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
import { moveKind } from './identity.js';
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
  /** State of each target node after the assignments. */
  states: Map<string, NodeState>;
  inProgress: number;
  /** Forward moves are held because this node went NotReady after taking a revision forward. */
  heldBy?: string;
  /** The wave barrier: the wave forward moves are limited to, and the nodes it waits for. */
  wave?: { value: string; waitingFor: string[] };
}

const isDone = (v: Verdict): boolean =>
  (v.onDesired === true && v.state === 'upToDate') || v.state === 'failed' || v.state === 'unavailable';

export function fillSlots(input: SlotInput): SlotResult {
  const { verdicts, desired, limit, invalidHashes } = input;
  const paused = desired.spec.paused === true || input.fleetPaused === true;
  const states = new Map<string, NodeState>();
  const assignments: AssignAction[] = [];
  const due = (v: Verdict): boolean => v.notBefore === undefined || v.notBefore <= input.mono;
  let inProgress = 0;
  let soaking = 0;
  /** In flight and not busy elsewhere (on the desired revision, or finishing a catch-up or a rollback). */
  let settled = 0;
  for (const v of verdicts) {
    states.set(v.name, v.state as NodeState);
    // Interrupted, waiting out its backoff: keeps its slot for the re-assignment.
    if (v.state === 'outdated' && v.keepMove === 'forward' && v.notBefore !== undefined && !due(v))
      inProgress++;
    if (v.hostOnDesired || !v.state || !SLOT_STATES.has(v.state)) continue;
    inProgress++;
    if (v.state === 'soaking') soaking++;
    if (!v.busyElsewhere) settled++;
  }
  const targetOf = (v: Verdict): NetworkConfigRevision => v.target ?? desired;
  const moveOf = (v: Verdict): MoveKind =>
    v.keepMove ??
    moveKind(
      v.assigned,
      targetOf(v),
      undefined,
      v.assigned !== undefined && input.invalidNames.has(v.assigned.metadata.name),
    );
  const isRollback = (v: Verdict): boolean => moveOf(v) === 'rollback';
  /** The host runs an invalid revision (it took it, or is taking it): most urgent. */
  const runsInvalid = (v: Verdict): boolean =>
    v.nc?.status?.lastAppliedRevision !== undefined && invalidHashes.has(v.nc.status.lastAppliedRevision);
  const wave = waveBarrier(verdicts, input.wave);
  const heldBy = verdicts.find((v) => v.holds)?.name;
  const waveOf = (v: Verdict): string => (input.wave ? (v.node?.labels[input.wave.label] ?? '') : '');
  // Paused: the fleet, the desired revision, or the revision this node is moved to.
  const may = (v: Verdict): boolean =>
    isRollback(v) ||
    (!paused &&
      targetOf(v).spec.paused !== true &&
      heldBy === undefined &&
      (!wave || waveOf(v) === wave.value));
  const assign = (v: Verdict, reason: string, kind?: MoveKind): void => {
    const from = v.nc?.spec.revision;
    const move = kind ?? moveOf(v);
    const to = targetOf(v);
    assignments.push({
      type: 'assign',
      node: v.name,
      revision: to.metadata.name,
      hash: to.spec.hash,
      number: to.spec.number,
      ...(from !== undefined ? { from } : {}),
      rollback: move === 'rollback',
      move,
      ...(v.attempt !== undefined ? { attempt: v.attempt } : {}),
      reason,
    });
    states.set(v.name, 'pending');
  };

  // The host config stays as it is (unchanged.ts): no slot, and neither the NotReady hold nor a wave
  // barrier applies (nothing reaches the host); a pause still holds a forward one.
  for (const v of verdicts) {
    if (!v.unchanged || !(isRollback(v) || (!paused && targetOf(v).spec.paused !== true))) continue;
    assign(v, `host config unchanged by revision ${targetOf(v).spec.number}; no slot`, 'unchanged');
  }

  // Busy with a superseded revision: a forward move of the desired one, under its own limit.
  for (const v of verdicts) {
    if (!v.busyElsewhere || !may(v)) continue;
    // Only while the others in flight leave room: a node that resumed a finished assignment by itself
    // (its agent restarted) had no slot.
    if (!isRollback(v) && settled >= limit) continue;
    if (!SLOT_STATES.has(v.state as NodeState)) inProgress++;
    settled++;
    assign(
      v,
      `node was busy with ${shortHash(v.nc?.spec.revision ?? '')}, which is no longer desired; keeps its slot`,
    );
  }
  const waiting = verdicts.filter(
    (v) =>
      (v.state === 'outdated' || (v.state === 'failed' && v.reassign)) &&
      !v.busyElsewhere &&
      !v.unchanged &&
      due(v) &&
      may(v),
  );
  for (const v of waiting.filter((x) => x.hostOnDesired && isRollback(x)))
    assign(v, `rollback from ${shortHash(v.nc?.spec.revision ?? '')}; host already restored it, no slot`);
  const rollbacks = waiting.filter((v) => isRollback(v) && !v.hostOnDesired);
  const ordered = [
    ...rollbacks.filter(runsInvalid),
    ...rollbacks.filter((v) => !runsInvalid(v)),
    // A re-assignment (after an interruption) first: the slot it kept is its own.
    ...waiting.filter((v) => !isRollback(v) && v.reassign !== undefined),
    ...waiting.filter((v) => !isRollback(v) && v.reassign === undefined),
  ];
  // Soaking nodes hold their slots against forward moves only.
  let freeForRollback = Math.max(0, limit - (inProgress - soaking));
  let free = Math.max(0, limit - inProgress);
  for (const v of ordered) {
    const rollback = isRollback(v);
    if (rollback ? freeForRollback === 0 : free === 0) {
      if (rollback) continue;
      break;
    }
    freeForRollback = Math.max(0, freeForRollback - 1);
    free = Math.max(0, free - 1);
    inProgress++;
    const why = v.reassign
      ? v.reassign
      : !v.nc
        ? 'new node'
        : rollback
          ? `rollback from revision ${v.assigned?.spec.number ?? shortHash(v.nc.spec.revision)}`
          : v.assigned !== undefined &&
              (desired.spec.retryOf === v.assigned.metadata.name ||
                (v.assigned.status?.isInvalid === true && v.assigned.spec.hash === desired.spec.hash))
            ? `retry of a configuration that failed under revision ${v.assigned.spec.number}`
            : v.assigned?.spec.number === desired.spec.number
              ? 'node labels changed its spec'
              : `outdated (${v.assigned ? `revision ${v.assigned.spec.number}` : shortHash(v.nc.spec.revision)})`;
    assign(v, `${why}; slot ${inProgress}/${limit}`);
  }
  return {
    assignments,
    states,
    inProgress,
    ...(heldBy !== undefined ? { heldBy } : {}),
    ...(wave ? { wave } : {}),
  };
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
