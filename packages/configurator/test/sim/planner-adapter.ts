/**
 * The ONE place where the fleet simulator touches the planner's API (issue 23): the build step
 * (inputs to revisions), one controller pass (observe, plan, carry the plan out on the in-memory
 * objects as execute.ts does against the API server), what a leader change forgets, and the
 * operator's controls as they are written on the objects. Everything else in test/sim speaks of
 * API objects (NetworkConfigRevision, NodeConfig) and abstract inputs only, so a new planner API is
 * adapted here.
 */
import {
  API_VERSION,
  ASSIGNED_AT_ANNOTATION,
  HIGHEST_NUMBER_ANNOTATION,
  MOVE_ANNOTATION,
  REVISION_NUMBER_LABEL,
  RETRY_ANNOTATION,
  canonicalJson,
  nodeConfigSpec,
  rfc3339Millis,
  type FailedNode,
  type Inputs,
  type Layer2NetworkConfiguration,
  type MoveKind,
  type NetworkConfigRevision,
  type NodeConfig,
} from '@nodenet/api';
import {
  DEFAULT_POLICY,
  EMPTY_REVISION_NAME,
  buildRevision,
  emptyRevision,
  effectivePolicy,
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

/** What the simulator stores: the API objects the planner reads and writes. */
export interface Store {
  revisions: Map<string, NetworkConfigRevision>;
  nodeConfigs: Map<string, NodeConfig>;
}

/** An abstract input: a name, a generation (bumped on every write) and a value (its content). */
export interface SimInput {
  generation: number;
  value: number;
}

/** A Node as the planner sees it (the simulator's kubelet and taints). */
export interface NodeView {
  name: string;
  labels: Record<string, string>;
  ready: boolean;
  deleting: boolean;
  /** Taint keys on the Node (the agent's start-up taint among them while it has not succeeded). */
  taints: string[];
}

/** The agent's start-up taint key (removed after its first success). */
export const STARTUP_TAINT = 'node.nodenet.io/unready';

/** Knobs the histories set; the rest are the planner's defaults. */
export interface PolicyKnobs {
  limit: number;
  maxFailures: number;
  preconfigTimeoutMs?: number;
  configTimeoutMs?: number;
  notReadyTimeoutMs?: number;
  minSuccessTimeMs?: number;
  paused?: boolean;
  nodeSelector?: Record<string, string>;
  /** Knobs of the RolloutPolicy `default` (strings as a person writes them, e.g. `0s`). */
  rolloutPolicy?: {
    preconfigTimeout?: string;
    configTimeout?: string;
    notReadyTimeout?: string;
    minSuccessTime?: string;
  };
}

/** The flags with the RolloutPolicy `default` knobs over them, as the controller reads them. */
const withKnobs = (k: PolicyKnobs) =>
  effectivePolicy(flagPolicy(k), {
    apiVersion: API_VERSION,
    kind: 'RolloutPolicy',
    metadata: { name: 'default' },
    spec: { ...k.rolloutPolicy },
  });

export const policyOf = (k: PolicyKnobs): Policy => (k.rolloutPolicy ? withKnobs(k).policy : flagPolicy(k));

/** The RolloutPolicy knobs refused (each keeps the flag's value), as the planner reports them. */
export const refusedKnobs = (k: PolicyKnobs): string[] => withKnobs(k).problems;

function flagPolicy(k: PolicyKnobs): Policy {
  return {
    ...DEFAULT_POLICY,
    updateLimit: { kind: 'count', count: k.limit },
    maxFailures: k.maxFailures,
    ...(k.preconfigTimeoutMs !== undefined ? { preconfigTimeoutMs: k.preconfigTimeoutMs } : {}),
    ...(k.configTimeoutMs !== undefined ? { configTimeoutMs: k.configTimeoutMs } : {}),
    ...(k.notReadyTimeoutMs !== undefined ? { notReadyTimeoutMs: k.notReadyTimeoutMs } : {}),
    ...(k.minSuccessTimeMs !== undefined ? { minSuccessTimeMs: k.minSuccessTimeMs } : {}),
    ...(k.paused ? { paused: true } : {}),
    ...(k.nodeSelector ? { nodeSelector: { matchLabels: k.nodeSelector } } : {}),
  };
}

// ------------------------------------------------------------------ inputs and revisions

const INPUT_BASE_MTU = 1500;
/** Inputs are Layer-2 networks; the value is carried in the MTU, the name gives the VLAN id. */
function inputObjects(inputs: ReadonlyMap<string, SimInput>): Inputs {
  const names = [...inputs.keys()].sort();
  const layer2: Layer2NetworkConfiguration[] = names.map((name) => {
    const i = inputs.get(name) as SimInput;
    const id = 10 + name.charCodeAt(0) - 96 + (name.length > 1 ? 30 * (name.charCodeAt(1) - 47) : 0);
    return {
      apiVersion: API_VERSION,
      kind: 'Layer2NetworkConfiguration',
      metadata: { name, generation: i.generation, uid: `uid-${name}` },
      spec: { id, vni: 10_000 + id, mtu: INPUT_BASE_MTU + i.value },
    };
  });
  return { vrf: [], layer2, routingTable: [] };
}

/** A revision's content: input name to value. */
export function contentOf(r: NetworkConfigRevision): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of r.spec.config.layer2) out[e.name] = e.mtu - INPUT_BASE_MTU;
  return out;
}

