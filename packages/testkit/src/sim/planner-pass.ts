/**
 * One controller pass of the fleet simulator on its in-memory objects: observe, plan (or the
 * incremental planner, checked against plan()), then carry the plan out as execute.ts does against
 * the API server. With planner-adapter.ts, the only place the simulator touches the planner's API.
 */
import {
  ASSIGNED_AT_ANNOTATION,
  HIGHEST_NUMBER_ANNOTATION,
  RAN_BEFORE_ANNOTATION,
  fallbackBefore,
  canonicalJson,
  nodeConfigSpec,
  rfc3339Millis,
  type FailedNode,
  type MoveKind,
  type NetworkConfigRevision,
  type NodeConfig,
} from '@nodenet/api';
import {
  EMPTY_REVISION_NAME,
  emptyRevision,
  nodeConfigFor,
  nodeSpecHash,
  observe,
  plan,
  specContentHash,
  type IncrementalPlanner,
  type NodeInfo,
  type Observations,
  type Policy,
} from '@nodenet/configurator';
import type { NodeView, Store } from './planner-adapter.js';
import { sabotagedView, type ObservationSabotage } from './sabotage-view.js';

export type PassEvent =
  | { kind: 'assign'; node: string; revision: string; number: number; move: MoveKind; reason: string }
  | {
      kind: 'invalidate';
      revision: string;
      number: number;
      failedNodes: FailedNode[];
      reason: string;
      aborted: boolean;
    }
  | { kind: 'collect'; node: string; reason: string }
  | { kind: 'deleteRevision'; revision: string; reason: string };

export interface PassResult {
  observations: Observations;
  events: PassEvent[];
  desired?: { name: string; number: number; hash: string };
  limit: number;
  requeueAfterMs?: number;
}

/**
 * Deliberately broken planner rules, to show each invariant catches one (sanity.test.ts):
 * ignorePause (fleet and revision pause unseen), ignoreFailures (max-failures 1000),
 * shortConfigTimeout (config timeout 5 s: slow agents fail), skipLastNode (the last node in start
 * order is never moved), limitPlusOne (one more slot than the limit); issue 35: completedFallback
 * (the planner forgets which revisions ran and what each node ran before: it falls back to the
 * last completed revision, or the empty config, as before issue 35), rollbackToFallback (a node
 * leaving an invalid revision is rolled back to the fallback revision, not to what it ran itself).
 */
export type Sabotage =
  | 'ignorePause'
  | 'ignoreFailures'
  | 'shortConfigTimeout'
  | 'skipLastNode'
  | 'limitPlusOne'
  | 'completedFallback'
  | 'rollbackToFallback'
  /** Issue 39: RolloutPolicy spec.disruptive is not applied (every revision rolls under the normal limit). */
  | 'ignoreDisruptive'
  | ObservationSabotage;

function sabotaged(s: Sabotage | undefined, policy: Policy, revisions: NetworkConfigRevision[]) {
  if (s === 'ignorePause')
    return {
      policy: { ...policy, paused: false },
      revisions: revisions.map((r) => (r.spec.paused ? { ...r, spec: { ...r.spec, paused: false } } : r)),
    };
  if (s === 'ignoreFailures') return { policy: { ...policy, maxFailures: 1000 }, revisions };
  if (s === 'ignoreDisruptive') return { policy: { ...policy, disruptive: undefined }, revisions };
  if (s === 'completedFallback')
    return {
      policy,
      revisions: revisions.map((r) => {
        if (r.status?.ranAt === undefined) return r;
        const { ranAt: _ran, ...status } = r.status;
        return { ...r, status };
      }),
    };
  if (s === 'shortConfigTimeout') return { policy: { ...policy, configTimeoutMs: 5_000 }, revisions };
  if (s === 'limitPlusOne' && policy.updateLimit.kind === 'count')
    return {
      policy: { ...policy, updateLimit: { kind: 'count' as const, count: policy.updateLimit.count + 1 } },
      revisions,
    };
  return { policy, revisions };
}

