/**
 * The agent's progress on a NodeConfig's current spec, with the deadline of the current phase, and
 * the backoff of re-assignments (pure). Deadlines are on the monotonic clock from the observations
 * (observe.ts), never from timestamps other machines wrote.
 */
import { FAILURE_CAUSES, type FailureCause, type NodeConfig } from '@nodenet/api';
import { backoffDelay, formatDuration } from '@nodenet/kube';
import type { Policy } from '../policy/policy.js';
import { factsOf } from './facts.js';
import type { NodeObservation } from './observe.js';

/**
 * Quick re-assignments after an `Interrupted` report, per node and revision; after them the node is
 * listed as degraded and re-assigned at MAX_REASSIGN_BACKOFF_MS only.
 */
export const MAX_INTERRUPTED_ATTEMPTS = 3;
/** First backoff of a re-assignment; it doubles per attempt. */
export const REASSIGN_BACKOFF_MS = 10_000;
/** Longest backoff of a failed rollback's retry (retried without bound, at this rate at least). */
export const MAX_REASSIGN_BACKOFF_MS = 300_000;

/** Wait before re-assignment number `attempt` (0-based) of a node whose agent was interrupted. */
export const reassignDelayMs = (attempt: number): number =>
  attempt >= MAX_INTERRUPTED_ATTEMPTS
    ? MAX_REASSIGN_BACKOFF_MS
    : backoffDelay(
        { initialMs: REASSIGN_BACKOFF_MS, maxMs: MAX_REASSIGN_BACKOFF_MS, factor: 2 },
        attempt + 1,
      );

/** The agent's progress on a NodeConfig's current spec, with the deadline of the current phase. */
export type Progress =
  | { kind: 'provisioned'; since: number }
  | { kind: 'invalid'; message: string; cause: FailureCause }
  | { kind: 'working'; deadline: number; phase: string }
  | { kind: 'waiting'; deadline: number }
  | { kind: 'timedOut'; message: string };

export function progress(nc: NodeConfig, obs: NodeObservation, policy: Policy, mono: number): Progress {
  const f = factsOf(nc);
  const st = nc.status;
  // A report counts when it answers the current spec and was not already there before the
  // assignment was (a re-assignment of the same spec leaves the old answer in place until the agent
  // answers anew). Seen in the same pass (a new leader): the agent's answer is taken as it is.
  const fresh = st !== undefined && f.about && obs.statusSince >= obs.assignSince;
  const base = Math.max(obs.assignSince, obs.readiness === 'ready' ? obs.readinessSince : 0);
  if (fresh && st.configStatus === 'provisioned' && st.lastAppliedRevision === nc.spec.revision)
    return { kind: 'provisioned', since: obs.statusSince };
  // Except one: a re-assignment of the unchanged spec (a revert or retry to identical content moves
  // only `assigned-at`) keeps an answer that confirmed this very generation: the host runs exactly
  // this spec, so an agent that answers generation changes only is not failed for silence
  // (docs/agent-status.md). An `invalid` answer is never kept: a re-assignment after a failure asks
  // for a new attempt. The soak runs from the re-assignment.
  if (!fresh && confirmedThisGeneration(nc)) return { kind: 'provisioned', since: obs.assignSince };
  if (fresh && st.configStatus === 'invalid')
    return {
      kind: 'invalid',
      message: st.message || 'agent reported invalid',
      cause: causeOf(st.failureCause),
    };
  if (fresh) {
    // provisioning (or any phase the agent reports while it works, e.g. confirming): silence means
    // neither a status change nor a renewal of the agent's liveness Lease seen for --config-timeout
    // (an older agent's status heartbeat is a status change). Both timed when this process saw them.
    const renewed = obs.renewal !== undefined && obs.renewalSince >= obs.assignSince ? obs.renewalSince : 0;
    const deadline = Math.max(base, obs.statusSince, renewed) + policy.configTimeoutMs;
    if (mono > deadline)
      return {
        kind: 'timedOut',
        message: `config timeout: agent reported ${st.configStatus ?? 'no status'} and nothing since (no new report, no liveness Lease renewal) for ${formatDuration(policy.configTimeoutMs)}`,
      };
    return { kind: 'working', deadline, phase: st.configStatus ?? 'unknown' };
  }
  const deadline = base + policy.preconfigTimeoutMs;
  if (mono > deadline)
    return {
      kind: 'timedOut',
      message: `preconfig timeout: agent did not report on the assignment${f.assignedAtText ? ` of ${f.assignedAtText}` : ''} within ${formatDuration(policy.preconfigTimeoutMs)}`,
    };
  return { kind: 'waiting', deadline };
}

/**
 * The agent reported this spec applied and confirmed, naming the current generation: its answer
 * came after the spec's last change.
 */
function confirmedThisGeneration(nc: NodeConfig): boolean {
  const st = nc.status;
  const generation = nc.metadata.generation;
  return (
    st?.configStatus === 'provisioned' &&
    st.lastAppliedRevision === nc.spec.revision &&
    generation !== undefined &&
    (st.conditions ?? []).some((c) => c.observedGeneration === generation)
  );
}

/** The report's failure cause; absent or unknown reads as ChangeFailed (counts: the careful reading). */
const causeOf = (c: string | undefined): FailureCause =>
  (FAILURE_CAUSES as readonly string[]).includes(c ?? '') ? (c as FailureCause) : 'ChangeFailed';

/** The agent has answered at least once on this node (any status): it is running. */
export const everReported = (nc: NodeConfig): boolean => nc.status?.configStatus !== undefined;
