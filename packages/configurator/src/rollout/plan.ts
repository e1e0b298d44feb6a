/**
 * The rollout planner: a pure function of (revisions, nodes, NodeConfigs, observations, clocks,
 * policy) that says what to do next and when to look again. Rollout state is derived from per-node
 * status every time (invariant 2); deadlines come from this configurator's own observations
 * (invariant 9). The parts: classify (per node), slots, revision status, history.
 */
import type { NetworkConfigRevision, NodeConfig } from '@nodenet/api';
import { updateLimitFor, type Policy } from '../policy/policy.js';
import { classify, type Subject, type Verdict } from './classify.js';
import { uniform } from './verdict.js';
import { revisionCounts, type RevisionCount } from './counts.js';
import type { FailureRecord } from './failures.js';
import { historyCleanup } from './history.js';
import {
  EMPTY_REVISION_NAME,
  assignedRevision,
  indexRevisions,
  targetFor,
  type RevisionIndex,
} from './identity.js';
import type { VerdictCache } from './verdict-cache.js';
import { InvalidSet, settle } from './invalidation.js';
import { highWaterMarks } from './numbers.js';
import { joinByName } from './observe.js';
import { compareNodes } from './order.js';
import { disruptiveCap } from './disruptive.js';
import { desiredLabels } from './readable.js';
import { revisionStatuses } from './revision-status.js';
import { withFollowUps } from './follow-up-status.js';
import { rowLabelActions } from './rows.js';
import { fillSlots, stateAfter, type SlotResult } from './slots.js';
import type { Action, AssignAction, NodeInfo, NodeState, Plan, PlanInput } from './types.js';
import { movesUnchanged } from './unchanged.js';

/** Longest requeue: a far deadline is looked at again within the hour (and setTimeout's 2^31-1 ms cap is never reached). */
export const MAX_REQUEUE_MS = 3_600_000;

const byNumberDesc = (a: NetworkConfigRevision, b: NetworkConfigRevision): number =>
  b.spec.number - a.spec.number;

/** What one pass reads, joined and sorted once. */
interface Pass {
  input: PlanInput;
  nodeByName: ReadonlyMap<string, NodeInfo>;
  ncByName: ReadonlyMap<string, NodeConfig>;
  /** Every node name (a Node, a NodeConfig, or both). */
  names: readonly string[];
  /** Newest first. */
  revisions: readonly NetworkConfigRevision[];
  index: RevisionIndex;
  invalid: InvalidSet;
  actions: Action[];
  kept: KeptState | undefined;
}

/**
 * What the incremental planner keeps between passes (incremental.ts): the Nodes and NodeConfigs
 * joined by name, the verdicts, and the nodes counted per revision, each equal to what plan()
 * works out afresh from the same input.
 */
export interface KeptState {
  fleet: {
    nodeByName: ReadonlyMap<string, NodeInfo>;
    ncByName: ReadonlyMap<string, NodeConfig>;
    names: readonly string[];
  };
  memo: VerdictCache;
  counts: ReadonlyMap<string, RevisionCount>;
  /** The indexes of `fleet.names` in start order (order.ts KeptStartOrder). */
  startOrder: (waveLabel: string | undefined) => readonly number[];
  /**
   * When the lists hold each name once: the revision hashes the NodeConfigs reference (history.ts),
   * and the NodeConfigs whose row labels may need a write (rows.ts OpenRows), in list order.
   */
  lists?: { referenced: { has(hash: string): boolean }; openRows: () => readonly NodeConfig[] };
}

