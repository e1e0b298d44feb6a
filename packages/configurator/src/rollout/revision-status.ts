/**
 * Revision status, derived from the nodes every time (invariant 2). The desired revision gets the
 * counts of its rollout; others keep their record (failed and degraded nodes, start and completion
 * times) and count the nodes still on them.
 */
import {
  RETRY_ANNOTATION,
  canonicalJson,
  type FailedNode,
  type NetworkConfigRevision,
  type NetworkConfigRevisionStatus,
  shortHash,
  hasCondition,
  findCondition,
} from '@nodenet/api';
import { rfc3339, setConditions, type ConditionInput } from '@nodenet/api';
import { formatDuration } from '@nodenet/kube';
import type { Policy } from '../policy/policy.js';
import type { Verdict } from './classify.js';
import { factsOf } from './facts.js';
import { MAX_LISTED_NODES, boundedNode, nodeSummary, type FailureRecord } from './failures.js';
import { CARRIES_REASON } from './suspects.js';
import { disruptiveCondition, type DisruptiveCap } from './disruptive.js';
import { countKey, withRanOn, withReadableState } from './readable.js';
import { stateAfter } from './slots.js';
import { WAITING_FOR_UNAVAILABLE, waitingForSkipped } from './waiting.js';
import type { NodeState, StatusUpdate } from './types.js';

export interface Invalidation {
  failedNodes: FailedNode[];
  reason: string;
  aborted?: boolean;
  /** Invalid because it carries a held-back suspect of another invalid revision (suspects.ts). */
  carries?: boolean;
}

export interface StatusInput {
  revisions: readonly NetworkConfigRevision[];
  desired: NetworkConfigRevision | undefined;
  /** Target verdicts, and the ones assigned in this pass (pending now: slots.ts stateAfter). */
  verdicts: readonly Verdict[];
  moved: ReadonlySet<Verdict>;
  invalid: ReadonlySet<string>;
  invalidations: ReadonlyMap<string, Invalidation>;
  /** Per revision (name): its failure record after this pass (failures.ts). */
  records: ReadonlyMap<string, FailureRecord>;
  /** Per revision (countKey of hash and number): target nodes on it, ready ones, and ones still in progress. */
  hashCounts: ReadonlyMap<string, { total: number; ready: number; ongoing: number }>;
  now: number;
  policy: Policy;
  /** Hash the inputs currently produce (for the answer to a retry request). */
  inputHash?: string;
  /** Forward moves are held: this node went NotReady after taking a revision forward. */
  heldBy?: string;
  /** The wave barrier in force: the current wave and the nodes it waits for. */
  wave?: { value: string; waitingFor: string[] };
  /** What RolloutPolicy spec.disruptive does to the desired revision (disruptive.ts); unset: no knob. */
  disruptive?: DisruptiveCap;
}

const summaryOf = (v: { ready: number; total: number; ongoing: number; queued: number; failed: number }) =>
  `${v.ready}/${v.total} nodes ready, ${v.ongoing} in progress, ${v.queued} queued, ${v.failed} failed`;

/** The counts of the desired revision's rollout that depend on a target's state. */
interface Tally {
  /** The desired revision's name. */
  readonly name: string;
  ready: number;
  ongoing: number;
  queued: number;
  /** Targets neither up to date on the revision nor failed on it. */
  incomplete: number;
}

/** Adds (by 1) or takes out (by -1) what target `v` in `state` counts in the rollout. */
function tally(t: Tally, v: Verdict, state: NodeState | undefined, by: 1 | -1): void {
  const name = t.name;
  if (v.onDesired && (state === 'upToDate' || state === 'soaking')) t.ready += by;
  if (state === 'pending' || state === 'provisioning' || state === 'notReady') t.ongoing += by;
  else if (!v.onDesired && state === 'soaking') t.ongoing += by;
  if (state === 'outdated') t.queued += by;
  if (!((v.onDesired === true && state === 'upToDate') || (state === 'failed' && v.failedRevision === name)))
    t.incomplete += by;
}

/**
 * The desired revision's rollout, counted over its target nodes in one walk, by the verdicts'
 * states; then the few nodes assigned in this pass count as pending instead (no lookup per target).
 */