export type BuildOutcome =
  { created: NetworkConfigRevision; reason: string; retryOf?: string } | { note: string };

/** One build step (the controller's, without I/O): maybe a new revision, written into the store. */
export function buildStep(store: Store, inputs: ReadonlyMap<string, SimInput>, now: number): BuildOutcome {
  const result = buildRevision(inputObjects(inputs), [...store.revisions.values()], now);
  const d = result.decision;
  if (d.action !== 'create') return { note: `${d.action}: ${d.reason}` };
  const created: NetworkConfigRevision = {
    ...d.revision,
    metadata: { ...d.revision.metadata, uid: `uid-${d.revision.metadata.name}` },
  };
  store.revisions.set(created.metadata.name, created);
  return { created, reason: d.reason, ...(d.retryOf ? { retryOf: d.retryOf.metadata.name } : {}) };
}

/** The hash the current inputs produce (the planner keeps an invalid revision with it). */
export function inputHashOf(
  store: Store,
  inputs: ReadonlyMap<string, SimInput>,
  now: number,
): string | undefined {
  return buildRevision(inputObjects(inputs), [...store.revisions.values()], now).hash;
}

// ------------------------------------------------------------------ operator controls on objects

const patchRevision = (
  store: Store,
  name: string,
  f: (r: NetworkConfigRevision) => NetworkConfigRevision,
): void => {
  const r = store.revisions.get(name);
  if (r) store.revisions.set(name, f(r));
};

export const setRevisionPaused = (store: Store, name: string, paused: boolean): void =>
  patchRevision(store, name, (r) => ({ ...r, spec: { ...r.spec, paused } }));

/** `kubectl delete nc <node>` (or the Node re-registered): the planner writes a new one. */
export const deleteNodeConfig = (store: Store, node: string): boolean => store.nodeConfigs.delete(node);

export const abortRevision = (store: Store, name: string): void =>
  patchRevision(store, name, (r) => ({ ...r, spec: { ...r.spec, aborted: true } }));

/** `kubectl annotate ncr <invalid> retry=now`; the next build step creates the new attempt. */
export const requestRetry = (store: Store, name: string): void =>
  patchRevision(store, name, (r) => ({
    ...r,
    metadata: { ...r.metadata, annotations: { ...r.metadata.annotations, [RETRY_ANNOTATION]: 'now' } },
  }));

export const isInvalid = (r: NetworkConfigRevision): boolean => r.status?.isInvalid === true;
export const isCompleted = (r: NetworkConfigRevision): boolean => r.status?.completedAt !== undefined;

// ------------------------------------------------------------------ NodeConfigs as the agent reads them

/** The move kind the configurator wrote on a NodeConfig. */
export const moveOf = (nc: NodeConfig): MoveKind =>
  (nc.metadata.annotations?.[MOVE_ANNOTATION] ?? 'forward') as MoveKind;
/** The revision number a NodeConfig was handed. */
export const numberOf = (nc: NodeConfig): number => Number(nc.metadata.labels?.[REVISION_NUMBER_LABEL] ?? 0);
/** The agent's key for "a new assignment": generation and assigned-at. */
export const assignmentKey = (nc: NodeConfig): string =>
  `${nc.metadata.generation ?? 0}|${nc.metadata.annotations?.[ASSIGNED_AT_ANNOTATION] ?? ''}`;

// ------------------------------------------------------------------ one pass

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
 * order is never moved), limitPlusOne (one more slot than the limit).
 */
export type Sabotage =
  'ignorePause' | 'ignoreFailures' | 'shortConfigTimeout' | 'skipLastNode' | 'limitPlusOne';

function sabotaged(s: Sabotage | undefined, policy: Policy, revisions: NetworkConfigRevision[]) {
  if (s === 'ignorePause')
    return {
      policy: { ...policy, paused: false },
      revisions: revisions.map((r) => (r.spec.paused ? { ...r, spec: { ...r.spec, paused: false } } : r)),
    };
  if (s === 'ignoreFailures') return { policy: { ...policy, maxFailures: 1000 }, revisions };
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
  sabotage?: Sabotage;
  /** Plan with the incremental planner, and throw when its plan differs from plan()'s (issue 26). */
  incremental?: IncrementalPlanner;
}

