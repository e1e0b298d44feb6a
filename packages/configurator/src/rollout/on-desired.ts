/**
 * The verdict of a node assigned the desired revision with the spec its labels give (classify.ts):
 * soaking or up to date once provisioned, re-assigned after a refusal or an interruption, failed or
 * unavailable after a timeout, else waiting for its agent.
 */
import type { NodeConfig } from '@nodenet/api';
import { formatDuration } from '@nodenet/kube';
import {
  MAX_INTERRUPTED_ATTEMPTS,
  MAX_REASSIGN_BACKOFF_MS,
  everReported,
  reassignDelayMs,
  type Progress,
} from './progress.js';
import { SLOT_STATES, type NodeState } from './types.js';
import {
  countedMove,
  hostRuns,
  inFlightUnselected,
  type Base,
  type Facts,
  type NodeReading,
  type Verdict,
} from './verdict.js';

type OnDesired = Base & { onDesired: true };

export function onDesiredVerdict(b: Base, p: Progress, f: Facts, l: NodeReading): Verdict {
  const base: OnDesired = { ...b, onDesired: true };
  // Unselected (relabelled out of the node selector) while in flight: it keeps its slot until it
  // finishes or fails, as a NotReady one does (its agent is still applying the change).
  if (!l.selected && p.kind !== 'invalid') {
    const v = inFlightUnselected(b, p, f, l)
      ? onDesiredVerdict(b, p, f, { ...l, selected: true })
      : undefined;
    return v && (SLOT_STATES.has(v.state as NodeState) || v.state === 'failed')
      ? v
      : { ...base, state: undefined };
  }
  // An explicit refusal of a change it took forward counts even from an agent that flags itself
  // misconfigured (it answered about the change).
  const refused = p.kind === 'invalid' && p.cause !== 'Interrupted' && countedMove(f.move, b.assigned);
  if (f.misconfigured !== undefined && !refused) return l.unavailable(f.misconfigured);
  if (p.kind === 'provisioned') {
    const end = l.soakEnd as number;
    // A move that left the host config unchanged has nothing to soak (unchanged.ts).
    if (l.down === undefined && l.ctx.mono < end && f.move !== 'unchanged')
      return { ...base, state: 'soaking', deadline: end };
    // On the revision: NotReady after its soak (or after a catch-up or a rollback) still counts as on it.
    return { ...base, state: 'upToDate' };
  }
  if (p.kind === 'invalid') return retriedAfterFault(base, p, f, l);
  return awaitingAnswer(base, p, f, l);
}

/** Refused or interrupted: re-assigned with backoff, and a failure where it counts. */
function retriedAfterFault(
  base: OnDesired,
  p: Extract<Progress, { kind: 'invalid' }>,
  f: Facts,
  l: NodeReading,
): Verdict {
  if (p.cause === 'Interrupted' && f.move !== 'rollback') {
    // Not known to be the change's fault: handed the same revision again with backoff. After the
    // bound it counts, and is still re-assigned, at the longest backoff only.
    const retry = reassignAfter(base, `interrupted (${p.message}); attempt ${f.attempt + 1}`, f, l);
    if (f.attempt < MAX_INTERRUPTED_ATTEMPTS) return retry;
    const why = `interrupted ${f.attempt + 1} times on revision ${l.ctx.desired.spec.number}, retried every ${formatDuration(MAX_REASSIGN_BACKOFF_MS)}: ${p.message}`;
    // An interruption that repeats on a change rolling out past the quick re-assignments counts
    // (issue 35): a cut-off restored before the kubelet shows NotReady and healing slowly looks like
    // this, and re-assigning it for ever would re-cut the node every 5 minutes. An agent restart (a
    // DaemonSet update) is one interruption. On a completed revision (a catch-up) a crash-looping
    // agent is listed as degraded only: it must not roll the whole fleet back.
    const counts = f.move !== 'catch-up' && countedMove(f.move, base.assigned);
    return { ...l.fail(why, counts), ...retry, state: 'failed' };
  }
  const message = p.cause === 'RestoreFailed' ? `restore failed: ${p.message}` : p.message;
  // Recorded once (counted when it took the revision forward), and retried under a new
  // assignment with backoff: a rollback or a catch-up is never given up because of a fault, and
  // a node whose agent was broken converges once it is fixed.
  const retry = reassignAfter(base, `${f.move} failed (${p.message}); retry ${f.attempt + 1}`, f, l);
  return { ...l.fail(message), ...retry, state: 'failed' };
}

/** Handed the desired revision and not answered yet: pending or provisioning, or it timed out. */
function awaitingAnswer(
  base: OnDesired,
  p: Exclude<Progress, { kind: 'provisioned' | 'invalid' }>,
  f: Facts,
  l: NodeReading,
): Verdict {
  const nc = base.nc as NodeConfig;
  const desired = l.ctx.desired;
  if (!f.assigned)
    // Written by somebody else (or an older configurator): hand it over properly, under the limit.
    return l.down
      ? l.unavailable(l.down)
      : { ...base, state: 'outdated', reassign: 'NodeConfig has no assignment time' };
  if (l.down !== undefined)
    return l.unavailable(`${l.down} before answering revision ${desired.spec.number}`);
  if (p.kind === 'timedOut') {
    // An agent that never answered anything on this node was not running: not the change's doing.
    if (!everReported(nc)) return l.unavailable(`agent never reported (${p.message})`);
    return l.fail(p.message);
  }
  // A rollback to what the host already runs, or a move that left it unchanged, holds no slot while
  // the agent confirms it.
  const free =
    f.move === 'unchanged' || (f.move === 'rollback' && hostRuns(nc, desired.spec.hash))
      ? { hostOnDesired: true }
      : {};
  if (p.kind === 'working') return { ...base, state: 'provisioning', deadline: p.deadline, ...free };
  return { ...base, state: 'pending', deadline: p.deadline, ...free };
}

/** Handed the same revision again once the backoff after its last status change has passed. */
function reassignAfter(base: OnDesired, why: string, f: Facts, l: NodeReading): Verdict {
  const notBefore = l.obs.statusSince + reassignDelayMs(f.attempt);
  return {
    ...base,
    state: 'outdated',
    reassign: why,
    attempt: f.attempt + 1,
    keepMove: f.move,
    ...(notBefore > l.ctx.mono ? { notBefore, deadline: notBefore } : {}),
  };
}
