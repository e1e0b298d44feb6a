/**
 * The rollout planner: a pure function of (revisions, nodes, NodeConfigs, observations, clocks,
 * policy) that says what to do next and when to look again. Rollout state is derived from per-node
 * status every time (invariant 2); deadlines come from this configurator's own observations
 * (invariant 9). The parts: classify (per node), slots, revision status, history.
 */
import {
  REVISION_NUMBER_LABEL,
  revisionBefore,
  type FailedNode,
  type NetworkConfigRevision,
} from '@nodenet/api';
import { updateLimitFor } from '../policy/policy.js';
import { classify, type Verdict } from './classify.js';
import { countedFailures, failureRecord, nodeSummary, type FailureRecord } from './failures.js';
import { historyCleanup } from './history.js';
import {
  EMPTY_REVISION_NAME,
  assignedRevision,
  chooseDesired,
  indexRevisions,
  isCompleted,
  targetFor,
} from './identity.js';
import { compareNodes } from './order.js';
import { revisionStatuses, type Invalidation } from './revision-status.js';
import { highWaterMarks } from './numbers.js';
import { countKey, desiredLabels } from './readable.js';
import { rowLabelActions } from './rows.js';
import { fillSlots, type SlotResult } from './slots.js';
import { carriesSuspect, effectiveSuspects, holdsBack } from './suspects.js';
import type { Action, NodeInfo, NodeState, Plan, PlanInput } from './types.js';
import { movesUnchanged } from './unchanged.js';
import type { VerdictMemo } from './incremental.js';

/** Longest requeue: a far deadline is looked at again within the hour (and setTimeout's 2^31-1 ms cap is never reached). */
export const MAX_REQUEUE_MS = 3_600_000;

const byNumberDesc = (a: NetworkConfigRevision, b: NetworkConfigRevision): number =>
  b.spec.number - a.spec.number;