function rolloutCounts(
  s: StatusInput,
  name: string,
  nowText: string,
): {
  ready: number;
  ongoing: number;
  queued: number;
  unchanged: number;
  /** Every selected node on the revision (NotReady ones too) with its soak over, or failed on it. */
  complete: boolean;
  /** Targets neither up to date on the revision nor failed on it. */
  incomplete: number;
  /** Reported, never counted: failures of catch-up moves and rollbacks, and unavailable nodes. */
  degradedNow: FailedNode[];
  /** Unavailable (skipped) targets: the revision waits for them (they catch up when they answer). */
  skipped: string[];
} {
  const t: Tally = { name, ready: 0, ongoing: 0, queued: 0, incomplete: 0 };
  let unchanged = 0;
  const degradedNow: FailedNode[] = [];
  const skipped: string[] = [];
  for (const v of s.verdicts) {
    if (v.failure && !v.counts && v.failedRevision === name) degradedNow.push(boundedNode(v.failure));
    else if (v.state === 'unavailable' && v.unavailable && stateAfter(v, s.moved) === 'unavailable')
      degradedNow.push(boundedNode({ node: v.name, message: v.unavailable, at: nowText }));
    if (v.state === 'unavailable' && stateAfter(v, s.moved) === 'unavailable') skipped.push(v.name);
    tally(t, v, v.state, 1);
    // Moved without a slot: the revision left their host config unchanged (unchanged.ts).
    if (v.onDesired && (v.movedUnchanged ?? (v.nc !== undefined && factsOf(v.nc).move === 'unchanged')))
      unchanged++;
  }
  for (const v of s.moved) {
    tally(t, v, v.state, -1);
    tally(t, v, 'pending', 1);
  }
  const { ready, ongoing, queued, incomplete } = t;
  return { ready, ongoing, queued, unchanged, complete: !incomplete, incomplete, degradedNow, skipped };
}

/** Progressing of the desired revision: complete, paused, held by a NotReady node, at a wave barrier, or rolling out. */
function progressingCondition({
  s,
  complete,
  paused,
  summary,
  waiting,
}: {
  s: StatusInput;
  complete: boolean;
  paused: boolean;
  summary: string;
  /** Set when only unavailable nodes are left: their names. */
  waiting: string | undefined;
}): ConditionInput {
  return complete
    ? { type: 'Progressing', status: 'False', reason: 'RolloutComplete', message: summary }
    : waiting !== undefined
      ? { type: 'Progressing', status: 'False', reason: WAITING_FOR_UNAVAILABLE, message: waiting }
      : paused
        ? { type: 'Progressing', status: 'False', reason: 'Paused', message: `paused: ${summary}` }
        : s.heldBy !== undefined
          ? {
              type: 'Progressing',
              status: 'True',
              reason: 'HeldByNotReadyNode',
              message: `${summary}; no new forward moves while node ${s.heldBy} is NotReady after taking a revision forward (it fails that revision after --not-ready-timeout=${formatDuration(s.policy.notReadyTimeoutMs)})`,
            }
          : s.wave
            ? {
                type: 'Progressing',
                status: 'True',
                reason: 'WaitingForWave',
                message: `${summary}; wave ${s.wave.value || '(unlabelled)'} until done: ${s.wave.waitingFor.slice(0, 10).join(', ')}${s.wave.waitingFor.length > 10 ? ` and ${s.wave.waitingFor.length - 10} more` : ''}`,
              }
            : { type: 'Progressing', status: 'True', reason: 'RollingOut', message: summary };
}

