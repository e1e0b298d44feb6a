/**
 * Random histories for fast-check: fleets of 3-6 nodes, one or two bad changes (marked by content),
 * and up to 10 operator actions and faults in the first 15 minutes. Shrinking reduces a failing
 * history to few actions and nodes. The full generator also draws (issue 35) RolloutPolicy changes
 * mid-history, waves, limits as percentages and default timeouts, inputs with a nodeSelector,
 * bad changes that start later, last, make the kubelet flap or are reported Interrupted, harm to
 * nodes that join later, a Node re-created under its name, controls on other revisions than the
 * desired one, wall-clock jumps, bursts of changes, and the agent's confirm window and own retries.
 */
import fc from 'fast-check';
import type { KnobChange } from './knobs.js';
import { DRAWN_DISRUPTIVE } from './disruptive.js';
import type { PolicyKnobs } from './planner-adapter.js';
import type { AgentMode, BadChange, Scheduled, WorldAction } from './types.js';
import type { History } from './history.js';
import { extrasArb, withExtras, type DrawnExtras } from './arbitrary-extras.js';

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
  'policy',
  'clockJump',
];

export interface GenOptions {
  kinds?: readonly ActionKind[];
  /** Bad change effects to draw from. */
  effects?: readonly BadChange['effect'][];
  agentModes?: readonly AgentMode[];
  maxActions?: number;
  /** Exactly one input change (plus `kinds` actions). */
  oneChange?: boolean;
  /** Draw the kinds of issue 35 too (default true): realistic knobs, zones, bursts, controls by number. */
  extended?: boolean;
  /** Also a bad first revision and same-content follow-up writes in flight (arbitrary-extras.ts). */
  extras?: boolean;
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
  extended: false,
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
  'retrying',
];
const EFFECTS: readonly BadChange['effect'][] = [
  'invalid',
  'cutOff',
  'flap',
  'cutOffInterrupted',
  'cutOffLater',
  'cutOffForever',
];

/** Node index 0..9, taken modulo the fleet size when the history is assembled (8, 9: the joiners). */
const nodeIx = fc.integer({ min: 0, max: 9 });
const input = fc.constantFrom(...INPUTS);

type Raw = {
  kind: ActionKind;
  node: number;
  input: string;
  value: number;
  flag: boolean;
  mode: AgentMode;
  ms: number;
  /** Right after the previous action (a burst), not at its own time. */
  burst: boolean;
  /** A revision number for controls (0: the desired one), a zone choice, a knob choice. */
  pick: number;
};

/** RolloutPolicy edits a person makes (the soak stays above the NotReady grace: precondition 1). */
const KNOB_CHANGES: readonly KnobChange[] = [
  { limit: 1 },
  { limit: 3 },
  { limitPercent: 50 },
  { maxFailures: 0 },
  { maxFailures: 2 },
  { notReadyTimeoutMs: 60_000 },
  { notReadyTimeoutMs: 300_000 },
  { minSuccessTimeMs: 90_000 },
  // Narrowed, then widened: the nodes outside it catch up.
  { nodeSelector: { role: 'net' } },
  { nodeSelector: null },
];

/** A write's nodeSelector: kept, zone z1 only, or every node (widened). */
const zoneOf = (pick: number): { zone?: string | null } =>
  pick % 3 === 0 ? {} : pick % 3 === 1 ? { zone: 'z1' } : { zone: null };

/** A person's write of an input: half of them write a bad change (the rest may still hit one by chance). */
function writeOf(raw: Raw, bad: readonly BadChange[], extended: boolean): WorldAction {
  const b = raw.flag ? bad[raw.node % Math.max(1, bad.length)] : undefined;
  const zone = extended ? zoneOf(raw.pick) : {};
  return b
    ? { kind: 'setInput', input: b.input, value: b.value, ...zone }
    : { kind: 'setInput', input: raw.input, value: raw.value, ...zone };
}