/** `kept` is what an IncrementalPlanner keeps between passes; without it, everything is worked out afresh. */
export function plan(input: PlanInput, kept?: KeptState): Plan {
  const revisions = [...input.revisions].sort(byNumberDesc);
  const actions: Action[] = [];
  const fleet = kept?.fleet ?? joinByName(input.nodes, input.nodeConfigs);
  const p: Pass = {
    input,
    nodeByName: fleet.nodeByName,
    ncByName: fleet.ncByName,
    names: fleet.names,
    revisions,
    index: indexRevisions(revisions),
    invalid: new InvalidSet(revisions, actions),
    actions,
    kept,
  };
  p.invalid.markAborted();
  const { desired, verdicts, records } = settle(p.invalid, input.policy, (d) =>
    verdictsFor(p, d, kept?.memo),
  );
  const { targets, tally } = inStartOrder(verdicts, input.policy, kept?.startOrder(input.policy.waveLabel));
  const { movable, next, states } = tally;
  // A percentage is of the nodes that can move (unavailable ones wait, like DaemonSet's unscheduled pods).
  const normal = updateLimitFor(input.policy.updateLimit, movable);
  // A disruptive desired revision rolls slower (RolloutPolicy spec.disruptive: disruptive.ts).
  const cap = desired ? disruptiveCap(input.policy, desired, { movable, normal }) : undefined;
  const limit = cap?.limit ?? normal;
  const waveBarrier = cap?.waveBarrier ?? input.policy.waveBarrier === true;
  const slots = desired ? slotsFor(p, { targets, desired, limit, waveBarrier }) : NO_SLOTS;
  actions.push(...slots.assignments, ...goneNodeConfigs(p, { targets, moved: slots.moved }, records));
  const statuses = revisionStatuses({
    revisions,
    desired,
    verdicts: targets,
    moved: slots.moved,
    invalid: p.invalid.names,
    invalidations: p.invalid.decided,
    records,
    hashCounts: kept?.counts ?? revisionCounts(p.ncByName, p.nodeByName),
    now: input.now,
    policy: input.policy,
    ...(input.inputHash ? { inputHash: input.inputHash } : {}),
    ...(slots.heldBy !== undefined ? { heldBy: slots.heldBy } : {}),
    ...(slots.wave ? { wave: slots.wave } : {}),
    ...(cap ? { disruptive: cap } : {}),
  });
  const statusUpdates = withFollowUps(statuses, {
    revisions,
    invalid: p.invalid.names,
    decided: p.invalid.decided,
    inputGenerations: input.inputGenerations,
  });
  actions.push(...bookkeeping(p, desired, slots.assignments));
  return {
    ...(desired
      ? { desired: { name: desired.metadata.name, hash: desired.spec.hash, number: desired.spec.number } }
      : {}),
    actions,
    statusUpdates,
    ...(next !== undefined ? { requeueAfterMs: clampRequeue(next - input.mono) } : {}),
    nodeStates: nodeStateCounts(states, slots.moved, p.names.length - targets.length),
    limit,
    inProgress: slots.inProgress,
  };
}

/**
 * Each node's verdict against its target: the desired revision, or the known-good fallback of an
 * invalid assignment, or the revision of a failed rollback (identity.ts targetFor).
 */
function verdictsFor(p: Pass, desired: NetworkConfigRevision, memo: VerdictCache | undefined): Verdict[] {
  const { input, revisions, index } = p;
  const invalid = p.invalid.names;
  const { policy, mono, now } = input;
  const subject = (name: string): Subject => ({
    name,
    node: p.nodeByName.get(name),
    nc: p.ncByName.get(name),
    observation: input.observations.get(name),
  });
  const make = (s: Subject): Verdict => {
    const { node, nc } = s;
    const t = targetFor({
      nc,
      assigned: nc && assignedRevision(nc, index),
      desired,
      newestFirst: revisions,
      invalid,
    });
    const v = classify(s, {
      desired: t,
      index,
      invalid,
      policy,
      mono,
      now,
      ...(node && input.specHash ? { expectedSpecHash: input.specHash(t, node) } : {}),
    });
    const out = uniform(t === desired ? v : { ...v, target: t, onDesired: false });
    if (movesUnchanged(out, t, invalid, input)) out.unchanged = true;
    return out;
  };
  if (memo)
    return memo.verdicts({ revisions, desired, invalid, policy, mono }, { names: p.names, subject, make });
  return p.names.map((name) => make(subject(name)));
}

/**
 * The target nodes (a verdict with a state) in start order (order.ts), and their tally. With
 * `kept`, the indexes of the verdicts (one per name, in the names' order) in start order: a strict
 * total order, so the targets picked out of it are the targets sorted (and tallied in that walk).
 */
function inStartOrder(
  verdicts: readonly Verdict[],
  policy: Policy,
  kept?: readonly number[],
): { targets: Verdict[]; tally: TargetTally } {
  const tally = newTally();
  if (kept?.length === verdicts.length) {
    const targets: Verdict[] = [];
    for (const i of kept) {
      const v = verdicts[i] as Verdict;
      if (v.state === undefined) continue;
      targets.push(v);
      addTarget(tally, v);
    }
    return { targets, tally };
  }
  const order = compareNodes(policy.waveLabel);
  const targets = verdicts.filter((v) => v.state !== undefined).sort((a, b) => order(infoOf(a), infoOf(b)));
  for (const v of targets) addTarget(tally, v);
  return { targets, tally };
}

const NO_SLOTS: SlotResult = { assignments: [], moved: new Set(), inProgress: 0 };

/** Which target nodes move now (slots.ts). */
function slotsFor(
  p: Pass,
  s: { targets: readonly Verdict[]; desired: NetworkConfigRevision; limit: number; waveBarrier: boolean },
): SlotResult {
  const { policy, mono } = p.input;
  const invalid = p.invalid.names;
  return fillSlots({
    verdicts: s.targets,
    desired: s.desired,
    limit: s.limit,
    invalidHashes: new Set(p.revisions.filter((r) => invalid.has(r.metadata.name)).map((r) => r.spec.hash)),
    invalidNames: invalid,
    fleetPaused: policy.paused === true,
    mono,
    ...(policy.waveLabel ? { wave: { label: policy.waveLabel, barrier: s.waveBarrier } } : {}),
  });
}