function desiredStatus(
  r: NetworkConfigRevision,
  s: StatusInput,
  nowText: string,
): NetworkConfigRevisionStatus {
  const old = r.status ?? {};
  const name = r.metadata.name;
  const record = s.records.get(name) ?? {
    failedNodes: old.failedNodes ?? [],
    failed: old.failed ?? 0,
    fresh: [],
  };
  const { failedNodes, failed } = record;
  const counts = rolloutCounts(s, name, nowText);
  const { ready, ongoing, queued, unchanged, complete, degradedNow } = counts;
  const degradedAll = keepTimes(degradedNow, old.degradedNodes);
  const degradedNodes = degradedAll.slice(0, Math.min(MAX_LISTED_NODES, s.policy.maxFailedNodes));
  const total = s.verdicts.length;
  const degraded = degradedAll.length;
  const fleet = s.policy.paused === true;
  const paused = r.spec.paused === true || fleet;
  const summary =
    summaryOf({ ready, total, ongoing, queued, failed }) + (degraded ? `, ${degraded} degraded` : '');
  const waiting = waitingForSkipped(counts, summary);
  const conds: ConditionInput[] = [
    progressingCondition({ s, complete, paused, summary, waiting }),
    complete
      ? {
          type: 'Complete',
          status: 'True',
          reason: failed > 0 ? 'CompleteWithFailures' : 'AllNodesReady',
          message: summary,
        }
      : waiting !== undefined
        ? { type: 'Complete', status: 'False', reason: WAITING_FOR_UNAVAILABLE, message: waiting }
        : { type: 'Complete', status: 'False', reason: paused ? 'Paused' : 'RollingOut', message: summary },
    {
      type: 'Invalid',
      status: 'False',
      reason: 'Valid',
      message: 'no more than --max-failures nodes failed',
    },
    paused
      ? {
          type: 'Paused',
          status: 'True',
          reason: 'Paused',
          message: `${fleet ? 'RolloutPolicy default spec.paused' : 'spec.paused'}: no new forward moves (${summary}); a rollback away from an invalid revision is never held`,
        }
      : { type: 'Paused', status: 'False', reason: 'NotPaused', message: 'not paused' },
    degraded > 0
      ? {
          type: 'Degraded',
          status: 'True',
          reason: 'NodesDegraded',
          message: `${degraded} node(s) unavailable, or failed on a catch-up or a rollback (reported, not counted against the revision): ${nodeSummary(degradedNodes, degraded)}`,
        }
      : { type: 'Degraded', status: 'False', reason: 'NoDegradedNodes', message: 'no degraded nodes' },
    ...[disruptiveCondition(s.disruptive, old)].filter((c) => c !== undefined),
  ];
  const { completedAt, ranAt } = setOnce(old, complete, ready > 0, nowText);
  return {
    total,
    queued,
    ongoing,
    ready,
    failed,
    degraded,
    isInvalid: false,
    ...(failedNodes.length ? { failedNodes } : {}),
    ...(degradedNodes.length ? { degradedNodes } : {}),
    ...(unchanged ? { unchanged } : {}),
    ...(old.retriedBy ? { retriedBy: old.retriedBy } : {}),
    // Written once by build/disruption-status.ts, kept by every status write after.
    ...(old.disruption ? { disruption: old.disruption } : {}),
    startedAt: old.startedAt ?? nowText,
    ...(completedAt ? { completedAt } : {}),
    ...(ranAt ? { ranAt } : {}),
    conditions: setConditions(old.conditions, conds, nowText),
  };
}

/**
 * The times set once: completedAt (a later join or rollback never moves it) and ranAt (a node ran
 * it: with no failure, a fallback, issue 35).
 */
function setOnce(
  old: NetworkConfigRevisionStatus,
  complete: boolean,
  ran: boolean,
  nowText: string,
): Pick<NetworkConfigRevisionStatus, 'completedAt' | 'ranAt'> {
  const completedAt = old.completedAt ?? (complete ? nowText : undefined);
  const ranAt = old.ranAt ?? (ran || completedAt ? nowText : undefined);
  return { ...(completedAt ? { completedAt } : {}), ...(ranAt ? { ranAt } : {}) };
}

