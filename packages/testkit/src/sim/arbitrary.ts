/**
 * Random histories for fast-check: fleets of 3-6 nodes, one or two bad changes (marked by content),
 * and up to 10 operator actions and faults in the first 15 minutes. Shrinking reduces a failing
 * history to few actions and nodes.
 */
import fc from 'fast-check';
import type { AgentMode, BadChange, Scheduled, WorldAction } from './types.js';
import type { History } from './history.js';

export type ActionKind = WorldAction['kind'];

export const ALL_KINDS: readonly ActionKind[] = [
  'setInput',
  'deleteInput',
  'revert',
  'pauseFleet',
  'resumeFleet',
  'pauseRevision',
  'resumeRevision',
  'abort',
  'retry',
  'relabel',
  'join',
  'deleteNode',
  'kubelet',
  'flap',
  'agent',
  'cut',
  'leaderChange',
  'deleteNodeConfig',
];

export interface GenOptions {
  kinds?: readonly ActionKind[];
  /** Bad change effects to draw from. */
  effects?: readonly BadChange['effect'][];
  agentModes?: readonly AgentMode[];
  maxActions?: number;
  /** Exactly one input change (plus `kinds` actions). */
  oneChange?: boolean;
}

/**
 * What today's planner already handles: one change (good or refused by the nodes), pauses, slow
 * agents. (Two changes in a row already break it: a superseding revision that fails falls back to
 * the bad one as a "rollback", whose failures never count.)
 */
export const CONTROL: GenOptions = {
  kinds: ['pauseFleet', 'resumeFleet', 'pauseRevision', 'resumeRevision', 'agent'],
  effects: ['invalid'],
  agentModes: ['good', 'slow'],
  oneChange: true,
  maxActions: 4,
};

const INPUTS = ['a', 'b', 'c'] as const;
const AGENT_MODES: readonly AgentMode[] = [
  'good',
  'slow',
  'dead',
  'misconfigured',
  'notStarted',
  'interrupts',
  'restoreFails',
];

/** Node index 0..7, taken modulo the fleet size when the history is assembled. */
const nodeIx = fc.integer({ min: 0, max: 7 });
const input = fc.constantFrom(...INPUTS);

type Raw = {
  kind: ActionKind;
  node: number;
  input: string;
  value: number;
  flag: boolean;
  mode: AgentMode;
  ms: number;
};

function actionOf(raw: Raw, nodes: number, bad: readonly BadChange[]): WorldAction {
  const node = `n${raw.node % nodes}`;
  const joiner = `j${raw.node % 2}`;
  switch (raw.kind) {
    case 'setInput': {
      // Half of the writes write a bad change (the rest may still hit one by chance).
      const b = raw.flag ? bad[raw.node % Math.max(1, bad.length)] : undefined;
      return b
        ? { kind: 'setInput', input: b.input, value: b.value }
        : { kind: 'setInput', input: raw.input, value: raw.value };
    }
    case 'deleteInput':
    case 'revert':
      return { kind: raw.kind, input: raw.input };
    case 'pauseFleet':
    case 'resumeFleet':
    case 'leaderChange':
      return { kind: raw.kind };
    case 'pauseRevision':
    case 'resumeRevision':
    case 'abort':
    case 'retry':
      return { kind: raw.kind };
    case 'relabel':
      return { kind: 'relabel', node, labels: { role: raw.flag ? 'net' : 'other' } };
    case 'join':
      return { kind: 'join', node: joiner, agent: raw.mode, taint: raw.flag, labels: { role: 'net' } };
    case 'deleteNode':
      return { kind: 'deleteNode', node: raw.flag ? joiner : node };
    case 'kubelet':
      return { kind: 'kubelet', node, ready: raw.flag };
    case 'flap':
      return { kind: 'flap', node, forMs: raw.ms };
    case 'agent':
      return { kind: 'agent', node, mode: raw.mode };
    case 'cut':
      return { kind: 'cut', node, forMs: raw.ms };
    case 'deleteNodeConfig':
      return { kind: 'deleteNodeConfig', node };
  }
}

