/**
 * Classification of one node (pure; the slot step decides moves from these verdicts), following the
 * definitions of docs/rollout.md "The model": a node **in flight** took a revision forward and has
 * not finished or failed it, on whichever revision that is (it holds a slot across revisions, and
 * its failure counts against the revision that was assigned, superseded or not); a node whose agent
 * is not answering before it is handed a new revision is **unavailable**: no forward move, never
 * counted. Deadlines are on the monotonic clock from the observations (observe.ts).
 */
import {
  matchesSelector,
  rfc3339,
  type FailedNode,
  type MoveKind,
  type NetworkConfigRevision,
  type NodeConfig,
} from '@nodenet/api';
import { formatDuration } from '@nodenet/kube';
import type { Policy } from '../policy/policy.js';
import { factsOf } from './facts.js';
import { assignedRevision, isCompleted, type RevisionIndex } from './identity.js';
import { sameStretch, type NodeObservation } from './observe.js';
import {
  MAX_INTERRUPTED_ATTEMPTS,
  MAX_REASSIGN_BACKOFF_MS,
  reassignDelayMs,
  everReported,
  progress,
  type Progress,
} from './progress.js';
import { SLOT_STATES, type NodeInfo, type NodeState } from './types.js';

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

type Readiness = NodeObservation['readiness'];

export function classify(
  name: string,
  node: NodeInfo | undefined,
  nc: NodeConfig | undefined,
  observation: NodeObservation | undefined,
  ctx: ClassifyContext,
): Verdict {
  const { desired, policy, mono } = ctx;
  // Readiness is the Node's now; the observation only says since when (first seen now if unknown).
  const readiness: Readiness = !node || node.deleting ? 'gone' : node.ready ? 'ready' : 'notReady';
  const obs: NodeObservation = {
    assignSince: observation?.assignSince ?? mono,
    statusSince: observation?.statusSince ?? mono,
    readiness,
    readinessSince:
      observation && sameStretch(observation.readiness, readiness) ? observation.readinessSince : mono,
  };
  const selected = node !== undefined && matchesSelector(policy.nodeSelector, node.labels);
  const base = { name, node, nc };
  const down = readiness !== 'ready' ? (readiness === 'gone' ? 'Node gone' : 'NotReady') : undefined;
  const starting = node?.agentStarting === true ? 'start-up taint present (agent not ready yet)' : undefined;
  const unavailable = (why: string): Verdict =>
    selected
      ? { ...base, state: 'unavailable', unavailable: `unavailable: ${why}` }
      : { ...base, state: undefined };
  if (!nc) {
    if (!selected) return { ...base, state: undefined };
    // A node whose agent is still starting (its start-up taint) needs a NodeConfig to finish its first
    // apply and remove the taint: it is handed one (a never-reported agent's silence never counts).
    return down ? unavailable(down) : { ...base, state: 'outdated' };
  }
  const f = factsOf(nc);
  const assigned = assignedRevision(nc, ctx.index);
  const withAssigned = { ...base, ...(assigned ? { assigned } : {}) };
  const p = progress(nc, obs, policy, mono);
  // Forward onto a revision that has not completed: a completed revision had every node finish it.
  const forward = f.move === 'forward' && !(assigned !== undefined && isCompleted(assigned));
  const fail = (message: string, counts = forward): Verdict => ({
    ...withAssigned,
    state: 'failed',
    counts,
    ...(assigned ? { failedRevision: assigned.metadata.name } : {}),
    failure: { node: name, message, at: rfc3339(ctx.now) },
  });
  const onDesired =
    assigned !== undefined &&
    assigned.spec.number === desired.spec.number &&
    (ctx.expectedSpecHash === undefined || f.specHash === ctx.expectedSpecHash);
  const soakEnd = p.kind === 'provisioned' ? p.since + policy.minSuccessTimeMs : undefined;
  const finished =
    soakEnd !== undefined && mono >= soakEnd && (down === undefined || obs.readinessSince >= soakEnd);

  // An agent that found itself misconfigured before it ever reported never applied the change: its
  // node is unavailable (pre-existing), and holds nothing.
  if (forward && misconfiguredBeforeAnswering(down, f, nc))
    return unavailable(`agent misconfigured: ${f.misconfigured}`);
  // Its agent broke (misconfigured, Ready) on a revision now invalid: rolled back at once, never
  // held (it finds the rollback when it answers again, instead of the bad revision).
  const brokenOnInvalid =
    down === undefined &&
    f.misconfigured !== undefined &&
    assigned !== undefined &&
    ctx.invalid.has(assigned.metadata.name);
  // In flight: took the assignment forward, not finished, not failed (a report or a timeout).
  if (
    forward &&
    !finished &&
    p.kind !== 'invalid' &&
    !brokenOnInvalid &&
    (down !== undefined || f.misconfigured !== undefined)
  ) {
    // Cut off, or its agent broke, during its rollout steps or its soak: like a DaemonSet's
    // unavailable pod it keeps its slot and holds every forward move until it is back or fails.
    // A misconfigured agent (Ready) keeps them until it answers: it never applied the change nor
    // refused it, and would apply it once fixed (a self-check failure is not the change's doing,
    // so it never fails the revision either).
    if (down === undefined) return { ...withAssigned, onDesired, state: 'notReady', holds: true };
    const deadline = Math.max(obs.readinessSince, obs.assignSince) + policy.notReadyTimeoutMs;
    if (mono > deadline)
      return pastNotReadyTimeout({ down, nc, number: assigned?.spec.number, policy, unavailable, fail });
    return { ...withAssigned, onDesired, state: 'notReady', holds: true, deadline };
  }
  if (onDesired)
    return onDesiredVerdict(withAssigned, p, f, {
      ctx,
      obs,
      down,
      starting,
      selected,
      soakEnd,
      fail,
      unavailable,
    });
  return elsewhereVerdict(withAssigned, p, f, {
    ctx,
    obs,
    down,
    starting,
    selected,
    soakEnd,
    fail,
    unavailable,
  });
}

