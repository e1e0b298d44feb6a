/**
 * Classification of one node relative to the desired revision (pure; nothing is changed afterwards:
 * the slot step decides moves from these verdicts). Deadlines are on the monotonic clock from the
 * observations (observe.ts), never from timestamps other machines wrote.
 */
import { matchesSelector, type FailedNode, type NetworkConfigRevision, type NodeConfig } from '@nodenet/api';
import { rfc3339 } from '@nodenet/api';
import { formatDuration } from '../duration.js';
import type { Policy } from '../policy.js';
import { factsOf } from './facts.js';
import type { NodeObservation } from './observe.js';
import type { NodeInfo, NodeState } from './types.js';

export interface Verdict {
  name: string;
  node: NodeInfo | undefined;
  nc: NodeConfig | undefined;
  /** undefined: not a target (NotReady or gone before taking the revision, unselected). */
  state: NodeState | undefined;
  /** On another spec, with the agent still working on it: holds a slot and is moved at once. */
  busyElsewhere?: boolean;
  /** Why it must be (re)assigned although it carries the desired spec; it needs a slot. */
  reassign?: string;
  failure?: FailedNode;
  /** Whether a failure counts against the desired revision (a forward move during its rollout). */
  counts?: boolean;
  /** When (monotonic ms) this verdict changes by itself: a timeout or the end of the soak. */
  deadline?: number;
  /**
   * The host already runs the desired revision (a node that restored it on its own after failing
   * on an invalid one): moving it changes nothing on the host, so it holds no slot.
   */
  hostOnDesired?: boolean;
}

export interface ClassifyContext {
  desired: NetworkConfigRevision;
  policy: Policy;
  mono: number;
  /** Wall clock, only for the `at` of failures (shown, never compared). */
  now: number;
  /** The spec hash the node should carry for the desired revision (undefined: not compared). */
  expectedSpecHash?: string;
}

/** The agent's progress on a NodeConfig's current spec, with the deadline of the current phase. */
type Progress =
  | { kind: 'provisioned'; since: number }
  | { kind: 'invalid'; message: string }
  | { kind: 'working'; deadline: number; phase: string }
  | { kind: 'waiting'; deadline: number }
  | { kind: 'timedOut'; message: string };