export function historyArb(opts: GenOptions = {}): fc.Arbitrary<History> {
  const kinds = opts.kinds ?? ALL_KINDS;
  const modes = opts.agentModes ?? AGENT_MODES;
  const effects = opts.effects ?? (['invalid', 'cutOff'] as const);
  const raw: fc.Arbitrary<Raw> = fc.record({
    kind: fc.constantFrom(...kinds),
    node: nodeIx,
    input,
    // 7-9 are the values bad changes take.
    value: fc.integer({ min: 2, max: 9 }),
    flag: fc.boolean(),
    mode: fc.constantFrom(...modes),
    ms: fc.integer({ min: 10, max: 300 }).map((s) => s * 1000),
  });
  const bad = fc.record({
    input,
    value: fc.integer({ min: 7, max: 9 }),
    effect: fc.constantFrom(...effects),
    some: fc.option(fc.uniqueArray(nodeIx, { minLength: 1, maxLength: 3 }), { nil: undefined }),
  });
  return fc
    .record({
      nodes: fc.integer({ min: 3, max: 6 }),
      limit: fc.integer({ min: 1, max: 2 }),
      maxFailures: fc.integer({ min: 0, max: 1 }),
      notReadyTimeoutMs: fc.constantFrom(60_000, 150_000),
      selector: fc.boolean(),
      bad: fc.array(bad, { minLength: 1, maxLength: 2 }),
      actions: fc.array(fc.record({ at: fc.integer({ min: 0, max: 900 }), raw }), {
        minLength: opts.oneChange ? 0 : 1,
        maxLength: opts.maxActions ?? 10,
      }),
      change: fc.record({
        at: fc.integer({ min: 0, max: 300 }),
        input,
        value: fc.integer({ min: 2, max: 9 }),
        bad: fc.boolean(),
      }),
    })
    .map((drawn) => historyOf(drawn, opts));
}

/** What the generator draws for one history. */
interface Drawn {
  nodes: number;
  limit: number;
  maxFailures: number;
  notReadyTimeoutMs: number;
  selector: boolean;
  bad: DrawnBad[];
  actions: { at: number; raw: Raw }[];
  change: { at: number; input: string; value: number; bad: boolean };
}

interface DrawnBad {
  input: string;
  value: number;
  effect: BadChange['effect'];
  some: number[] | undefined;
}

function historyOf(d: Drawn, opts: GenOptions): History {
  const { nodes, change } = d;
  const one: Raw = {
    kind: 'setInput',
    node: 0,
    input: change.input,
    value: change.value,
    flag: change.bad,
    mode: 'good',
    ms: 0,
  };
  const actions = opts.oneChange ? [...d.actions, { at: change.at, raw: one }] : d.actions;
  const badChanges = badChangesOf(d.bad, nodes);
  return {
    name: 'random history',
    nodes: Array.from({ length: nodes }, (_, i) => ({ name: `n${i}`, labels: { role: 'net' } })),
    policy: {
      limit: d.limit,
      maxFailures: d.maxFailures,
      preconfigTimeoutMs: 90_000,
      configTimeoutMs: 90_000,
      notReadyTimeoutMs: d.notReadyTimeoutMs,
      minSuccessTimeMs: 60_000,
      ...(d.selector ? { nodeSelector: { role: 'net' } } : {}),
    },
    inputs: { a: 1, b: 1, c: 1 },
    bad: badChanges,
    actions: actions.map((a): Scheduled => ({
      at: a.at * 1000,
      action: actionOf(a.raw, nodes, badChanges),
    })),
  };
}

/** The drawn bad changes, one per input value, on the nodes they harm (all when none are named). */
function badChangesOf(bads: readonly DrawnBad[], nodes: number): BadChange[] {
  const seen = new Set<string>();
  const badChanges: BadChange[] = [];
  for (const b of bads) {
    const k = `${b.input}=${b.value}`;
    if (seen.has(k)) continue;
    seen.add(k);
    badChanges.push({
      input: b.input,
      value: b.value,
      effect: b.effect,
      ...(b.some ? { nodes: [...new Set(b.some.map((i) => `n${i % nodes}`))] } : {}),
    });
  }
  return badChanges;
}

/** A one-line description of a history (for the failure report). */
export const describeHistory = (h: History): string =>
  `${typeof h.nodes === 'number' ? h.nodes : h.nodes.length} nodes, ${JSON.stringify(h.policy)}, bad ${JSON.stringify(h.bad)}, actions ${JSON.stringify(h.actions)}`;