/** The incremental planner's plan, checked against the reference plan() of the same input. */
function checkedIncremental(planner: IncrementalPlanner, args: Parameters<typeof plan>[0]) {
  const p = planner.plan(args);
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

function nodeInfo(n: NodeView): NodeInfo {
  const info = {
    name: n.name,
    uid: `uid-${n.name}`,
    labels: n.labels,
    ready: n.ready,
    ...(n.deleting ? { deleting: true } : {}),
    // Not read by today's planner; a planner that holds tainted nodes finds it here.
    taints: n.taints.map((key) => ({ key, effect: 'NoSchedule' })),
  };
  return info as NodeInfo;
}

const specFor = (r: NetworkConfigRevision, n: NodeView) =>
  nodeConfigSpec({ config: r.spec.config, hash: r.spec.hash }, n.labels);

/** A hash of the node's spec per revision and node labels (the controller's NodeSpecCache plays this part). */
function memoHash(of: (spec: NodeConfig['spec']) => string) {
  const memo = new WeakMap<NetworkConfigRevision['spec'], Map<string, string>>();
  return (r: NetworkConfigRevision, labels: Record<string, string>): string => {
    let m = memo.get(r.spec);
    if (!m) memo.set(r.spec, (m = new Map()));
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

/** One controller pass on the store: observe, plan, then carry out the plan as execute.ts does. */
export function runPass(input: PassInput): PassResult {
  const { store, policy, mono, now } = input;
  const infos = input.nodes.map(nodeInfo);
  const ncs = [...store.nodeConfigs.values()];
  const observations = observe(input.observations, infos, ncs, mono);
  const broken = sabotaged(input.sabotage, policy, [...store.revisions.values()]);
  const args: Parameters<typeof plan>[0] = {
    revisions: broken.revisions,
    nodes: infos,
    nodeConfigs: ncs,
    now,
    mono,
    observations,
    policy: broken.policy,
    specHash: (r, n) => specHashOf(r, n.labels),
    contentHash: (r, n) => contentHashOf(r, n.labels),
    ...(input.inputHash ? { inputHash: input.inputHash } : {}),
  };
  const p = input.incremental ? checkedIncremental(input.incremental, args) : plan(args);
  const events: PassEvent[] = [];
  const statuses = new Map(p.statusUpdates.map((s) => [s.revision, s.status]));
  const byName = new Map(input.nodes.map((n) => [n.name, n]));
  const last = [...byName.keys()].sort().at(-1);
  if (input.sabotage === 'skipLastNode')
    p.actions = p.actions.filter((a) => a.type !== 'assign' || a.node !== last);
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
    if (a.type === 'assign') {
      // The empty config (the last-resort fallback) is no stored revision.
      const r = a.revision === EMPTY_REVISION_NAME ? emptyRevision() : store.revisions.get(a.revision);
      const n = byName.get(a.node);
      if (!r || !n || n.deleting) continue;
      const want = nodeConfigFor(
        r,
        { metadata: { name: n.name, uid: `uid-${n.name}`, labels: n.labels } },
        {
          spec: specFor(r, n),
          move: a.move,
          ...(a.attempt !== undefined ? { attempt: a.attempt } : {}),
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
      events.push({
        kind: 'assign',
        node: a.node,
        revision: a.revision,
        number: a.number,
        move: a.move,
        reason: a.reason,
      });
    } else if (a.type === 'markHighestNumber') {
      const r = store.revisions.get(a.revision);
      if (r)
        store.revisions.set(a.revision, {
          ...r,
          metadata: {
            ...r.metadata,
            annotations: { ...r.metadata.annotations, [HIGHEST_NUMBER_ANNOTATION]: String(a.number) },
          },
        });
    } else if (a.type === 'deleteNodeConfig') {
      if (store.nodeConfigs.delete(a.name)) events.push({ kind: 'collect', node: a.name, reason: a.reason });
    }
    // labelNodeConfig (rows for `kubectl get nc`) and labelDesired are for people only.
  }
  for (const [name, status] of statuses) {
    const r = store.revisions.get(name);
    if (r) store.revisions.set(name, { ...r, status });
  }
  for (const a of p.actions) {
    if (a.type === 'deleteRevision' && store.revisions.delete(a.revision))
      events.push({ kind: 'deleteRevision', revision: a.revision, reason: a.reason });
  }
  return {
    observations,
    events,
    ...(p.desired ? { desired: p.desired } : {}),
    limit: p.limit,
    ...(p.requeueAfterMs !== undefined ? { requeueAfterMs: p.requeueAfterMs } : {}),
  };
}

/** What a new leader starts with: no observations (its timers start afresh). */
export const freshObservations = (): Observations => new Map();
