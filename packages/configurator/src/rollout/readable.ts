/**
 * What `kubectl get ncr` and `kubectl wait` read off a revision (pure): its phase, the `Finished`
 * condition, and which revision carries the desired label. Computed from the status the planner
 * derived, so they can never disagree with the counts next to them.
 */
import {
  DESIRED_LABEL,
  type NetworkConfigRevision,
  type NetworkConfigRevisionStatus,
  type RevisionPhase,
  hasCondition,
  findCondition,
} from '@nodenet/api';
import { setConditions } from '@nodenet/api';
import type { Action } from './types.js';
import { WAITING_FOR_UNAVAILABLE } from './waiting.js';

/**
 * The phase of a revision:
 * - Invalid     marked invalid (failures, or aborted); nodes that took it roll back;
 * - Superseded  a valid revision that is not desired (a newer one is);
 * - Complete    desired, and every target node is up to date (failures within --max-failures allowed);
 * - Paused      desired, `spec.paused` or the fleet-wide pause, not complete;
 * - RollingOut  desired, nodes still to move.
 */
export function phaseOf(
  r: NetworkConfigRevision,
  status: NetworkConfigRevisionStatus,
  desired: boolean,
): RevisionPhase {
  if (status.isInvalid === true) return 'Invalid';
  if (!desired) return 'Superseded';
  if (hasCondition(status.conditions, 'Complete')) return 'Complete';
  // Paused by its own spec.paused, or by the fleet-wide pause (the Paused condition says which).
  const paused = r.spec.paused === true || hasCondition(status.conditions, 'Paused');
  return paused ? 'Paused' : 'RollingOut';
}

/**
 * `Finished` is True once nothing more happens to the revision by itself, so
 * `kubectl wait --for=condition=Finished` returns whatever the outcome: reason `Complete`,
 * `Invalid` (failed or aborted), or `Superseded` (a newer revision is desired before this one
 * completed). A revision that completed and is superseded later keeps reason `Complete`.
 * False while rolling out (reason `RollingOut` or `Paused`).
 */
export function finishedCondition(
  phase: RevisionPhase,
  status: NetworkConfigRevisionStatus,
): { type: 'Finished'; status: 'True' | 'False'; reason: string; message: string } {
  const summary = `${status.ready ?? 0}/${status.total ?? 0} nodes ready, ${status.failed ?? 0} failed`;
  const completedOnce = status.completedAt !== undefined;
  switch (phase) {
    case 'Complete':
      return {
        type: 'Finished',
        status: 'True',
        reason: 'Complete',
        message: `rollout complete: ${summary}`,
      };
    case 'Invalid':
      return {
        type: 'Finished',
        status: 'True',
        reason: 'Invalid',
        message: `revision is invalid: ${findCondition(status.conditions, 'Invalid')?.message ?? summary}`,
      };
    case 'Superseded':
      return completedOnce
        ? {
            type: 'Finished',
            status: 'True',
            reason: 'Complete',
            message: 'rollout completed; superseded since',
          }
        : {
            type: 'Finished',
            status: 'True',
            reason: 'Superseded',
            message: 'superseded by a newer revision before it completed',
          };
    case 'Paused':
      return { type: 'Finished', status: 'False', reason: 'Paused', message: `paused: ${summary}` };
    case 'RollingOut': {
      // Only unavailable nodes left (revision-status.ts): not finished, but say what it waits for.
      const waiting = findCondition(status.conditions, 'Progressing', 'False');
      return waiting?.reason === WAITING_FOR_UNAVAILABLE
        ? { type: 'Finished', status: 'False', reason: waiting.reason, message: waiting.message }
        : { type: 'Finished', status: 'False', reason: 'RollingOut', message: summary };
    }
  }
}

/**
 * `ranOn`: the most nodes ready on the revision at once, so far. The counts last written (`old.ready`)
 * count too: a revision written before `ranOn` existed, or whose last count was written while
 * this one waits for its pace (pace/status-pace.ts), keeps what it showed.
 */
export function withRanOn(
  old: NetworkConfigRevisionStatus | undefined,
  next: NetworkConfigRevisionStatus,
): NetworkConfigRevisionStatus {
  const ranOn = Math.max(old?.ranOn ?? 0, old?.ready ?? 0, next.ready ?? 0);
  return ranOn > 0 ? { ...next, ranOn } : next;
}

/** The status with `phase` and the `Finished` condition filled in. */
export function withReadableState(
  r: NetworkConfigRevision,
  status: NetworkConfigRevisionStatus,
  desired: boolean,
  nowText: string,
): NetworkConfigRevisionStatus {
  const phase = phaseOf(r, status, desired);
  return {
    ...status,
    phase,
    conditions: setConditions(status.conditions, [finishedCondition(phase, status)], nowText),
  };
}

/**
 * Label writes that leave `network.nodenet.io/desired=true` on exactly the desired revision (none
 * while no revision is desired), so `kubectl get ncr -l network.nodenet.io/desired=true` names it.
 */
export function desiredLabels(
  revisions: readonly NetworkConfigRevision[],
  desired: string | undefined,
): Extract<Action, { type: 'labelDesired' }>[] {
  const out: Extract<Action, { type: 'labelDesired' }>[] = [];
  for (const r of revisions) {
    const has = r.metadata.labels?.[DESIRED_LABEL] === 'true';
    const want = r.metadata.name === desired;
    if (has !== want) out.push({ type: 'labelDesired', revision: r.metadata.name, desired: want });
  }
  return out;
}

/**
 * Key of a revision's own node counts: the revision number the NodeConfig is labelled with (a
 * retry or a rollback to an identical config has the same hash, but not the same number).
 */
export const countKey = (hash: string, number: number | undefined): string => `${hash}|${number ?? '?'}`;