/** `memo` keeps verdicts between passes (incremental.ts); without it, every node is classified afresh. */
export function plan(input: PlanInput, memo?: VerdictMemo): Plan {
  const { policy, mono, now } = input;
  const nodeByName = new Map(input.nodes.map((n) => [n.name, n]));
  const ncByName = new Map(input.nodeConfigs.map((nc) => [nc.metadata.name, nc]));
  const names = [...new Set([...nodeByName.keys(), ...ncByName.keys()])];
  const revisions = [...input.revisions].sort(byNumberDesc);
  const index = indexRevisions(revisions);
  const invalid = new Set(revisions.filter((r) => r.status?.isInvalid === true).map((r) => r.metadata.name));
  const invalidations = new Map<string, Invalidation>();
  const actions: Action[] = [];
  const markInvalid = (r: NetworkConfigRevision, inv: Invalidation): void => {
    invalid.add(r.metadata.name);
    invalidations.set(r.metadata.name, inv);
    actions.push({ type: 'invalidate', revision: r.metadata.name, ...inv });
  };
  // A person aborted a revision (spec.aborted): invalid at once, like a failure, whether or not it
  // is desired right now (it never will be again). A revision that completed is not aborted: abort
  // stops a rollout, it does not undo one (that would move every node at once, away from the last
  // known-good revision); `kubectl nodenet abort` refuses it, and a revert of the inputs undoes it
  // gradually.
  for (const r of revisions) {
    if (r.spec.aborted !== true || invalid.has(r.metadata.name) || isCompleted(r)) continue;
    markInvalid(r, {
      failedNodes: [...(r.status?.failedNodes ?? [])],
      aborted: true,
      reason: `aborted (spec.aborted): the nodes that took revision ${r.spec.number} roll back`,
    });
  }

  // Each node is classified against its target: the desired revision, or the known-good fallback of
  // an invalid assignment, or the revision of a failed rollback (identity.ts targetFor).
  const verdictsFor = (d: NetworkConfigRevision): Verdict[] => {
    const kept = memo?.pass(revisions, d, invalid, policy, mono);
    return names.map((name) => {
      const node = nodeByName.get(name);
      const nc = ncByName.get(name);
      const obs = input.observations.get(name);
      const known = kept?.get(name, node, nc, obs);
      if (known) return known;
      const t = targetFor(nc, nc && assignedRevision(nc, index), d, revisions, invalid);
      const v = classify(name, node, nc, obs, {
        desired: t,
        index,
        invalid,
        policy,
        mono,
        now,
        ...(node && input.specHash ? { expectedSpecHash: input.specHash(t, node) } : {}),
      });
      const out = t === d ? v : { ...v, target: t, onDesired: false };
      const verdict = movesUnchanged(out, t, invalid, input) ? { ...out, unchanged: true } : out;
      kept?.set(name, node, nc, obs, verdict);
      return verdict;
    });
  };

  // Failures count against the revision that was assigned, desired or not, and are counted from
  // its record (failures.ts). Invalidating one changes the desired revision (identity.ts) and with
  // it the verdicts: repeat until nothing more is invalidated (each round invalidates one more).
  let desired: NetworkConfigRevision | undefined;
  let verdicts: Verdict[] = [];
  let records = new Map<string, FailureRecord>();
  for (;;) {
    desired = chooseDesired(revisions, invalid).desired;
    verdicts = desired ? verdictsFor(desired) : [];
    records = failureRecords(revisions, verdicts, policy.maxFailedNodes);
    let more = false;
    // Oldest first: a revision that failed on its own is invalid before a newer one could inherit
    // its failures; the newer one is then a carrier of its suspects (below).
    for (const r of [...revisions].reverse()) {
      if (invalid.has(r.metadata.name)) continue;
      const rec = records.get(r.metadata.name) as FailureRecord;
      const counted = countedFailures(r, supersededSince(r, revisions, invalid), records);
      if (counted.failed <= policy.maxFailures) continue;
      const inherited = counted.inheritedFrom.length
        ? ` (its change failed nodes on superseded revision(s) ${counted.inheritedFrom.join(', ')} too, counted with its own)`
        : '';
      markInvalid(r, {
        failedNodes: rec.failedNodes,
        reason: `${counted.failed} node(s) failed${inherited}, more than --max-failures=${policy.maxFailures}: ${nodeSummary(rec.failedNodes, rec.failed)}`,
      });
      more = true;
    }
    for (const [r, bad] of carriers(revisions, invalid, invalidations)) {
      markInvalid(r, {
        failedNodes: [...(r.status?.failedNodes ?? [])],
        carries: true,
        reason: `carries ${bad.ref} of invalid revision ${bad.revision.spec.number}, which is held back (a new revision is built without it)`,
      });
      more = true;
    }
    if (!more) break;
  }

  const order = compareNodes(policy.waveLabel);
  // The empty config (no revision may be desired) is no object: nothing to label, count or keep.
  const empty = desired?.metadata.name === EMPTY_REVISION_NAME;
  const targets = verdicts.filter((v) => v.state !== undefined).sort((a, b) => order(infoOf(a), infoOf(b)));
  // A percentage is of the nodes that can move (unavailable ones wait, like DaemonSet's unscheduled pods).
  const limit = updateLimitFor(policy.updateLimit, targets.filter((v) => v.state !== 'unavailable').length);
  const invalidHashes = new Set(
    revisions.filter((r) => invalid.has(r.metadata.name)).map((r) => r.spec.hash),
  );
  const slots: SlotResult = desired
    ? fillSlots({
        verdicts: targets,
        desired,
        limit,
        invalidHashes,
        invalidNames: invalid,
        fleetPaused: policy.paused === true,
        mono,
        ...(policy.waveLabel
          ? { wave: { label: policy.waveLabel, barrier: policy.waveBarrier === true } }
          : {}),
      })
    : { assignments: [], states: new Map<string, NodeState>(), inProgress: 0 };
  actions.push(...slots.assignments);

  // NodeConfigs of nodes that are gone are collected, unless the node is in flight (it holds its
  // slot until it fails) or its failure is not in the revision's record yet (written this pass).
  const unrecorded = new Set([...records.values()].flatMap((r) => r.fresh.map((f) => f.node)));
  for (const name of names) {
    const nc = ncByName.get(name);
    if (!nc || nodeByName.has(name) || nc.metadata.deletionTimestamp) continue;
    if (slots.states.get(name) === 'notReady' || unrecorded.has(name)) continue;
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
    records,
    hashCounts,
    now,
    policy,
    ...(input.inputHash ? { inputHash: input.inputHash } : {}),
    ...(slots.heldBy !== undefined ? { heldBy: slots.heldBy } : {}),
    ...(slots.wave ? { wave: slots.wave } : {}),
  });
  const deletions = historyCleanup({
    revisions,
    desired: empty ? undefined : desired,
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
  actions.push(
    ...highWaterMarks(kept),
    ...desiredLabels(kept, empty ? undefined : desired?.metadata.name),
    ...deletions,
  );

  const nodeStates: Record<NodeState | 'notTarget', number> = {
    upToDate: 0,
    soaking: 0,
    pending: 0,
    provisioning: 0,
    notReady: 0,
    failed: 0,
    unavailable: 0,
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

/** Per revision, its failure record after this pass's counted failures. */
function failureRecords(
  revisions: readonly NetworkConfigRevision[],
  verdicts: readonly Verdict[],
  max: number,
): Map<string, FailureRecord> {
  const fresh = new Map<string, FailedNode[]>();
  for (const v of verdicts) {
    if (!v.failure || !v.counts || v.failedRevision === undefined) continue;
    fresh.set(v.failedRevision, [...(fresh.get(v.failedRevision) ?? []), v.failure]);
  }
  return new Map(
    revisions.map((r) => [r.metadata.name, failureRecord(r, fresh.get(r.metadata.name) ?? [], max)]),
  );
}

/**
 * The valid revisions older than `r` and newer than the last completed one before it that never
 * completed themselves: whose failures `r` inherits when it carries their change (failures.ts).
 */
function supersededSince(
  r: NetworkConfigRevision,
  revisions: readonly NetworkConfigRevision[],
  invalid: ReadonlySet<string>,
): NetworkConfigRevision[] {
  const isInvalid = (x: NetworkConfigRevision): boolean => invalid.has(x.metadata.name);
  const floor = revisionBefore(r, revisions, isInvalid)?.spec.number ?? 0;
  return revisions.filter(
    (x) => x.spec.number < r.spec.number && x.spec.number > floor && !isInvalid(x) && !isCompleted(x),
  );
}

/** Valid revisions that carry a suspect of an invalid one that holds its suspects back (suspects.ts). */
function carriers(
  revisions: readonly NetworkConfigRevision[],
  invalid: ReadonlySet<string>,
  invalidations: ReadonlyMap<string, Invalidation>,
): Array<[NetworkConfigRevision, { revision: NetworkConfigRevision; ref: string }]> {
  const out: Array<[NetworkConfigRevision, { revision: NetworkConfigRevision; ref: string }]> = [];
  const isInvalid = (x: NetworkConfigRevision): boolean => invalid.has(x.metadata.name);
  for (const bad of revisions) {
    if (!isInvalid(bad)) continue;
    const inv = invalidations.get(bad.metadata.name);
    if (
      inv
        ? inv.carries === true
        : !holdsBack({ ...bad, status: { ...bad.status, isInvalid: true } }, revisions)
    )
      continue;
    const suspects = effectiveSuspects(bad, revisions, isInvalid);
    if (suspects.length === 0) continue;
    for (const r of revisions) {
      if (isInvalid(r) || out.some(([x]) => x === r)) continue;
      const s = carriesSuspect(r, bad, suspects);
      if (s) out.push([r, { revision: bad, ref: `${s.kind}/${s.name}` }]);
    }
  }
  return out;
}
