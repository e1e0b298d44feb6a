/**
 * The rollout planner: a pure function of (revisions, nodes, NodeConfigs, observations, clocks,
 * policy) that says what to do next and when to look again. Rollout state is derived from per-node
 * status every time (invariant 2); deadlines come from this configurator's own observations
 * (invariant 9). The parts: classify (per node), slots, revision status, history.
 */
import { REVISION_NUMBER_LABEL, type FailedNode, type NetworkConfigRevision } from '@nodenet/api';
import { updateLimitFor } from '../policy.js';
import { classify, type Verdict } from './classify.js';
import { historyCleanup } from './history.js';
import { compareNodes } from './order.js';
import { revisionStatuses, type Invalidation } from './revision-status.js';
import { highWaterMarks } from './numbers.js';
import { countKey, desiredLabels } from './readable.js';
import { rowLabelActions } from './rows.js';
import { fillSlots, type SlotResult } from './slots.js';
import type { Action, NodeInfo, NodeState, Plan, PlanInput } from './types.js';

/** Longest requeue: a far deadline is looked at again within the hour (and setTimeout's 2^31-1 ms cap is never reached). */
export const MAX_REQUEUE_MS = 3_600_000;

const byNumberDesc = (a: NetworkConfigRevision, b: NetworkConfigRevision): number =>
  b.spec.number - a.spec.number;