interface Local {
  ctx: ClassifyContext;
  obs: NodeObservation;
  down: string | undefined;
  starting: string | undefined;
  selected: boolean;
  soakEnd: number | undefined;
  fail: (message: string, counts?: boolean) => Verdict;
  unavailable: (why: string) => Verdict;
}

const misconfiguredBeforeAnswering = (
  down: string | undefined,
  f: Facts,
  nc: NodeConfig | undefined,
): boolean => down === undefined && f.misconfigured !== undefined && nc !== undefined && !everReported(nc);

/** A node in flight, NotReady (or gone) for longer than --not-ready-timeout. */
function pastNotReadyTimeout(a: {
  down: string;
  nc: NodeConfig | undefined;
  number: number | undefined;
  policy: { notReadyTimeoutMs: number };
  unavailable: (why: string) => Verdict;
  fail: (message: string) => Verdict;
}): Verdict {
  const what = a.down;
  // An agent that never reported anything never applied the change (it reports provisioning
  // first): NotReady or gone is the node's own, as for a timeout of a silent agent.
  if (a.nc !== undefined && !everReported(a.nc))
    return a.unavailable(`${what} and agent never reported (after taking revision ${a.number ?? '?'})`);
  return a.fail(
    `${what} for ${formatDuration(a.policy.notReadyTimeoutMs)} after taking revision ${a.number ?? '?'}`,
  );
}

type Base = Pick<Verdict, 'name' | 'node' | 'nc' | 'assigned'>;
type Facts = ReturnType<typeof factsOf>;

/** The host runs the desired revision already (a restore that worked; never a RestoreFailed report). */
const hostRuns = (nc: NodeConfig, hash: string): boolean =>
  nc.status?.lastAppliedRevision === hash &&
  nc.status.configStatus !== 'provisioning' &&
  nc.status.failureCause !== 'RestoreFailed';