export interface PassInput {
  store: Store;
  nodes: readonly NodeView[];
  observations: Observations;
  policy: Policy;
  mono: number;
  now: number;
  inputHash?: string;
  /** Each input's current generation (`Kind/name`): recorded as follow-ups when a revision is invalidated. */
  inputGenerations?: () => ReadonlyMap<string, number>;
  sabotage?: Sabotage;
  /** Plan with the incremental planner, and throw when its plan differs from plan()'s (issue 26). */
  incremental?: IncrementalPlanner;
}

/**
 * The incremental planner's plan, checked against the reference plan() of the same input, and its
 * observations against the reference observe()'s (`observations`).
 */
function checkedIncremental(
  planner: IncrementalPlanner,
  args: Parameters<typeof plan>[0],
): ReturnType<typeof plan> {
  const { observations, ...fleet } = args;
  const p = planner.plan(fleet);
  const kept = canonicalJson(Object.fromEntries(planner.observations));
  const observed = canonicalJson(Object.fromEntries(observations));
  if (kept !== observed)
    throw new IncrementalMismatch(
      `incremental observations differ from observe() at mono ${args.mono}:\n incremental ${kept}\n observe()   ${observed}`,
    );
  const keptState = planner.keptDifferences(args.nodeConfigs);
  if (keptState.length > 0)
    throw new IncrementalMismatch(
      `incremental kept state differs at mono ${args.mono}: ${keptState.join('; ')}`,
    );
  const ref = plan(args);
  const got = canonicalJson(p);
  const want = canonicalJson(ref);
  if (got !== want)
    throw new IncrementalMismatch(
      `incremental plan differs from plan() at mono ${args.mono}:\n incremental ${got}\n plan()      ${want}`,
    );
  return p;
}

export class IncrementalMismatch extends Error {}

/**
 * The Node as the planner reads it. Like an informer's, the object stays the same while the Node
 * does, except that every third second of the clock brings a new object with the same content (a
 * kubelet heartbeat): the incremental planner sees both.
 */
function nodeInfo(n: NodeView, mono: number): NodeInfo {
  const key = JSON.stringify([n.uid, n.labels, n.ready, n.deleting, n.taints, n.renewal]);
  const last = lastInfos.get(n.name);
  if (last && last.key === key && Math.floor(mono / 1000) % 3 !== 0) return last.info;
  const info = {
    name: n.name,
    uid: n.uid,
    labels: n.labels,
    ready: n.ready,
    ...(n.deleting ? { deleting: true } : {}),
    // Not read by today's planner; a planner that holds tainted nodes finds it here.
    taints: n.taints.map((key) => ({ key, effect: 'NoSchedule' })),
    ...(n.renewal !== undefined ? { renewal: n.renewal } : {}),
  };
  lastInfos.set(n.name, { key, info });
  return info;
}
/** The last NodeInfo per node name (the same object for the same content, whichever history). */
const lastInfos = new Map<string, { key: string; info: NodeInfo }>();

const specFor = (r: NetworkConfigRevision, n: NodeView) =>
  nodeConfigSpec({ config: r.spec.config, hash: r.spec.hash }, n.labels);

/** A hash of the node's spec per revision and node labels (the controller's NodeSpecCache plays this part). */
function memoHash(of: (spec: NodeConfig['spec']) => string) {
  const memo = new WeakMap<NetworkConfigRevision['spec'], Map<string, string>>();
  return (r: NetworkConfigRevision, labels: Record<string, string>): string => {
    let m = memo.get(r.spec);
    if (!m) memo.set(r.spec, (m = new Map<string, string>()));
    const key = JSON.stringify(labels);
    let h = m.get(key);
    if (h === undefined)
      m.set(key, (h = of(nodeConfigSpec({ config: r.spec.config, hash: r.spec.hash }, labels))));
    return h;
  };
}
const specHashOf = memoHash(nodeSpecHash);
/** The content hash: the spec without its revision reference (issue 26). */
const contentHashOf = memoHash(specContentHash);

