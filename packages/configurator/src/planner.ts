/**
 * The rollout planner: a pure function of (revisions, nodes, NodeConfigs, now, policy) that says
 * what to do next and when to look again. Everything it knows is derived from per-node status every
 * time (invariant 2), so a crash anywhere can not leave a slot taken.
 *
 * Per target node, relative to the desired revision:
 * - upToDate   its NodeConfig carries the desired hash and the agent reported `provisioned` for it;
 * - soaking    up to date for less than --min-success-time: still holds its slot;
 * - pending    assigned, the agent has not reported on it yet (preconfig timeout from assigned-at);
 * - provisioning  the agent reported `provisioning` (config timeout from the agent's lastUpdate);
 * - failed     the agent reported `invalid`, or one of the two timeouts passed;
 * - outdated   anything else: waits for a free slot.
 * A node busy with a revision that is no longer desired keeps its slot and is handed the desired
 * revision at once. NotReady, deleted and unselected nodes are not targets: they hold no slot and
 * never count as failures; a node's timers restart when it becomes Ready again.
 */
import {
  ASSIGNED_AT_ANNOTATION,
  REVISION_NUMBER_LABEL,
  canonicalJson,
  matchesSelector,
  type FailedNode,
  type NetworkConfigRevision,
  type NetworkConfigRevisionStatus,
  type NodeConfig,
} from '@nodenet/api';
import { setConditions, rfc3339, type ConditionInput } from './conditions.js';
import { formatDuration } from './duration.js';
import { updateLimitFor, type Policy } from './policy.js';

export interface NodeInfo {
  name: string;
  uid?: string;
  labels: Record<string, string>;
  ready: boolean;
  /** When the node last became Ready (ms); timers never start before it. */
  readySinceMs?: number;
  /** The Node is being deleted. */
  deleting?: boolean;
}

export interface PlanInput {
  revisions: readonly NetworkConfigRevision[];
  nodes: readonly NodeInfo[];
  nodeConfigs: readonly NodeConfig[];
  now: number;
  policy: Policy;
  /** Hash the inputs currently produce: an invalid revision with it is never cleaned up. */
  inputHash?: string;
}

export type NodeState = 'upToDate' | 'soaking' | 'pending' | 'provisioning' | 'failed' | 'outdated';

export type Action =
  | {
      type: 'assign';
      node: string;
      revision: string;
      hash: string;
      number: number;
      /** The hash the node had (undefined: new NodeConfig). */
      from?: string;
      /** The node leaves a revision that was marked invalid. */
      rollback: boolean;
      reason: string;
    }
  | { type: 'invalidate'; revision: string; failedNodes: FailedNode[]; reason: string }
  | { type: 'deleteNodeConfig'; name: string; reason: string }
  | { type: 'deleteRevision'; revision: string; reason: string };

export interface StatusUpdate {
  revision: string;
  status: NetworkConfigRevisionStatus;
}

export interface Plan {
  desired?: { name: string; hash: string; number: number };
  actions: Action[];
  /** Revision statuses that differ from what the objects carry. */
  statusUpdates: StatusUpdate[];
  /** Look again after this long even if nothing changes (a timeout or soak ends). */
  requeueAfterMs?: number;
  /** Nodes by state relative to the desired revision, after the actions (for metrics and logs). */
  nodeStates: Record<NodeState | 'notTarget', number>;
  limit: number;
  inProgress: number;
}

interface Classified {
  node: NodeInfo;
  nc: NodeConfig | undefined;
  state: NodeState;
  /** On a non-desired hash while the agent is still working on it: holds a slot. */
  busyElsewhere?: boolean;
  /** Must be (re)assigned although its hash is the desired one (missing annotation, retry). */
  reassign?: string;
  failure?: FailedNode;
}

const parseTime = (s: string | undefined): number | undefined => {
  if (!s) return undefined;
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : t;
};

/**
 * What the planner reads from a NodeConfig's text fields, parsed once per object: the informer
 * replaces an object on every change and never mutates it, so a pass over 1,000 unchanged
 * NodeConfigs costs map lookups instead of 2,000 Date.parse calls and condition scans.
 */
