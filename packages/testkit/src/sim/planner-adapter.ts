/**
 * With planner-pass.ts (one controller pass), the ONE place where the fleet simulator touches the
 * planner's API (issue 23): the build step (inputs to revisions), the policy, and the operator's
 * controls as they are written on the objects. Everything else in sim/ speaks of API objects
 * (NetworkConfigRevision, NodeConfig) and abstract inputs only, so a new planner API is adapted here.
 */
import {
  API_VERSION,
  ASSIGNED_AT_ANNOTATION,
  MOVE_ANNOTATION,
  REVISION_NUMBER_LABEL,
  RETRY_ANNOTATION,
  inputGenerations,
  type Inputs,
  DISRUPTION_CLASSES,
  type DisruptionClass,
  type DisruptiveRollout,
  type Layer2NetworkConfiguration,
  type MoveKind,
  type NetworkConfigRevision,
  type NodeConfig,
} from '@nodenet/api';
import {
  DEFAULT_POLICY,
  buildRevision,
  effectivePolicy,
  updateLimitFor,
  type DisruptivePolicy,
  type Policy,
} from '@nodenet/configurator';

export type { Policy };

/** The class the configurator records for a revision with this hash; undefined (one in six): never known. */
export function drawnDisruption(hash: string): DisruptionClass | undefined {
  return DISRUPTION_CLASSES[parseInt(hash.slice(0, 8), 16) % (DISRUPTION_CLASSES.length + 1)];
}

/** The update limit of RolloutPolicy spec.disruptive as a node count for this many targets. */
export const disruptiveLimitFor = (d: DisruptivePolicy, targets: number): number =>
  updateLimitFor(d.updateLimit, targets);

/** What the simulator stores: the API objects the planner reads and writes. */
export interface Store {
  revisions: Map<string, NetworkConfigRevision>;
  nodeConfigs: Map<string, NodeConfig>;
}

/** An abstract input: a name, a generation (bumped on every write) and a value (its content). */
export interface SimInput {
  generation: number;
  value: number;
  /** Its nodeSelector: only nodes labelled `zone=<zone>` carry it (undefined: every node). */
  zone?: string;
}

/** A Node as the planner sees it (the simulator's kubelet and taints). */
export interface NodeView {
  name: string;
  uid: string;
  labels: Record<string, string>;
  ready: boolean;
  deleting: boolean;
  /** Taint keys on the Node (the agent's start-up taint among them while it has not succeeded). */
  taints: string[];
  /** The agent's liveness Lease renewal marker (NodeInfo.renewal); absent: no Lease. */
  renewal?: string;
}

/** The agent's start-up taint key (removed after its first success). */
export const STARTUP_TAINT = 'node.nodenet.io/unready';

/** Knobs the histories set; the rest are the planner's defaults. */
export interface PolicyKnobs {
  /** --update-limit as a count (replaced by `limitPercent` when that is set). */
  limit: number;
  /** --update-limit as a percentage of the target nodes. */
  limitPercent?: number;
  /** Waves: nodes start in the order of this label's value; barriers when `waveBarrier`. */
  waveLabel?: string;
  waveBarrier?: boolean;
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
    disruptive?: DisruptiveRollout;
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
    updateLimit:
      k.limitPercent !== undefined
        ? { kind: 'percent', percent: k.limitPercent }
        : { kind: 'count', count: k.limit },
    ...(k.waveLabel !== undefined ? { waveLabel: k.waveLabel } : {}),
    ...(k.waveBarrier !== undefined ? { waveBarrier: k.waveBarrier } : {}),
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
    // A third character (issue 35's 55 inputs i00..i54) keeps the ids distinct.
    const id =
      10 +
      name.charCodeAt(0) -
      96 +
      (name.length > 1 ? 30 * (name.charCodeAt(1) - 47) : 0) +
      (name.length > 2 ? 300 * (name.charCodeAt(2) - 47) : 0);
    return {
      apiVersion: API_VERSION,
      kind: 'Layer2NetworkConfiguration',
      metadata: { name, generation: i.generation, uid: `uid-${name}` },
      spec: {
        id,
        vni: 10_000 + id,
        mtu: INPUT_BASE_MTU + i.value,
        ...(i.zone !== undefined ? { nodeSelector: { matchLabels: { zone: i.zone } } } : {}),
      },
    };
  });
  return { vrf: [], layer2, routingTable: [] };
}

/** Whether a node with these labels carries the revision's entry for `input` (its nodeSelector's zone). */
export function carriesInput(
  r: NetworkConfigRevision,
  input: string,
  labels: Record<string, string>,
): boolean {
  const e = r.spec.config.layer2.find((x) => x.name === input);
  const zone = e?.nodeSelector?.matchLabels?.zone;
  return e !== undefined && (zone === undefined || labels.zone === zone);
}

/** The revision's content as a node with these labels carries it: the inputs whose nodeSelector takes it. */
export function nodeContentOf(
  r: NetworkConfigRevision,
  labels: Record<string, string>,
): Record<string, number> {
  return Object.fromEntries(Object.entries(contentOf(r)).filter(([k]) => carriesInput(r, k, labels)));
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
  // The configurator records the class before it plans (issue 39); drawn here, sometimes never known.
  const worst = drawnDisruption(d.revision.spec.hash);
  const created: NetworkConfigRevision = {
    ...d.revision,
    metadata: { ...d.revision.metadata, uid: `uid-${d.revision.metadata.name}` },
    ...(worst ? { status: { ...d.revision.status, disruption: { worst, nodes: {} } } } : {}),
  };
  store.revisions.set(created.metadata.name, created);
  return { created, reason: d.reason, ...(d.retryOf ? { retryOf: d.retryOf.metadata.name } : {}) };
}

/** Each input's generation as the planner reads it when it invalidates a revision (follow-up writes). */
export const inputGenerationsOf = (inputs: ReadonlyMap<string, SimInput>): Map<string, number> =>
  inputGenerations(inputObjects(inputs));

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