/** Sabotage completedFallback: the NodeConfig without what its node ran before its assignment. */
function withoutRanBefore(nc: NodeConfig): NodeConfig {
  const a = nc.metadata.annotations;
  if (a?.[RAN_BEFORE_ANNOTATION] === undefined) return nc;
  const { [RAN_BEFORE_ANNOTATION]: _ran, ...rest } = a;
  return { ...nc, metadata: { ...nc.metadata, annotations: rest } };
}

/** Sabotage rollbackToFallback: every NodeConfig says its node ran the fallback of the newest invalid revision. */
function ranFallback(revisions: readonly NetworkConfigRevision[]): (nc: NodeConfig) => NodeConfig {
  const invalid = (r: NetworkConfigRevision): boolean => r.status?.isInvalid === true;
  const bad = [...revisions].filter(invalid).sort((a, b) => b.spec.number - a.spec.number)[0];
  const f = bad ? fallbackBefore(bad, revisions, invalid) : undefined;
  if (!f) return (nc) => nc;
  return (nc) => ({
    ...nc,
    metadata: {
      ...nc.metadata,
      annotations: { ...nc.metadata.annotations, [RAN_BEFORE_ANNOTATION]: String(f.spec.number) },
    },
  });
}

/** One controller pass on the store: observe, plan, then carry out the plan as execute.ts does. */
export function runPass(input: PassInput): PassResult {
  const { store, policy, mono, now } = input;
  const infos = input.nodes.map((n) => nodeInfo(n, mono));
  const ncs = [...store.nodeConfigs.values()];
  const observations = observe(input.observations, infos, ncs, mono);
  const broken = sabotaged(input.sabotage, policy, [...store.revisions.values()]);
  const shown = sabotagedView(input.sabotage, observations, ncs);
  const args: Parameters<typeof plan>[0] = {
    revisions: broken.revisions,
    nodes: infos,
    nodeConfigs:
      input.sabotage === 'completedFallback'
        ? shown.ncs.map(withoutRanBefore)
        : input.sabotage === 'rollbackToFallback'
          ? shown.ncs.map(ranFallback(broken.revisions))
          : shown.ncs,
    now,
    mono,
    observations: shown.observations,
    policy: broken.policy,
    specHash: (r, n) => specHashOf(r, n.labels),
    contentHash: (r, n) => contentHashOf(r, n.labels),
    ...(input.inputHash ? { inputHash: input.inputHash } : {}),
    ...(input.inputGenerations ? { inputGenerations: input.inputGenerations } : {}),
  };
  const p = input.incremental ? checkedIncremental(input.incremental, args) : plan(args);
  const byName = new Map(input.nodes.map((n) => [n.name, n]));
  const last = [...byName.keys()].sort().at(-1);
  if (input.sabotage === 'skipLastNode')
    p.actions = p.actions.filter((a) => a.type !== 'assign' || a.node !== last);
  const events = carryOut(p, { store, byName, now });
  return {
    observations,
    events,
    ...(p.desired ? { desired: p.desired } : {}),
    limit: p.limit,
    ...(p.requeueAfterMs !== undefined ? { requeueAfterMs: p.requeueAfterMs } : {}),
  };
}

type Plan = ReturnType<typeof plan>;
type PlanAction = Plan['actions'][number];

/** Where a plan is carried out: the objects, the Nodes by name, the wall clock of the pass. */
interface Execution {
  store: Store;
  byName: ReadonlyMap<string, NodeView>;
  now: number;
}