interface NodeConfigFacts {
  assignedAt: number | undefined;
  lastUpdate: number | undefined;
  about: boolean;
}
const factsCache = new WeakMap<NodeConfig, NodeConfigFacts>();
function factsOf(nc: NodeConfig): NodeConfigFacts {
  let f = factsCache.get(nc);
  if (!f) {
    f = {
      assignedAt: parseTime(nc.metadata.annotations?.[ASSIGNED_AT_ANNOTATION]),
      lastUpdate: parseTime(nc.status?.lastUpdate),
      about: reportsOnSpec(nc),
    };
    factsCache.set(nc, f);
  }
  return f;
}

const isInvalid = (r: NetworkConfigRevision): boolean => r.status?.isInvalid === true;
const byNumberDesc = (a: NetworkConfigRevision, b: NetworkConfigRevision): number =>
  b.spec.number - a.spec.number;

/** Deterministic start order: wave label value (numeric when both are numbers; unlabelled last), then name. */
export function compareNodes(waveLabel: string | undefined): (a: NodeInfo, b: NodeInfo) => number {
  return (a, b) => {
    if (waveLabel) {
      const wa = a.labels[waveLabel];
      const wb = b.labels[waveLabel];
      if (wa !== wb) {
        if (wa === undefined) return 1;
        if (wb === undefined) return -1;
        const na = /^-?\d+$/.test(wa) ? Number(wa) : NaN;
        const nb = /^-?\d+$/.test(wb) ? Number(wb) : NaN;
        if (!Number.isNaN(na) && !Number.isNaN(nb)) return na - nb;
        return wa < wb ? -1 : 1;
      }
    }
    return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  };
}

/**
 * Whether the agent's status answers the NodeConfig's current spec. The agent records the
 * generation it answered in its conditions' `observedGeneration` (and `lastAppliedRevision` is what
 * is on the host afterwards, the restored revision after a failure); without generations, a status
 * naming the spec's revision as applied answers it.
 */
export function reportsOnSpec(nc: NodeConfig): boolean {
  const st = nc.status;
  if (!st) return false;
  const gens = (st.conditions ?? [])
    .map((c) => c.observedGeneration)
    .filter((g): g is number => g !== undefined);
  if (gens.length > 0 && nc.metadata.generation !== undefined) return gens.includes(nc.metadata.generation);
  return st.lastAppliedRevision === nc.spec.revision;
}

/** Whether a NodeConfig's agent is still working on its current spec (so it holds a slot). */
function busyOnCurrentSpec(nc: NodeConfig, node: NodeInfo, now: number, policy: Policy): boolean {
  const st = nc.status;
  const base = node.readySinceMs ?? 0;
  const facts = factsOf(nc);
  if (st && facts.about) {
    if (st.configStatus !== 'provisioning') return false;
    const last = Math.max(facts.lastUpdate ?? 0, base);
    return now - last <= policy.configTimeoutMs;
  }
  const assigned = facts.assignedAt;
  if (assigned === undefined) return false;
  return now - Math.max(assigned, base) <= policy.preconfigTimeoutMs;
}