function progress(nc: NodeConfig, obs: NodeObservation, policy: Policy, mono: number): Progress {
  const f = factsOf(nc);
  const st = nc.status;
  // A report counts when it answers the current spec and was not already there before the
  // assignment was (a re-assignment of the same spec leaves the old answer in place until the agent
  // answers anew). Seen in the same pass (a new leader): the agent's answer is taken as it is.
  const fresh = st !== undefined && f.about && obs.statusSince >= obs.assignSince;
  const base = Math.max(obs.assignSince, obs.readiness === 'ready' ? obs.readinessSince : 0);
  if (fresh && st.configStatus === 'provisioned' && st.lastAppliedRevision === nc.spec.revision)
    return { kind: 'provisioned', since: obs.statusSince };
  if (fresh && st.configStatus === 'invalid')
    return { kind: 'invalid', message: st.message || 'agent reported invalid' };
  if (fresh) {
    // provisioning (or any phase the agent reports while it works, e.g. confirming): no progress
    // means no status change seen for --config-timeout; every change, a heartbeat too, restarts it.
    const deadline = Math.max(base, obs.statusSince) + policy.configTimeoutMs;
    if (mono > deadline)
      return {
        kind: 'timedOut',
        message: `config timeout: agent reported ${st.configStatus ?? 'no status'} and nothing since for ${formatDuration(policy.configTimeoutMs)}`,
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

export function classify(
  name: string,
  node: NodeInfo | undefined,
  nc: NodeConfig | undefined,
  observation: NodeObservation | undefined,
  ctx: ClassifyContext,
): Verdict {
  const { desired, policy, mono } = ctx;
  // Readiness is the Node's now; the observation only says since when (first seen now if unknown).
  const readiness = !node || node.deleting ? 'gone' : node.ready ? 'ready' : 'notReady';
  const obs: NodeObservation = {
    assignSince: observation?.assignSince ?? mono,
    statusSince: observation?.statusSince ?? mono,
    readiness,
    readinessSince: observation?.readiness === readiness ? observation.readinessSince : mono,
  };
  const selected = node !== undefined && matchesSelector(policy.nodeSelector, node.labels);
  const available = selected && obs.readiness === 'ready';
  const base = { name, node, nc };
  if (!nc) return { ...base, state: available ? 'outdated' : undefined };
  const f = factsOf(nc);
  // The agent found its own set-up broken (self-check at start-up): the node is unavailable. It
  // holds no slot and is reported as degraded; it never counts against a revision.
  if (f.misconfigured !== undefined)
    return available
      ? {
          ...base,
          state: 'failed',
          counts: false,
          failure: { node: name, message: f.misconfigured, at: rfc3339(ctx.now) },
        }
      : { ...base, state: undefined };
  const onDesired =
    nc.spec.revision === desired.spec.hash &&
    (ctx.expectedSpecHash === undefined || f.specHash === ctx.expectedSpecHash);
  const p = progress(nc, obs, policy, mono);
  const hostOnDesired =
    nc.status?.lastAppliedRevision === desired.spec.hash && nc.status.configStatus !== 'provisioning';
  if (!onDesired) {
    if (!available) return { ...base, state: undefined };
    const busy = (p.kind === 'working' || p.kind === 'waiting') && !hostOnDesired;
    return {
      ...base,
      state: 'outdated',
      ...(busy ? { busyElsewhere: true } : {}),
      ...(hostOnDesired && nc.spec.revision !== desired.spec.hash ? { hostOnDesired: true } : {}),
    };
  }
  const counts = f.move === 'forward' && !desired.status?.completedAt;
  const fail = (message: string): Verdict => ({
    ...base,
    state: 'failed',
    counts,
    failure: { node: name, message, at: rfc3339(ctx.now) },
  });
  if (p.kind === 'provisioned') {
    const soakEnd = p.since + policy.minSuccessTimeMs;
    if (available)
      return mono >= soakEnd
        ? { ...base, state: 'upToDate' }
        : { ...base, state: 'soaking', deadline: soakEnd };
    // NotReady after its soak: no longer this rollout's concern. NotReady during the soak: the
    // change may have cut it off, so it keeps its slot (below).
    if (obs.readinessSince >= soakEnd) return { ...base, state: undefined };
  } else if (p.kind === 'invalid') {
    if (f.number !== undefined && f.number !== desired.spec.number) {
      // The failure belongs to an earlier attempt at the same content (a retry): it never counts
      // against this one; the node is handed this attempt under the limit like any other move.
      return available
        ? {
            ...base,
            state: 'outdated',
            reassign: `retry of a configuration that failed under revision ${f.number}`,
          }
        : { ...base, state: undefined };
    }
    return fail(p.message);
  } else if (!f.assigned) {
    // Written by somebody else (or an older configurator): hand it over properly, under the limit.
    return available
      ? { ...base, state: 'outdated', reassign: 'NodeConfig has no assignment time' }
      : { ...base, state: undefined };
  }
  if (!selected && node !== undefined) return { ...base, state: undefined };
  if (obs.readiness !== 'ready') {
    // Took the revision and then went NotReady (or away): like a DaemonSet's unavailable pod it
    // keeps its slot, and fails when not back within --not-ready-timeout.
    const since = Math.max(obs.readinessSince, obs.assignSince);
    const deadline = since + policy.notReadyTimeoutMs;
    if (mono > deadline)
      return fail(
        `${obs.readiness === 'gone' ? 'Node gone' : 'NotReady'} for ${formatDuration(policy.notReadyTimeoutMs)} after taking revision ${desired.spec.number}`,
      );
    return { ...base, state: 'notReady', counts, deadline };
  }
  if (p.kind === 'timedOut') return fail(p.message);
  // A rollback to what the host already runs holds no slot while the agent confirms it.
  const free = f.move === 'rollback' && hostOnDesired ? { hostOnDesired: true } : {};
  if (p.kind === 'working') return { ...base, state: 'provisioning', deadline: p.deadline, ...free };
  if (p.kind === 'waiting') return { ...base, state: 'pending', deadline: p.deadline, ...free };
  return { ...base, state: 'upToDate' };
}