/**
 * NodeConfigs of nodes that are gone are collected, unless the node is in flight (it holds its slot
 * until it fails) or its failure is not in the revision's record yet (written this pass). A Node
 * re-created under the name is not the NodeConfig's node (observe.ts joinByName): its NodeConfig
 * goes too, and the new Node gets one of its own, with no status of the old node's (issue 35).
 */
function goneNodeConfigs(
  p: Pass,
  { targets, moved }: { targets: readonly Verdict[]; moved: ReadonlySet<Verdict> },
  records: ReadonlyMap<string, FailureRecord>,
): Action[] {
  const out: Action[] = [];
  // Every name is a Node's: no NodeConfig without one (the common pass) has nothing to collect.
  if (p.names.length === p.nodeByName.size) return out;
  const unrecorded = new Set([...records.values()].flatMap((r) => r.fresh.map((f) => f.node)));
  const inFlight = new Set(targets.filter((v) => stateAfter(v, moved) === 'notReady').map((v) => v.name));
  const reCreated = new Set(p.input.nodes.filter((n) => !p.nodeByName.has(n.name)).map((n) => n.name));
  for (const [name, nc] of p.ncByName) {
    if (p.nodeByName.has(name) || nc.metadata.deletionTimestamp) continue;
    // The old node of a re-created name is gone like any deleted one: in flight, its NodeConfig is
    // kept until it fails (a reinstall of a node a change cut off frees no slot without a failure).
    if (inFlight.has(name) || unrecorded.has(name)) continue;
    const reason = reCreated.has(name)
      ? `node ${name} was re-created (another Node object): its NodeConfig and status are the old node's`
      : `node ${name} no longer exists`;
    out.push({ type: 'deleteNodeConfig', name, reason });
  }
  return out;
}

/**
 * The writes that keep the objects readable and the history bounded: NodeConfig row labels, the
 * high-water mark and desired label of the revisions kept, and the revisions deleted.
 */
function bookkeeping(
  p: Pass,
  desired: NetworkConfigRevision | undefined,
  assignments: readonly AssignAction[],
): Action[] {
  const { input, revisions } = p;
  // The empty config (no revision may be desired) is no object: nothing to label, count or keep.
  const real = desired?.metadata.name === EMPTY_REVISION_NAME ? undefined : desired;
  const deletions = historyCleanup({
    revisions,
    desired: real,
    invalid: p.invalid.names,
    nodeConfigs: input.nodeConfigs,
    ...(input.inputHash ? { inputHash: input.inputHash } : {}),
    limit: input.policy.revisionHistoryLimit,
    ...(p.kept?.lists ? { referenced: p.kept.lists.referenced } : {}),
  });
  const deleted = new Set(deletions.map((d) => d.revision));
  const kept = revisions.filter((r) => !deleted.has(r.metadata.name));
  // Assigned or collected in this pass: those writes set the labels (or remove the object).
  const assignedNow = new Set([
    ...assignments.map((a) => a.node),
    ...p.actions.flatMap((a) => (a.type === 'deleteNodeConfig' ? [a.name] : [])),
  ]);
  return [
    ...rowLabelActions(p.kept?.lists?.openRows() ?? input.nodeConfigs, revisions, assignedNow),
    ...highWaterMarks(kept),
    ...desiredLabels(kept, real?.metadata.name),
    ...deletions,
  ];
}

type StateCounts = Record<NodeState | 'notTarget', number>;

/** Nodes by state after the assignments (the few assigned in this pass are pending now), and the nodes that are no target. */
function nodeStateCounts(before: StateCounts, moved: ReadonlySet<Verdict>, notTarget: number): StateCounts {
  const counts = { ...before, notTarget };
  for (const v of moved) {
    counts[v.state as NodeState]--;
    counts.pending++;
  }
  return counts;
}

/**
 * Of the targets: those that can move (not unavailable), when the first one's verdict changes by
 * itself (undefined: none will), and the targets by their verdicts' state.
 */
interface TargetTally {
  movable: number;
  next: number | undefined;
  states: StateCounts;
}

const newTally = (): TargetTally => ({
  movable: 0,
  next: undefined,
  states: {
    upToDate: 0,
    soaking: 0,
    pending: 0,
    provisioning: 0,
    notReady: 0,
    failed: 0,
    unavailable: 0,
    outdated: 0,
    notTarget: 0,
  },
});

function addTarget(t: TargetTally, v: Verdict): void {
  t.states[v.state as NodeState]++;
  if (v.state !== 'unavailable') t.movable++;
  if (v.deadline !== undefined && (t.next === undefined || v.deadline < t.next)) t.next = v.deadline;
}

/** A delay for setTimeout: at least 1 ms past the deadline, at most MAX_REQUEUE_MS. */
export const clampRequeue = (ms: number): number =>
  Math.min(MAX_REQUEUE_MS, Math.max(0, Number.isFinite(ms) ? ms : MAX_REQUEUE_MS) + 1);

const infoOf = (v: Verdict): NodeInfo => v.node ?? { name: v.name, labels: {}, ready: false };