function otherStatus(r: NetworkConfigRevision, s: StatusInput, nowText: string): NetworkConfigRevisionStatus {
  const old = r.status ?? {};
  const name = r.metadata.name;
  const counts = s.hashCounts.get(countKey(r.spec.hash, r.spec.number)) ?? { total: 0, ready: 0, ongoing: 0 };
  const inv = s.invalid.has(name);
  const invalidation = s.invalidations.get(name);
  // The failure record is kept whatever happens next (superseded, invalid, retried), and grows
  // when a node that took this revision forward fails it after it was superseded.
  const record = s.records.get(name);
  const failedNodes = record?.failedNodes ?? invalidation?.failedNodes ?? old.failedNodes ?? [];
  const retriedBy = s.revisions.find((x) => x.spec.retryOf === name)?.metadata.name ?? old.retriedBy;
  const retry = retryCondition(r, retriedBy, s.inputHash);
  const conds: ConditionInput[] = inv
    ? [
        {
          type: 'Invalid',
          status: 'True',
          reason: invalidReason(invalidation, old),
          message: invalidation?.reason ?? invalidMessage(old),
        },
        {
          type: 'Progressing',
          status: 'False',
          reason: 'Invalid',
          message: 'revision is invalid; nodes roll back',
        },
        { type: 'Complete', status: 'False', reason: 'Invalid', message: 'revision is invalid' },
        ...(retry ? [retry] : []),
      ]
    : [
        {
          type: 'Progressing',
          status: 'False',
          reason: 'Superseded',
          message: s.desired ? `superseded by ${s.desired.metadata.name}` : 'not desired',
        },
        {
          type: 'Invalid',
          status: 'False',
          reason: 'Valid',
          message: 'no more than --max-failures nodes failed',
        },
        ...(hasCondition(old.conditions, 'Complete')
          ? []
          : [
              {
                type: 'Complete',
                status: 'False' as const,
                reason: 'Superseded',
                message: 'superseded before completion',
              },
            ]),
      ];
  return {
    ...old,
    total: counts.total,
    queued: 0,
    ongoing: counts.ongoing,
    ready: counts.ready,
    // Set once (issue 35): some node ran it, even if it is superseded now.
    ...(old.ranAt || counts.ready > 0 ? { ranAt: old.ranAt ?? nowText } : {}),
    failed: record?.failed ?? old.failed ?? 0,
    isInvalid: inv,
    ...(failedNodes.length ? { failedNodes } : {}),
    ...(retriedBy ? { retriedBy } : {}),
    conditions: setConditions(old.conditions, conds, nowText),
  };
}

/** The answer to `kubectl annotate ncr <invalid> network.nodenet.io/retry=…`, as a condition. */
function retryCondition(
  r: NetworkConfigRevision,
  retriedBy: string | undefined,
  inputHash: string | undefined,
): ConditionInput | undefined {
  if (retriedBy)
    return {
      type: 'RetryRequested',
      status: 'True',
      reason: 'Retried',
      message: `retried as ${retriedBy}; this revision is kept for inspection`,
    };
  if (r.metadata.annotations?.[RETRY_ANNOTATION] === undefined) return undefined;
  if (inputHash !== undefined && inputHash !== r.spec.hash)
    return {
      type: 'RetryRequested',
      status: 'False',
      reason: 'InputsChanged',
      message: `the inputs no longer produce this configuration (they produce ${shortHash(inputHash)}): nothing to retry`,
    };
  return {
    type: 'RetryRequested',
    status: 'True',
    reason: 'Pending',
    message: 'a new attempt is being created',
  };
}

export function revisionStatuses(s: StatusInput): StatusUpdate[] {
  const nowText = rfc3339(s.now);
  const out: StatusUpdate[] = [];
  for (const r of s.revisions) {
    const isDesired = s.desired !== undefined && r.metadata.name === s.desired.metadata.name;
    const next = withReadableState(
      r,
      withRanOn(r.status, isDesired ? desiredStatus(r, s, nowText) : otherStatus(r, s, nowText)),
      isDesired,
      nowText,
    );
    if (canonicalJson(next) !== canonicalJson(r.status ?? {}))
      out.push({ revision: r.metadata.name, status: next });
  }
  return out;
}

/** A node already listed with the same message keeps its `at`: the status is not rewritten every pass. */
export function keepTimes(list: FailedNode[], old: readonly FailedNode[] | undefined): FailedNode[] {
  const before = new Map((old ?? []).map((f) => [`${f.node}|${f.message}`, f.at]));
  return list.map((f) => ({ ...f, at: before.get(`${f.node}|${f.message}`) ?? f.at }));
}

/** Why a revision is invalid: decided in this pass, or as its status says. */
function invalidReason(invalidation: Invalidation | undefined, s: NetworkConfigRevisionStatus): string {
  if (invalidation?.aborted) return 'Aborted';
  if (invalidation?.carries) return CARRIES_REASON;
  if (invalidation) return 'NodesFailed';
  return findCondition(s.conditions, 'Invalid', 'True')?.reason ?? 'NodesFailed';
}

function invalidMessage(s: NetworkConfigRevisionStatus): string {
  const c = findCondition(s.conditions, 'Invalid');
  if (c && c.status === 'True') return c.message;
  const nodes = (s.failedNodes ?? []).map((f) => `${f.node}: ${f.message}`).join('; ');
  return nodes ? `failed nodes: ${nodes}` : 'marked invalid';
}