function classify(
  node: NodeInfo,
  nc: NodeConfig | undefined,
  desired: NetworkConfigRevision,
  now: number,
  policy: Policy,
  deadlines: number[],
): Classified {
  if (!nc) return { node, nc, state: 'outdated' };
  const hash = nc.spec.revision;
  if (hash !== desired.spec.hash) {
    return { node, nc, state: 'outdated', busyElsewhere: busyOnCurrentSpec(nc, node, now, policy) };
  }
  const st = nc.status;
  const base = node.readySinceMs ?? 0;
  const { assignedAt, about, lastUpdate } = factsOf(nc);
  if (st?.configStatus === 'provisioned' && st.lastAppliedRevision === hash) {
    const soakEnd = (lastUpdate ?? 0) + policy.minSuccessTimeMs;
    if (policy.minSuccessTimeMs > 0 && soakEnd > now) {
      deadlines.push(soakEnd);
      return { node, nc, state: 'soaking' };
    }
    return { node, nc, state: 'upToDate' };
  }
  if (assignedAt === undefined) {
    // Somebody else wrote this NodeConfig (or an old configurator): hand it over properly.
    return { node, nc, state: 'pending', reassign: 'NodeConfig has no assignment time' };
  }
  if (about && st?.configStatus === 'invalid' && (lastUpdate ?? 0) >= assignedAt) {
    const numberLabel = nc.metadata.labels?.[REVISION_NUMBER_LABEL];
    if (numberLabel !== undefined && numberLabel !== String(desired.spec.number)) {
      // The failure belongs to an earlier revision with the same content that a person deleted to
      // allow a retry: assign again so that the agent tries again.
      return {
        node,
        nc,
        state: 'pending',
        reassign: `retry of a configuration that failed under revision ${numberLabel}`,
      };
    }
    return {
      node,
      nc,
      state: 'failed',
      failure: {
        node: node.name,
        message: st.message || 'agent reported invalid',
        at: st.lastUpdate ?? rfc3339(now),
      },
    };
  }
  if (about && st?.configStatus === 'provisioning') {
    const start = Math.max(lastUpdate ?? assignedAt, base);
    const deadline = start + policy.configTimeoutMs;
    if (now > deadline) {
      return {
        node,
        nc,
        state: 'failed',
        failure: {
          node: node.name,
          message: `config timeout: agent reported provisioning at ${st.lastUpdate ?? '(unknown)'} and nothing since for ${formatDuration(policy.configTimeoutMs)}`,
          at: rfc3339(deadline),
        },
      };
    }
    deadlines.push(deadline);
    return { node, nc, state: 'provisioning' };
  }
  const start = Math.max(assignedAt, base);
  const deadline = start + policy.preconfigTimeoutMs;
  if (now > deadline) {
    return {
      node,
      nc,
      state: 'failed',
      failure: {
        node: node.name,
        message: `preconfig timeout: agent did not report on the assignment of ${nc.metadata.annotations?.[ASSIGNED_AT_ANNOTATION]} within ${formatDuration(policy.preconfigTimeoutMs)}`,
        at: rfc3339(deadline),
      },
    };
  }
  deadlines.push(deadline);
  return { node, nc, state: 'pending' };
}

