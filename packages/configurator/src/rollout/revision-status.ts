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
import { formatDuration } from '../duration.js';
import type { Policy } from '../policy.js';
import type { Verdict } from './classify.js';
import { countKey, withReadableState } from './readable.js';
import type { NodeState, StatusUpdate } from './types.js';

export interface Invalidation {
  failedNodes: FailedNode[];
  reason: string;
  aborted?: boolean;
}

export interface StatusInput {
  revisions: readonly NetworkConfigRevision[];
  desired: NetworkConfigRevision | undefined;
  /** Target verdicts and their states after the assignments. */
  verdicts: readonly Verdict[];
  states: ReadonlyMap<string, NodeState>;
  invalid: ReadonlySet<string>;
  invalidations: ReadonlyMap<string, Invalidation>;
  /** Per revision (countKey of hash and number): target nodes on it, ready ones, and ones still in progress. */
  hashCounts: ReadonlyMap<string, { total: number; ready: number; ongoing: number }>;
  now: number;
  policy: Policy;
  /** Hash the inputs currently produce (for the answer to a retry request). */
  inputHash?: string;
  /** Forward moves of the desired revision are held: this node went NotReady after taking it. */
  heldBy?: string;
}

const summaryOf = (v: { ready: number; total: number; ongoing: number; queued: number; failed: number }) =>
  `${v.ready}/${v.total} nodes ready, ${v.ongoing} in progress, ${v.queued} queued, ${v.failed} failed`;

function desiredStatus(
  r: NetworkConfigRevision,
  s: StatusInput,
  nowText: string,
): NetworkConfigRevisionStatus {
  const old = r.status ?? {};
  const count = (...st: NodeState[]): number =>
    s.verdicts.filter((v) => st.includes(s.states.get(v.name) as NodeState)).length;
  const failedV = s.verdicts.filter((v) => s.states.get(v.name) === 'failed');
  const failedNodes = keepTimes(
    failedV.filter((v) => v.counts).map((v) => v.failure as FailedNode),
    old.failedNodes,
  );
  const degradedNodes = keepTimes(
    failedV.filter((v) => !v.counts).map((v) => v.failure as FailedNode),
    old.degradedNodes,
  );
  const total = s.verdicts.length;
  const ready = count('upToDate', 'soaking');
  const ongoing = count('pending', 'provisioning', 'notReady');
  const failed = failedNodes.length;
  const degraded = degradedNodes.length;
  const queued = Math.max(0, total - ready - ongoing - failed - degraded);
  const complete = queued === 0 && ongoing === 0;
  const fleet = s.policy.paused === true;
  const paused = r.spec.paused === true || fleet;
  const summary =
    summaryOf({ ready, total, ongoing, queued, failed }) + (degraded ? `, ${degraded} degraded` : '');
  const conds: ConditionInput[] = [
    complete
      ? { type: 'Progressing', status: 'False', reason: 'RolloutComplete', message: summary }
      : paused
        ? { type: 'Progressing', status: 'False', reason: 'Paused', message: `paused: ${summary}` }
        : s.heldBy !== undefined
          ? {
              type: 'Progressing',
              status: 'True',
              reason: 'HeldByNotReadyNode',
              message: `${summary}; no new forward moves while node ${s.heldBy} is NotReady after taking this revision (it fails after --not-ready-timeout=${formatDuration(s.policy.notReadyTimeoutMs)})`,
            }
          : { type: 'Progressing', status: 'True', reason: 'RollingOut', message: summary },
    complete
      ? {
          type: 'Complete',
          status: 'True',
          reason: failed > 0 ? 'CompleteWithFailures' : 'AllNodesReady',
          message: summary,
        }
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
          message: `${degraded} node(s) failed after the rollout or on a rollback (reported, not counted against the revision): ${degradedNodes
            .slice(0, 5)
            .map((d) => `${d.node}: ${d.message}`)
            .join('; ')}${degraded > 5 ? '; …' : ''}`,
        }
      : { type: 'Degraded', status: 'False', reason: 'NoDegradedNodes', message: 'no degraded nodes' },
  ];
  // completedAt is set once: a later join or rollback never moves it.
  const completedAt = old.completedAt ?? (complete ? nowText : undefined);
  return {
    total,
    queued,
    ongoing,
    ready,
    failed,
    degraded,
    isInvalid: false,
    ...(failedNodes.length ? { failedNodes: failedNodes.slice(0, s.policy.maxFailedNodes) } : {}),
    ...(degradedNodes.length ? { degradedNodes: degradedNodes.slice(0, s.policy.maxFailedNodes) } : {}),
    ...(old.retriedBy ? { retriedBy: old.retriedBy } : {}),
    startedAt: old.startedAt ?? nowText,
    ...(completedAt ? { completedAt } : {}),
    conditions: setConditions(old.conditions, conds, nowText),
  };
}

function otherStatus(r: NetworkConfigRevision, s: StatusInput, nowText: string): NetworkConfigRevisionStatus {
  const old = r.status ?? {};
  const name = r.metadata.name;
  const counts = s.hashCounts.get(countKey(r.spec.hash, r.spec.number)) ?? { total: 0, ready: 0, ongoing: 0 };
  const inv = s.invalid.has(name);
  const invalidation = s.invalidations.get(name);
  // The failure record is kept whatever happens next (superseded, invalid, retried).
  const failedNodes = invalidation?.failedNodes ?? old.failedNodes ?? [];
  const retriedBy = s.revisions.find((x) => x.spec.retryOf === name)?.metadata.name ?? old.retriedBy;
  const retry = retryCondition(r, retriedBy, s.inputHash);
  const conds: ConditionInput[] = inv
    ? [
        {
          type: 'Invalid',
          status: 'True',
          reason: invalidation?.aborted ? 'Aborted' : invalidation ? 'NodesFailed' : invalidReason(old),
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
    failed: inv ? failedNodes.length : (old.failed ?? 0),
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
      isDesired ? desiredStatus(r, s, nowText) : otherStatus(r, s, nowText),
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

function invalidReason(s: NetworkConfigRevisionStatus): string {
  return findCondition(s.conditions, 'Invalid', 'True')?.reason ?? 'NodesFailed';
}

function invalidMessage(s: NetworkConfigRevisionStatus): string {
  const c = findCondition(s.conditions, 'Invalid');
  if (c && c.status === 'True') return c.message;
  const nodes = (s.failedNodes ?? []).map((f) => `${f.node}: ${f.message}`).join('; ');
  return nodes ? `failed nodes: ${nodes}` : 'marked invalid';
}