function onDesiredVerdict(b: Base, p: Progress, f: Facts, l: Local): Verdict {
  const { ctx, obs } = l;
  const nc = b.nc as NodeConfig;
  const base = { ...b, onDesired: true };
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
  const refused = p.kind === 'invalid' && p.cause !== 'Interrupted' && f.move === 'forward';
  if (f.misconfigured !== undefined && !refused) return l.unavailable(f.misconfigured);
  if (p.kind === 'provisioned') {
    const end = l.soakEnd as number;
    // A move that left the host config unchanged has nothing to soak (unchanged.ts).
    if (l.down === undefined && ctx.mono < end && f.move !== 'unchanged')
      return { ...base, state: 'soaking', deadline: end };
    // On the revision: NotReady after its soak (or after a catch-up or a rollback) still counts as on it.
    return { ...base, state: 'upToDate' };
  }
  if (p.kind === 'invalid') {
    if (p.cause === 'Interrupted' && f.move !== 'rollback') {
      // Not the change's fault: handed the same revision again with backoff. After the bound it is
      // listed as degraded and still re-assigned, at the longest backoff only.
      const retry = reassignAfter(base, `interrupted (${p.message}); attempt ${f.attempt + 1}`, f, obs, l);
      if (f.attempt < MAX_INTERRUPTED_ATTEMPTS) return retry;
      const why = `interrupted ${f.attempt} times on revision ${ctx.desired.spec.number}, retried every ${formatDuration(MAX_REASSIGN_BACKOFF_MS)}: ${p.message}`;
      return { ...l.fail(why, false), ...retry, state: 'failed' };
    }
    const message = p.cause === 'RestoreFailed' ? `restore failed: ${p.message}` : p.message;
    // Recorded once (counted when it took the revision forward), and retried under a new
    // assignment with backoff: a rollback or a catch-up is never given up because of a fault, and
    // a node whose agent was broken converges once it is fixed.
    const retry = reassignAfter(base, `${f.move} failed (${p.message}); retry ${f.attempt + 1}`, f, obs, l);
    return { ...l.fail(message), ...retry, state: 'failed' };
  }
  if (!f.assigned)
    // Written by somebody else (or an older configurator): hand it over properly, under the limit.
    return l.down
      ? l.unavailable(l.down)
      : { ...base, state: 'outdated', reassign: 'NodeConfig has no assignment time' };
  if (l.down !== undefined)
    return l.unavailable(`${l.down} before answering revision ${ctx.desired.spec.number}`);
  if (p.kind === 'timedOut') {
    // An agent that never answered anything on this node was not running: not the change's doing.
    if (!everReported(nc)) return l.unavailable(`agent never reported (${p.message})`);
    return l.fail(p.message);
  }
  // A rollback to what the host already runs, or a move that left it unchanged, holds no slot while
  // the agent confirms it.
  const free =
    f.move === 'unchanged' || (f.move === 'rollback' && hostRuns(nc, ctx.desired.spec.hash))
      ? { hostOnDesired: true }
      : {};
  if (p.kind === 'working') return { ...base, state: 'provisioning', deadline: p.deadline, ...free };
  return { ...base, state: 'pending', deadline: p.deadline, ...free };
}

/** Took its assignment forward, not yet finished (working, waiting or soaking): in flight. */
const inFlightUnselected = (b: Base, p: Progress, f: Facts, l: Local): boolean =>
  f.move === 'forward' &&
  !(b.assigned !== undefined && isCompleted(b.assigned)) &&
  (p.kind === 'working' ||
    p.kind === 'waiting' ||
    (p.kind === 'provisioned' && l.soakEnd !== undefined && l.ctx.mono < l.soakEnd));

function reassignAfter(
  base: Base & { onDesired?: boolean },
  why: string,
  f: Facts,
  obs: NodeObservation,
  l: Local,
): Verdict {
  const notBefore = obs.statusSince + reassignDelayMs(f.attempt);
  return {
    ...base,
    state: 'outdated',
    reassign: why,
    attempt: f.attempt + 1,
    keepMove: f.move,
    ...(notBefore > l.ctx.mono ? { notBefore, deadline: notBefore } : {}),
  };
}