export function plan(input: PlanInput): Plan {
  const { policy, now } = input;
  const actions: Action[] = [];
  const deadlines: number[] = [];
  const nowText = rfc3339(now);

  const nodeByName = new Map(input.nodes.map((n) => [n.name, n]));
  const ncByName = new Map(input.nodeConfigs.map((nc) => [nc.metadata.name, nc]));

  // NodeConfigs of nodes that are gone are collected; that is never a failure.
  for (const nc of input.nodeConfigs) {
    if (!nodeByName.has(nc.metadata.name) && !nc.metadata.deletionTimestamp) {
      actions.push({
        type: 'deleteNodeConfig',
        name: nc.metadata.name,
        reason: `node ${nc.metadata.name} no longer exists`,
      });
    }
  }

  const targets = input.nodes
    .filter((n) => n.ready && !n.deleting && matchesSelector(policy.nodeSelector, n.labels))
    .sort(compareNodes(policy.waveLabel));
  const limit = updateLimitFor(policy.updateLimit, targets.length);

  const revisions = [...input.revisions].sort(byNumberDesc);
  const invalidNow = new Set(revisions.filter(isInvalid).map((r) => r.metadata.name));
  const invalidations = new Map<string, { failedNodes: FailedNode[]; reason: string }>();
  const invalidHashes = (): Set<string> =>
    new Set(revisions.filter((r) => invalidNow.has(r.metadata.name)).map((r) => r.spec.hash));

  let desired: NetworkConfigRevision | undefined;
  let classified: Classified[] = [];
  // Invalidation makes the previous valid revision desired in the same pass.
  for (;;) {
    desired = revisions.find((r) => !invalidNow.has(r.metadata.name));
    if (!desired) break;
    const d = desired;
    deadlines.length = 0;
    classified = targets.map((n) => classify(n, ncByName.get(n.name), d, now, policy, deadlines));
    const failures = classified.filter((c) => c.state === 'failed');
    if (failures.length <= policy.maxFailures) break;
    const failedNodes = failures.map((c) => c.failure as FailedNode).slice(0, policy.maxFailedNodes);
    const names = failures.map((c) => c.node.name);
    const reason =
      `${failures.length} node(s) failed, more than --max-failures=${policy.maxFailures}: ` +
      failures
        .slice(0, 5)
        .map((c) => `${c.node.name}: ${c.failure?.message}`)
        .join('; ') +
      (names.length > 5 ? `; and ${names.length - 5} more` : '');
    invalidNow.add(d.metadata.name);
    invalidations.set(d.metadata.name, { failedNodes, reason });
    actions.push({ type: 'invalidate', revision: d.metadata.name, failedNodes, reason });
  }

  const nodeStates: Record<NodeState | 'notTarget', number> = {
    upToDate: 0,
    soaking: 0,
    pending: 0,
    provisioning: 0,
    failed: 0,
    outdated: 0,
    notTarget: input.nodes.length - targets.length,
  };
  let inProgress = 0;
  if (desired) {
    const d = desired;
    const bad = invalidHashes();
    const paused = d.spec.paused === true;
    const assign = (c: Classified, reason: string): void => {
      const from = c.nc?.spec.revision;
      actions.push({
        type: 'assign',
        node: c.node.name,
        revision: d.metadata.name,
        hash: d.spec.hash,
        number: d.spec.number,
        ...(from !== undefined ? { from } : {}),
        rollback: from !== undefined && bad.has(from),
        reason,
      });
    };
    // Nodes that hold a slot: pending, provisioning, soaking, and busy with a revision no longer desired.
    for (const c of classified) {
      if (c.state === 'pending' || c.state === 'provisioning' || c.state === 'soaking' || c.busyElsewhere)
        inProgress++;
    }
    if (!paused) {
      for (const c of classified) {
        if (c.reassign) assign(c, c.reassign);
        else if (c.busyElsewhere) {
          assign(
            c,
            `node was busy with ${c.nc?.spec.revision.slice(0, 10)}, which is no longer desired; keeps its slot`,
          );
          c.state = 'pending';
        }
      }
      let free = Math.max(0, limit - inProgress);
      // Nodes leaving an invalid revision go first, then the deterministic order.
      const waiting = classified.filter((c) => c.state === 'outdated' && !c.busyElsewhere);
      const ordered = [
        ...waiting.filter((c) => c.nc && bad.has(c.nc.spec.revision)),
        ...waiting.filter((c) => !(c.nc && bad.has(c.nc.spec.revision))),
      ];
      for (const c of ordered) {
        if (free === 0) break;
        free--;
        inProgress++;
        const why = !c.nc
          ? 'new node'
          : bad.has(c.nc.spec.revision)
            ? `rollback from invalid revision ${c.nc.spec.revision.slice(0, 10)}`
            : `outdated (${c.nc.spec.revision.slice(0, 10)})`;
        assign(c, `${why}; slot ${limit - free}/${limit}`);
        c.state = 'pending';
      }
    } else {
      for (const c of classified) if (c.busyElsewhere) c.state = 'outdated';
    }
    for (const c of classified) nodeStates[c.state]++;
  }

  // Revision statuses, derived from the nodes every time.
  const statusUpdates: StatusUpdate[] = [];
  const hashCounts = new Map<string, { total: number; ready: number; ongoing: number }>();
  for (const n of targets) {
    const nc = ncByName.get(n.name);
    if (!nc) continue;
    const h = nc.spec.revision;
    const e = hashCounts.get(h) ?? { total: 0, ready: 0, ongoing: 0 };
    e.total++;
    if (nc.status?.lastAppliedRevision === h && nc.status.configStatus === 'provisioned') e.ready++;
    else if (busyOnCurrentSpec(nc, n, now, policy)) e.ongoing++;
    hashCounts.set(h, e);
  }
  for (const r of revisions) {
    const name = r.metadata.name;
    const old = r.status ?? {};
    let next: NetworkConfigRevisionStatus;
    if (desired && name === desired.metadata.name) {
      const total = targets.length;
      const ready = nodeStates.upToDate + nodeStates.soaking;
      const ongoing = nodeStates.pending + nodeStates.provisioning;
      const failed = nodeStates.failed;
      const queued = Math.max(0, total - ready - ongoing - failed);
      const complete = queued === 0 && ongoing === 0;
      const failedNodes = classified
        .filter((c) => c.state === 'failed')
        .map((c) => c.failure as FailedNode)
        .slice(0, policy.maxFailedNodes);
      const paused = desired.spec.paused === true;
      const summary = `${ready}/${total} nodes ready, ${ongoing} in progress, ${queued} queued, ${failed} failed`;
      const conds: ConditionInput[] = [
        complete
          ? { type: 'Progressing', status: 'False', reason: 'RolloutComplete', message: summary }
          : paused
            ? { type: 'Progressing', status: 'False', reason: 'Paused', message: `paused: ${summary}` }
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
      ];
      next = {
        total,
        queued,
        ongoing,
        ready,
        failed,
        isInvalid: false,
        ...(failedNodes.length ? { failedNodes } : {}),
        startedAt: old.startedAt ?? nowText,
        ...(complete ? { completedAt: old.completedAt ?? nowText } : {}),
        conditions: setConditions(old.conditions, conds, nowText),
      };
    } else {
      const counts = hashCounts.get(r.spec.hash) ?? { total: 0, ready: 0, ongoing: 0 };
      const inv = invalidNow.has(name);
      const invalidation = invalidations.get(name);
      const failedNodes = invalidation?.failedNodes ?? old.failedNodes ?? [];
      const conds: ConditionInput[] = inv
        ? [
            {
              type: 'Invalid',
              status: 'True',
              reason: 'NodesFailed',
              message: invalidation?.reason ?? invalidMessage(old),
            },
            {
              type: 'Progressing',
              status: 'False',
              reason: 'Invalid',
              message: 'revision is invalid; nodes roll back',
            },
            { type: 'Complete', status: 'False', reason: 'Invalid', message: 'revision is invalid' },
          ]
        : [
            {
              type: 'Progressing',
              status: 'False',
              reason: 'Superseded',
              message: desired ? `superseded by ${desired.metadata.name}` : 'not desired',
            },
            {
              type: 'Invalid',
              status: 'False',
              reason: 'Valid',
              message: 'no more than --max-failures nodes failed',
            },
            ...(findStatus(old, 'Complete') === 'True'
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
      next = {
        total: counts.total,
        queued: 0,
        ongoing: counts.ongoing,
        ready: counts.ready,
        failed: inv ? failedNodes.length : 0,
        isInvalid: inv,
        ...(failedNodes.length && inv ? { failedNodes } : {}),
        ...(old.startedAt ? { startedAt: old.startedAt } : {}),
        ...(old.completedAt ? { completedAt: old.completedAt } : {}),
        conditions: setConditions(old.conditions, conds, nowText),
      };
    }
    if (canonicalJson(next) !== canonicalJson(old)) statusUpdates.push({ revision: name, status: next });
  }

  // History cleanup: keep the newest `revisionHistoryLimit`, the desired one, the rollback target,
  // every revision a NodeConfig references, and an invalid one the inputs still produce.
  const referenced = new Set(input.nodeConfigs.map((nc) => nc.spec.revision));
  const rollbackTarget = desired
    ? revisions.find((r) => r.spec.number < desired!.spec.number && !invalidNow.has(r.metadata.name))
    : undefined;
  let kept = 0;
  for (const r of revisions) {
    const protectedBy =
      desired && r.metadata.name === desired.metadata.name
        ? 'desired'
        : rollbackTarget && r.metadata.name === rollbackTarget.metadata.name
          ? 'rollback target'
          : referenced.has(r.spec.hash)
            ? 'referenced'
            : invalidNow.has(r.metadata.name) && r.spec.hash === input.inputHash
              ? 'invalid, equal to the inputs'
              : undefined;
    if (kept < policy.revisionHistoryLimit || protectedBy) {
      kept++;
      continue;
    }
    actions.push({
      type: 'deleteRevision',
      revision: r.metadata.name,
      reason: `beyond --revision-history-limit=${policy.revisionHistoryLimit} and referenced by no NodeConfig`,
    });
  }

  const next = deadlines.length ? Math.min(...deadlines) : undefined;
  return {
    ...(desired
      ? { desired: { name: desired.metadata.name, hash: desired.spec.hash, number: desired.spec.number } }
      : {}),
    actions,
    statusUpdates,
    ...(next !== undefined ? { requeueAfterMs: Math.max(0, next - now) + 1 } : {}),
    nodeStates,
    limit,
    inProgress,
  };
}

const findStatus = (s: NetworkConfigRevisionStatus, type: string): string | undefined =>
  s.conditions?.find((c) => c.type === type)?.status;

function invalidMessage(s: NetworkConfigRevisionStatus): string {
  const c = s.conditions?.find((x) => x.type === 'Invalid');
  if (c && c.status === 'True') return c.message;
  const nodes = (s.failedNodes ?? []).map((f) => `${f.node}: ${f.message}`).join('; ');
  return nodes ? `failed nodes: ${nodes}` : 'marked invalid';
}
