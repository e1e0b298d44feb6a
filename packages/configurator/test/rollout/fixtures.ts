/** Table-test fixtures for the rollout planner: revisions, nodes, NodeConfigs, observations. */
import {
  ASSIGNED_AT_ANNOTATION,
  MOVE_ANNOTATION,
  REVISION_NUMBER_LABEL,
  type MoveKind,
  type NetworkConfigRevision,
  type NetworkConfigRevisionStatus,
  type NodeConfig,
  type NodeConfigStatus,
} from '@nodenet/api';
import { DEFAULT_POLICY, type Policy } from '@nodenet/configurator';
import type { Action, NodeInfo, NodeObservation, PlanInput } from '@nodenet/configurator';

/** Wall clock of the tests (only written into status) and the monotonic clock (deadlines). */
export const T0 = Date.parse('2025-01-01T00:00:00Z');
export const M0 = 1_000_000_000;
export const iso = (ms: number): string => new Date(ms).toISOString();
export const hash = (c: string): string => c.repeat(64).slice(0, 64);
export const A = hash('a');
export const B = hash('b');
export const C = hash('c');

export function rev(
  number: number,
  h: string,
  extra: {
    invalid?: boolean;
    paused?: boolean;
    aborted?: boolean;
    status?: NetworkConfigRevisionStatus;
  } = {},
): NetworkConfigRevision {
  return {
    apiVersion: 'network.nodenet.io/v1alpha1',
    kind: 'NetworkConfigRevision',
    metadata: { name: `rev-${number}-${h.slice(0, 10)}` },
    spec: {
      config: { vrf: [], layer2: [], routingTable: [] },
      hash: h,
      number,
      ...(extra.paused ? { paused: true } : {}),
      ...(extra.aborted ? { aborted: true } : {}),
    },
    ...(extra.invalid || extra.status
      ? { status: { ...(extra.status ?? {}), ...(extra.invalid ? { isInvalid: true } : {}) } }
      : {}),
  };
}

/** A revision whose rollout completed (failures after it are degraded, never invalidating). */
export const completed = (r: NetworkConfigRevision): NetworkConfigRevision => ({
  ...r,
  status: { ...r.status, startedAt: iso(T0 - 600_000), completedAt: iso(T0 - 300_000) },
});

export const node = (name: string, opts: Partial<NodeInfo> = {}): NodeInfo => ({
  name,
  labels: {},
  ready: true,
  ...opts,
});

export const nodes = (n: number, prefix = 'n'): NodeInfo[] =>
  Array.from({ length: n }, (_, i) => node(`${prefix}${String(i).padStart(2, '0')}`));

export function nc(
  name: string,
  h: string,
  opts: {
    assigned?: boolean;
    number?: number;
    move?: MoveKind;
    status?: NodeConfigStatus;
    generation?: number;
  } = {},
): NodeConfig {
  return {
    apiVersion: 'network.nodenet.io/v1alpha1',
    kind: 'NodeConfig',
    metadata: {
      name,
      generation: opts.generation ?? 1,
      annotations: {
        ...(opts.assigned !== false ? { [ASSIGNED_AT_ANNOTATION]: iso(T0 - 5000) } : {}),
        ...(opts.move ? { [MOVE_ANNOTATION]: opts.move } : {}),
      },
      ...(opts.number !== undefined ? { labels: { [REVISION_NUMBER_LABEL]: String(opts.number) } } : {}),
    },
    spec: { revision: h, vrf: [], layer2: [], routingTable: [] },
    ...(opts.status ? { status: opts.status } : {}),
  };
}

/**
 * Agent statuses as the agent writes them: answering generation 1 (the fixtures' NodeConfigs), with
 * what is on the host in `lastAppliedRevision`. `lastUpdate` is another machine's clock: the planner
 * never compares it.
 */
const answer = (gen: number, at: number) => [
  {
    type: 'Ready',
    status: 'False' as const,
    reason: 'R',
    message: 'm',
    lastTransitionTime: iso(at),
    observedGeneration: gen,
  },
];
export const done = (h: string, lastUpdate = T0, gen = 1): NodeConfigStatus => ({
  configStatus: 'provisioned',
  lastAppliedRevision: h,
  lastUpdate: iso(lastUpdate),
  conditions: answer(gen, lastUpdate),
});
export const provisioning = (onHost: string, lastUpdate = T0, gen = 1): NodeConfigStatus => ({
  configStatus: 'provisioning',
  lastAppliedRevision: onHost,
  lastUpdate: iso(lastUpdate),
  conditions: answer(gen, lastUpdate),
});
export const invalid = (
  onHost: string,
  message = 'frr reload failed',
  lastUpdate = T0,
  gen = 1,
): NodeConfigStatus => ({
  configStatus: 'invalid',
  lastAppliedRevision: onHost,
  lastUpdate: iso(lastUpdate),
  message,
  conditions: answer(gen, lastUpdate),
});

/** When the configurator first saw each fact, in ms before M0 (`ago`); readiness defaults to ready. */
export interface Seen {
  assign?: number;
  status?: number;
  /** The agent's Lease renewal seen (its marker is `r`); absent: no Lease. */
  renewal?: number;
  readiness?: NodeObservation['readiness'];
  readinessFor?: number;
}
export function seen(map: Record<string, Seen>): Map<string, NodeObservation> {
  return new Map(
    Object.entries(map).map(([name, s]) => [
      name,
      {
        assignSince: M0 - (s.assign ?? 0),
        statusSince: M0 - (s.status ?? s.assign ?? 0),
        renewal: s.renewal === undefined ? undefined : 'r',
        renewalSince: M0 - (s.renewal ?? s.assign ?? 0),
        readiness: s.readiness ?? 'ready',
        readinessSince: M0 - (s.readinessFor ?? 3_600_000),
        downMs: 0,
        readyRunMs: 0,
      },
    ]),
  );
}

export function input(
  over: Omit<Partial<PlanInput>, 'policy' | 'observations'> & {
    policy?: Partial<Policy>;
    seen?: Record<string, Seen>;
  },
): PlanInput {
  return {
    revisions: over.revisions ?? [],
    nodes: over.nodes ?? [],
    nodeConfigs: over.nodeConfigs ?? [],
    now: over.now ?? T0,
    mono: over.mono ?? M0,
    observations: seen(over.seen ?? {}),
    // No soak unless a test sets one: the tables are about the other rules (the default is 1m).
    policy: { ...DEFAULT_POLICY, minSuccessTimeMs: 0, ...(over.policy ?? {}) },
    ...(over.inputHash ? { inputHash: over.inputHash } : {}),
    ...(over.specHash ? { specHash: over.specHash } : {}),
  };
}

export const ofType = <K extends Action['type']>(actions: Action[], t: K): Extract<Action, { type: K }>[] =>
  actions.filter((a): a is Extract<Action, { type: K }> => a.type === t);
export const assigned = (actions: Action[]): string[] => ofType(actions, 'assign').map((a) => a.node);