/** A node whose assignment is not the desired revision (or not with the spec its labels give). */
function elsewhereVerdict(b: Base, p: Progress, f: Facts, l: Local): Verdict {
  const { ctx } = l;
  const nc = b.nc as NodeConfig;
  const forward = f.move === 'forward' && !(b.assigned !== undefined && isCompleted(b.assigned));
  const hostOnDesired =
    hostRuns(nc, ctx.desired.spec.hash) && nc.spec.revision !== ctx.desired.spec.hash
      ? { hostOnDesired: true }
      : {};
  const onInvalid = b.assigned !== undefined && ctx.invalid.has(b.assigned.metadata.name);
  // Failures on the assigned revision are recorded there, whatever is desired now.
  if (p.kind === 'invalid' && p.cause !== 'Interrupted' && forward) {
    const failed = l.fail(p.cause === 'RestoreFailed' ? `restore failed: ${p.message}` : p.message);
    if (!l.selected || l.down !== undefined) return failed;
    // A failed restore leaves the host in no known state: no forward move until it answers anew
    // (a rollback off an invalid revision is always made).
    if (p.cause === 'RestoreFailed' && !onInvalid)
      return {
        ...failed,
        state: 'unavailable',
        unavailable: `unavailable: ${failed.failure?.message ?? ''}`,
      };
    return { ...failed, state: 'outdated', ...hostOnDesired };
  }
  if (p.kind === 'invalid' && p.cause === 'RestoreFailed' && !onInvalid && l.selected && l.down === undefined)
    return l.unavailable(`restore failed on revision ${b.assigned?.spec.number ?? '?'}: ${p.message}`);
  if (
    p.kind === 'provisioned' &&
    forward &&
    !onInvalid &&
    l.soakEnd !== undefined &&
    ctx.mono < l.soakEnd &&
    l.down === undefined
  )
    // Soaking on a superseded revision: keeps its slot until the soak shows it was not cut off.
    return { ...b, state: 'soaking', deadline: l.soakEnd };
  if (!l.selected)
    // Relabelled out of the selector while busy with a revision it took forward: keeps its slot.
    return inFlightUnselected(b, p, f, l) && (p.kind === 'working' || p.kind === 'waiting')
      ? { ...b, state: 'pending', deadline: p.deadline }
      : { ...b, state: undefined };
  if (l.down !== undefined) return l.unavailable(l.down);
  if (f.misconfigured !== undefined)
    return onInvalid ? { ...b, state: 'outdated', ...hostOnDesired } : l.unavailable(f.misconfigured);
  if (p.kind === 'timedOut') {
    if (!everReported(nc)) return l.unavailable(`agent never reported (${p.message})`);
    // Its agent stopped answering its assignment: a failure of that revision if it took it forward,
    // and unavailable for the next one either way.
    const u = l.unavailable(`agent not answering (${p.message})`);
    // Off an invalid revision the rollback is made all the same (never held): its agent finds it
    // when it answers again.
    if (forward && onInvalid) return { ...l.fail(p.message), state: 'outdated', ...hostOnDesired };
    return forward ? { ...l.fail(p.message), ...u, state: 'unavailable' } : u;
  }
  if (l.starting !== undefined) return l.unavailable(l.starting);
  if (p.kind === 'working' || p.kind === 'waiting')
    // Busy with a revision no longer desired: keeps its slot; handed the desired one under the limit
    // once its agent has answered the assignment (an unanswered one is not known to be available:
    // it answers or times out first). A catch-up or a rollback in progress finishes first (it holds
    // a slot like any move).
    return forward
      ? {
          ...b,
          state: 'pending',
          ...(p.kind === 'working' ? { busyElsewhere: true } : {}),
          deadline: p.deadline,
        }
      : {
          ...b,
          state: 'pending',
          deadline: p.deadline,
          ...(f.move === 'unchanged' ? { hostOnDesired: true } : {}),
        };
  return { ...b, state: 'outdated', ...hostOnDesired };
}