/** A node relabelled, or a Node joining: new hardware, or one re-created under the name of one deleted before. */
function comingAndGoing(raw: Raw, node: string, joiner: string, extended: boolean): WorldAction {
  const zone = raw.pick % 2 ? 'z2' : 'z1';
  if (raw.kind === 'relabel')
    return { kind: 'relabel', node, labels: { role: raw.flag ? 'net' : 'other', zone } };
  return {
    kind: 'join',
    node: extended && raw.pick % 4 === 0 ? node : joiner,
    agent: raw.mode,
    taint: raw.flag,
    labels: { role: 'net', zone },
  };
}

function actionOf(raw: Raw, nodes: number, bad: readonly BadChange[], extended: boolean): WorldAction {
  const node = `n${raw.node % nodes}`;
  const joiner = `j${raw.node % 2}`;
  const number = extended && raw.pick % 5 !== 0 ? { number: raw.pick % 5 } : {};
  switch (raw.kind) {
    case 'setInput':
      return writeOf(raw, bad, extended);
    case 'policy':
      return { kind: 'policy', change: KNOB_CHANGES[raw.pick % KNOB_CHANGES.length] as KnobChange };
    case 'clockJump':
      // Forward or back, up to an hour.
      return { kind: 'clockJump', ms: (raw.flag ? 1 : -1) * raw.ms * 12 };
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
      return { kind: raw.kind, ...number };
    case 'relabel':
    case 'join':
      return comingAndGoing(raw, node, joiner, extended);
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
  const extended = opts.extended ?? true;
  const effects = opts.effects ?? (extended ? EFFECTS : (['invalid', 'cutOff'] as const));
  const raw: fc.Arbitrary<Raw> = fc.record({
    // The extended generator writes inputs more often: changes that come before the previous
    // revision completed, bursts, follow-up edits.
    kind:
      extended && kinds.includes('setInput')
        ? fc.oneof(
            { arbitrary: fc.constantFrom(...kinds), weight: 3 },
            { arbitrary: fc.constant<ActionKind>('setInput'), weight: 1 },
          )
        : fc.constantFrom(...kinds),
    node: nodeIx,
    input,
    // 7-9 are the values bad changes take.
    value: fc.integer({ min: 2, max: 9 }),
    flag: fc.boolean(),
    mode: fc.constantFrom(...modes),
    ms: fc.integer({ min: 10, max: 300 }).map((s) => s * 1000),
    burst: extended ? fc.boolean() : fc.constant(false),
    pick: fc.nat(59),
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
      // Realistic knobs (issue 35): a percentage limit, the default timeouts, waves, zones, the
      // agent's confirm window.
      knobs: extended ? fc.nat(47) : fc.constant(-1),
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
      // RolloutPolicy spec.disruptive (issue 39), drawn last: the other draws of a seed stay.
      disruptive: extended ? fc.nat(DRAWN_DISRUPTIVE.length - 1) : fc.constant(0),
      // A bad first revision, same-content follow-up writes in flight (arbitrary-extras.ts).
      // Opt-in until the planner bugs they found are fixed (README "Open"): CI's seed stays green.
      extras: extended && opts.extras === true ? extrasArb : fc.constant(undefined),
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
  /** The realistic knobs, packed (-1: the issue 23 generator's). */
  knobs: number;
  bad: DrawnBad[];
  actions: { at: number; raw: Raw }[];
  change: { at: number; input: string; value: number; bad: boolean };
  /** Index into DRAWN_DISRUPTIVE (0: no knob). */
  disruptive: number;
  extras: DrawnExtras | undefined;
}

interface DrawnBad {
  input: string;
  value: number;
  effect: BadChange['effect'];
  some: number[] | undefined;
}

function historyOf(d: Drawn, opts: GenOptions): History {
  const { nodes, change } = d;
  const extended = d.knobs >= 0;
  const one: Raw = {
    kind: 'setInput',
    node: 0,
    input: change.input,
    value: change.value,
    flag: change.bad,
    mode: 'good',
    ms: 0,
    burst: false,
    pick: 0,
  };
  const actions = opts.oneChange ? [...d.actions, { at: change.at, raw: one }] : d.actions;
  const badChanges = badChangesOf(d.bad, nodes);
  const base = {
    limit: d.limit,
    maxFailures: d.maxFailures,
    preconfigTimeoutMs: 90_000,
    configTimeoutMs: 90_000,
    notReadyTimeoutMs: d.notReadyTimeoutMs,
    minSuccessTimeMs: 60_000,
    ...(d.selector ? { nodeSelector: { role: 'net' } } : {}),
  };
  const k = extended ? realisticKnobs(d.knobs) : undefined;
  const h: History = {
    name: 'random history',
    nodes: Array.from({ length: nodes }, (_, i) => ({
      name: `n${i}`,
      labels: nodeLabels(i, nodes, extended),
    })),
    policy: k ? { ...base, ...k.policy, ...disruptiveKnob(d.disruptive) } : base,
    inputs: { a: 1, b: 1, c: 1 },
    ...(k?.zoneA ? { inputZones: { a: 'z1' } } : {}),
    ...(k?.restoreMs !== undefined ? { restoreMs: k.restoreMs } : {}),
    bad: badChanges,
    actions: timed(actions).map((a): Scheduled => ({
      at: a.at,
      action: actionOf(a.raw, nodes, badChanges, extended),
    })),
  };
  return d.extras ? withExtras(h, d.extras) : h;
}

const nodeLabels = (i: number, nodes: number, extended: boolean): Record<string, string> =>
  extended ? { role: 'net', zone: i % 2 ? 'z2' : 'z1', wave: i < nodes / 2 ? 'w1' : 'w2' } : { role: 'net' };

const disruptiveKnob = (i: number): Partial<PolicyKnobs> => {
  const disruptive = DRAWN_DISRUPTIVE[i];
  return disruptive ? { rolloutPolicy: { disruptive } } : {};
};

/** Times in ms; an action of a burst comes 0-4 s after the one before it. */
function timed(actions: readonly { at: number; raw: Raw }[]): { at: number; raw: Raw }[] {
  const sorted = [...actions].sort((a, b) => a.at - b.at);
  let prev = 0;
  return sorted.map((a) => {
    prev = a.raw.burst ? prev + (a.raw.pick % 5) * 1000 : a.at * 1000;
    return { at: prev, raw: a.raw };
  });
}

/**
 * The realistic knobs of one history from a number 0..47: the limit as a count or a percentage,
 * the timeouts drawn or the defaults, waves (barriers or not), input a served to zone z1 only, and
 * the agent's confirm window (30-120 s; the soak stays at least the default 60 s: precondition 1).
 */
function realisticKnobs(n: number): {
  policy: Partial<PolicyKnobs>;
  zoneA: boolean;
  restoreMs: number | undefined;
} {
  const limit = [{}, { limitPercent: 25 }, { limitPercent: 50 }][n % 3] as Partial<PolicyKnobs>;
  const defaults = Math.floor(n / 3) % 2 === 1;
  const waves = [{}, { waveLabel: 'wave' }, { waveLabel: 'wave', waveBarrier: true }][
    Math.floor(n / 6) % 3
  ] as Partial<PolicyKnobs>;
  const timeouts: Partial<PolicyKnobs> = defaults
    ? { preconfigTimeoutMs: 600_000, configTimeoutMs: 120_000, notReadyTimeoutMs: 300_000 }
    : {};
  return {
    policy: { ...limit, ...waves, ...timeouts },
    zoneA: Math.floor(n / 18) % 2 === 1,
    restoreMs: [undefined, 30_000, 60_000, 120_000][Math.floor(n / 12) % 4],
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
      // Indexes 8 and 9 name the joiners: harm to nodes that join later.
      ...(b.some ? { nodes: [...new Set(b.some.map((i) => (i >= 8 ? `j${i % 2}` : `n${i % nodes}`)))] } : {}),
    });
  }
  return badChanges;
}

/** A one-line description of a history (for the failure report). */
export const describeHistory = (h: History): string =>
  `${typeof h.nodes === 'number' ? h.nodes : h.nodes.length} nodes, ${JSON.stringify(h.policy)}, bad ${JSON.stringify(h.bad)}, actions ${JSON.stringify(h.actions)}`;