export function plan(input: PlanInput): Plan {
  const { policy, mono, now } = input;
  const nodeByName = new Map(input.nodes.map((n) => [n.name, n]));
  const ncByName = new Map(input.nodeConfigs.map((nc) => [nc.metadata.name, nc]));
  const names = [...new Set([...nodeByName.keys(), ...ncByName.keys()])];
  const revisions = [...input.revisions].sort(byNumberDesc);
  const invalid = new Set(revisions.filter((r) => r.status?.isInvalid === true).map((r) => r.metadata.name));
  const invalidations = new Map<string, Invalidation>();
  const actions: Action[] = [];
  // A person aborted a revision (spec.aborted): invalid at once, like a failure, whether or not it
  // is desired right now (it never will be again).
  for (const r of revisions) {
    if (r.spec.aborted !== true || invalid.has(r.metadata.name)) continue;
    const inv: Invalidation = {
      failedNodes: [],
      aborted: true,
      reason: `aborted (spec.aborted): the nodes that took revision ${r.spec.number} roll back`,
    };
    invalid.add(r.metadata.name);
    invalidations.set(r.metadata.name, inv);
    actions.push({ type: 'invalidate', revision: r.metadata.name, ...inv });
  }

  const verdictsFor = (d: NetworkConfigRevision): Verdict[] =>
    names.map((name) => {
      const node = nodeByName.get(name);
      return classify(name, node, ncByName.get(name), input.observations.get(name), {
        desired: d,
        policy,
        mono,
        now,
        ...(node && input.specHash ? { expectedSpecHash: input.specHash(d, node) } : {}),
      });
    });

  // The desired revision: the newest not invalid. Invalidating it makes the previous valid one
  // desired in the same pass, and its verdicts are taken afresh.
  let desired: NetworkConfigRevision | undefined;
  let verdicts: Verdict[] = [];
  for (;;) {
    desired = revisions.find((r) => !invalid.has(r.metadata.name));
    if (!desired) break;
    verdicts = verdictsFor(desired);
    const inv = invalidation(desired, verdicts, policy.maxFailures, policy.maxFailedNodes);
    if (!inv) break;
    invalid.add(desired.metadata.name);
    invalidations.set(desired.metadata.name, inv);
    actions.push({ type: 'invalidate', revision: desired.metadata.name, ...inv });
  }

  const order = compareNodes(policy.waveLabel);
  const targets = verdicts.filter((v) => v.state !== undefined).sort((a, b) => order(infoOf(a), infoOf(b)));
  const limit = updateLimitFor(policy.updateLimit, targets.length);
  const invalidHashes = new Set(
    revisions.filter((r) => invalid.has(r.metadata.name)).map((r) => r.spec.hash),
  );
  const slots: SlotResult = desired
    ? fillSlots({ verdicts: targets, desired, limit, invalidHashes, fleetPaused: policy.paused === true })
    : { assignments: [], states: new Map<string, NodeState>(), inProgress: 0 };
  actions.push(...slots.assignments);

  // NodeConfigs of nodes that are gone are collected (never a failure), unless the node took the
  // revision being rolled out and still holds its slot.
  for (const name of names) {
    const nc = ncByName.get(name);
    if (!nc || nodeByName.has(name) || nc.metadata.deletionTimestamp) continue;
    if (slots.states.get(name) === 'notReady') continue;
    actions.push({ type: 'deleteNodeConfig', name, reason: `node ${name} no longer exists` });
  }

  const hashCounts = new Map<string, { total: number; ready: number; ongoing: number }>();
  for (const name of names) {
    const node = nodeByName.get(name);
    const nc = ncByName.get(name);
    if (!node || !nc) continue;
    const h = nc.spec.revision;
    // Counted under the revision the NodeConfig was handed (hash and number): a revision with the
    // same config but another number (a retry, an older copy) shows its own nodes only.
    const key = countKey(h, Number(nc.metadata.labels?.[REVISION_NUMBER_LABEL]) || undefined);
    const e = hashCounts.get(key) ?? { total: 0, ready: 0, ongoing: 0 };
    e.total++;
    const st = nc.status;
    if (st?.configStatus === 'provisioned' && st.lastAppliedRevision === h) e.ready++;
    else if (st?.configStatus !== 'invalid') e.ongoing++;
    hashCounts.set(key, e);
  }
  const statusUpdates = revisionStatuses({
    revisions,
    desired,
    verdicts: targets,
    states: slots.states,
    invalid,
    invalidations,
    hashCounts,
    now,
    policy,
    ...(input.inputHash ? { inputHash: input.inputHash } : {}),
    ...(slots.heldBy !== undefined ? { heldBy: slots.heldBy } : {}),
  });
  const deletions = historyCleanup({
    revisions,
    desired,
    invalid,
    nodeConfigs: input.nodeConfigs,
    ...(input.inputHash ? { inputHash: input.inputHash } : {}),
    limit: policy.revisionHistoryLimit,
  });
  const deleted = new Set(deletions.map((d) => d.revision));
  const kept = revisions.filter((r) => !deleted.has(r.metadata.name));
  // Assigned or collected in this pass: those writes set the labels (or remove the object).
  const assignedNow = new Set([
    ...slots.assignments.map((a) => a.node),
    ...actions.flatMap((a) => (a.type === 'deleteNodeConfig' ? [a.name] : [])),
  ]);
  actions.push(...rowLabelActions(input.nodeConfigs, revisions, assignedNow));
  actions.push(...highWaterMarks(kept), ...desiredLabels(kept, desired?.metadata.name), ...deletions);

  const nodeStates: Record<NodeState | 'notTarget', number> = {
    upToDate: 0,
    soaking: 0,
    pending: 0,
    provisioning: 0,
    notReady: 0,
    failed: 0,
    outdated: 0,
    notTarget: names.length - targets.length,
  };
  for (const s of slots.states.values()) nodeStates[s]++;
  const deadlines = targets.map((v) => v.deadline).filter((d): d is number => d !== undefined);
  const next = deadlines.length ? Math.min(...deadlines) : undefined;
  return {
    ...(desired
      ? { desired: { name: desired.metadata.name, hash: desired.spec.hash, number: desired.spec.number } }
      : {}),
    actions,
    statusUpdates,
    ...(next !== undefined ? { requeueAfterMs: clampRequeue(next - mono) } : {}),
    nodeStates,
    limit,
    inProgress: slots.inProgress,
  };
}

/** A delay for setTimeout: at least 1 ms past the deadline, at most MAX_REQUEUE_MS. */
export const clampRequeue = (ms: number): number =>
  Math.min(MAX_REQUEUE_MS, Math.max(0, Number.isFinite(ms) ? ms : MAX_REQUEUE_MS) + 1);

const infoOf = (v: Verdict): NodeInfo => v.node ?? { name: v.name, labels: {}, ready: false };

/** Whether the desired revision is to be marked invalid now, and why. */
function invalidation(
  d: NetworkConfigRevision,
  verdicts: readonly Verdict[],
  maxFailures: number,
  maxFailedNodes: number,
): Invalidation | undefined {
  const failures = verdicts.filter((v) => v.state === 'failed' && v.counts);
  const failedNodes = failures.map((v) => v.failure as FailedNode).slice(0, maxFailedNodes);
  if (failures.length <= maxFailures) return undefined;
  return {
    failedNodes,
    reason:
      `${failures.length} node(s) failed, more than --max-failures=${maxFailures}: ` +
      failures
        .slice(0, 5)
        .map((v) => `${v.name}: ${v.failure?.message}`)
        .join('; ') +
      (failures.length > 5 ? `; and ${failures.length - 5} more` : ''),
  };
}