/** Carries out a plan in execute.ts's order: invalidations, assignments, statuses, deletions. */
function carryOut(p: Plan, x: Execution): PassEvent[] {
  const { store } = x;
  const events: PassEvent[] = [];
  const statuses = new Map(p.statusUpdates.map((s) => [s.revision, s.status]));
  for (const a of p.actions) {
    if (a.type !== 'invalidate') continue;
    const r = store.revisions.get(a.revision);
    if (!r) continue;
    const status = statuses.get(a.revision) ?? { ...r.status, isInvalid: true, failedNodes: a.failedNodes };
    statuses.delete(a.revision);
    store.revisions.set(a.revision, { ...r, status });
    events.push({
      kind: 'invalidate',
      revision: a.revision,
      number: r.spec.number,
      failedNodes: a.failedNodes,
      reason: a.reason,
      aborted: a.aborted === true,
    });
  }
  for (const a of p.actions) {
    const e = a.type === 'assign' ? assign(a, x) : writeOther(a, store);
    if (e) events.push(e);
  }
  for (const [name, status] of statuses) {
    const r = store.revisions.get(name);
    if (r) store.revisions.set(name, { ...r, status });
  }
  for (const a of p.actions) {
    if (a.type === 'deleteRevision' && store.revisions.delete(a.revision))
      events.push({ kind: 'deleteRevision', revision: a.revision, reason: a.reason });
  }
  return events;
}

/** Writes the node's NodeConfig for an assignment, as execute.ts patches it. */
function assign(a: Extract<PlanAction, { type: 'assign' }>, x: Execution): PassEvent | undefined {
  const { store, now } = x;
  // The empty config (the last-resort fallback) is no stored revision.
  const r = a.revision === EMPTY_REVISION_NAME ? emptyRevision() : store.revisions.get(a.revision);
  const n = x.byName.get(a.node);
  if (!r || !n || n.deleting) return undefined;
  const want = nodeConfigFor(
    r,
    { metadata: { name: n.name, uid: n.uid, labels: n.labels } },
    {
      spec: specFor(r, n),
      move: a.move,
      ...(a.attempt !== undefined ? { attempt: a.attempt } : {}),
      ...(a.ranBefore !== undefined ? { ranBefore: a.ranBefore } : {}),
      now,
      identity: 'sim',
    },
  );
  const old = store.nodeConfigs.get(a.node);
  const sameSpec = old !== undefined && JSON.stringify(old.spec) === JSON.stringify(want.spec);
  store.nodeConfigs.set(a.node, {
    ...want,
    metadata: {
      ...want.metadata,
      annotations: { ...want.metadata.annotations, [ASSIGNED_AT_ANNOTATION]: rfc3339Millis(now) },
      generation: old ? (old.metadata.generation ?? 1) + (sameSpec ? 0 : 1) : 1,
    },
    ...(old?.status ? { status: old.status } : {}),
  });
  return {
    kind: 'assign',
    node: a.node,
    revision: a.revision,
    number: a.number,
    move: a.move,
    reason: a.reason,
  };
}

/** The highest-number mark and NodeConfig collection; labelNodeConfig and labelDesired are for people only. */
function writeOther(a: PlanAction, store: Store): PassEvent | undefined {
  if (a.type === 'markHighestNumber') {
    const r = store.revisions.get(a.revision);
    if (r)
      store.revisions.set(a.revision, {
        ...r,
        metadata: {
          ...r.metadata,
          annotations: { ...r.metadata.annotations, [HIGHEST_NUMBER_ANNOTATION]: String(a.number) },
        },
      });
  } else if (a.type === 'deleteNodeConfig' && store.nodeConfigs.delete(a.name)) {
    return { kind: 'collect', node: a.name, reason: a.reason };
  }
  return undefined;
}

/** What a new leader starts with: no observations (its timers start afresh). */
export const freshObservations = (): Observations => new Map();

/** One line of the timeline for a pass event. */
export function describeEvent(e: PassEvent): string {
  switch (e.kind) {
    case 'assign':
      return `assign ${e.node} -> rev ${e.number} (${e.move}): ${e.reason}`;
    case 'invalidate':
      return `INVALIDATE rev ${e.number}${e.aborted ? ' (aborted)' : ''}: ${e.reason}`;
    case 'collect':
      return `collect NodeConfig ${e.node}: ${e.reason}`;
    case 'deleteRevision':
      return `delete ${e.revision}: ${e.reason}`;
  }
}
