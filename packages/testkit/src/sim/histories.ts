/**
 * The named histories of issue 23 as fixed data: the five of its table, the false invalidations and
 * the demo story. Times are virtual ms after revision 1 completed on every node. Limit 1 and
 * max-failures 0 unless said otherwise; a soak of 60 s (longer than the 40 s the node lifecycle
 * controller takes to show a cut-off node NotReady) unless the history is about the defaults.
 */
import type { History } from './history.js';
import type { Scheduled, WorldAction } from './types.js';

const at = (s: number, action: WorldAction): Scheduled => ({ at: s * 1000, action });
const SOAK = { minSuccessTimeMs: 60_000 };
const RACK2 = ['n3', 'n4', 'n5', 'n6', 'n7'];

export const TABLE_HISTORIES: History[] = [
  {
    // B (a=2) cuts off the nodes of rack 2; it has reached n0-n2 (harmless there) and cut off n3
    // when the operator reverts it. The revert (rev 3, the same content as rev 1) fails on n0
    // (RestoreFailed): rev 3 is invalid, and the fallback must not be B.
    name: 'revert of a bad change B, and the revert fails on one node',
    nodes: 8,
    policy: { limit: 1, maxFailures: 0, ...SOAK },
    inputs: { a: 1 },
    bad: [{ input: 'a', value: 2, effect: 'cutOff', nodes: RACK2 }],
    actions: [
      at(1, { kind: 'setInput', input: 'a', value: 2 }),
      at(200, { kind: 'agent', node: 'n0', mode: 'restoreFails' }),
      at(200, { kind: 'revert', input: 'a' }),
      at(200.5, { kind: 'pauseFleet' }),
      at(600, { kind: 'resumeFleet' }),
    ],
  },
  {
    name: 'a rack is NotReady while B rolls out; B completes on the rest; the rack returns',
    nodes: 6,
    policy: { limit: 1, maxFailures: 0, ...SOAK },
    inputs: { a: 1 },
    bad: [{ input: 'a', value: 2, effect: 'cutOff', nodes: ['n3', 'n4', 'n5'] }],
    actions: [
      at(0, { kind: 'kubelet', node: 'n3', ready: false }),
      at(0, { kind: 'kubelet', node: 'n4', ready: false }),
      at(0, { kind: 'kubelet', node: 'n5', ready: false }),
      at(1, { kind: 'setInput', input: 'a', value: 2 }),
      at(400, { kind: 'kubelet', node: 'n3', ready: true }),
      at(400, { kind: 'kubelet', node: 'n4', ready: true }),
      at(400, { kind: 'kubelet', node: 'n5', ready: true }),
    ],
  },
  {
    name: 'B cuts off its first node; two unrelated merges create C and D (still carrying B)',
    nodes: 6,
    policy: { limit: 1, maxFailures: 0, ...SOAK },
    inputs: { a: 1, b: 1 },
    bad: [{ input: 'a', value: 2, effect: 'cutOff' }],
    actions: [
      at(1, { kind: 'setInput', input: 'a', value: 2 }),
      at(60, { kind: 'setInput', input: 'b', value: 5 }),
      at(120, { kind: 'setInput', input: 'b', value: 6 }),
    ],
  },
  {
    name: '--max-failures 1, something deletes NotReady Nodes',
    nodes: 6,
    policy: { limit: 1, maxFailures: 1, ...SOAK },
    inputs: { a: 1 },
    bad: [{ input: 'a', value: 2, effect: 'cutOff' }],
    deleteNotReadyAfterMs: 30_000,
    actions: [at(1, { kind: 'setInput', input: 'a', value: 2 })],
  },
  {
    // Five late joiners whose agents never start are degraded on rev 1 (catch-up, one at a time).
    // Rev 2 rolls out; the leader changes: the new leader's timers start afresh.
    name: 'a leader change while nodes are unanswered',
    nodes: 3,
    policy: { limit: 1, maxFailures: 0, preconfigTimeoutMs: 60_000 },
    inputs: { a: 1 },
    bad: [],
    actions: [
      ...['j0', 'j1', 'j2', 'j3', 'j4'].map((node) => at(0, { kind: 'join', node, agent: 'notStarted' })),
      at(400, { kind: 'setInput', input: 'a', value: 2 }),
      at(401, { kind: 'leaderChange' }),
    ],
  },
];

export const FALSE_INVALIDATIONS: History[] = [
  {
    // n2's agent dies; its NodeConfig is re-created (catch-up of rev 1) and times out: degraded.
    // The next good revision must not be invalidated by it.
    name: 'dead agent handed the next revision',
    nodes: 4,
    policy: { limit: 1, maxFailures: 0, preconfigTimeoutMs: 60_000 },
    inputs: { a: 1 },
    bad: [],
    actions: [
      at(0, { kind: 'agent', node: 'n2', mode: 'dead' }),
      at(1, { kind: 'deleteNodeConfig', node: 'n2' }),
      at(300, { kind: 'setInput', input: 'a', value: 2 }),
    ],
  },
  {
    name: 'new node whose agent never reported',
    nodes: 3,
    policy: { limit: 1, maxFailures: 0, preconfigTimeoutMs: 60_000 },
    inputs: { a: 1 },
    bad: [],
    actions: [
      at(0, { kind: 'join', node: 'late', agent: 'notStarted' }),
      at(300, { kind: 'setInput', input: 'a', value: 2 }),
      at(900, { kind: 'agent', node: 'late', mode: 'good' }),
    ],
  },
  {
    name: 'node with the agent start-up taint',
    nodes: 3,
    policy: { limit: 1, maxFailures: 0, preconfigTimeoutMs: 60_000 },
    inputs: { a: 1 },
    bad: [],
    actions: [
      at(0, { kind: 'join', node: 'tainted', agent: 'notStarted', taint: true }),
      at(1, { kind: 'setInput', input: 'a', value: 2 }),
      at(900, { kind: 'agent', node: 'tainted', mode: 'good' }),
    ],
  },
  {
    // A fault (not the change) cuts n0 off right after it took rev 2: rev 2 fails after the
    // NotReady timeout; the operator retries while n0 is still NotReady.
    name: 'retry invalidated by the leftover NotReady of the attempt it retries',
    nodes: 4,
    policy: { limit: 1, maxFailures: 0, notReadyTimeoutMs: 60_000, ...SOAK },
    inputs: { a: 1 },
    bad: [],
    // The planner cannot tell this fault from a cut-off by rev 2: rev 2 fails; the retry (rev 3) must not.
    mayEndInvalid: [2],
    actions: [
      at(1, { kind: 'setInput', input: 'a', value: 2 }),
      at(3, { kind: 'cut', node: 'n0', forMs: 600_000 }),
      at(200, { kind: 'retry' }),
    ],
  },
  {
    name: 'timeout 0 accepted (RolloutPolicy preconfigTimeout: 0s)',
    nodes: 3,
    policy: { limit: 1, maxFailures: 0, rolloutPolicy: { preconfigTimeout: '0s' } },
    inputs: { a: 1 },
    bad: [],
    actions: [at(1, { kind: 'setInput', input: 'a', value: 2 })],
  },
];

/**
 * The README demo (4 nodes): a change is aborted and retried, then examples/bad-change.yaml (a=9,
 * refused by every node's checks) is applied; then the fleet is paused and one more change comes.
 */
export const DEMO_STORY: History = {
  name: 'demo: abort + retry, then the bad change',
  nodes: 4,
  policy: { limit: 1, maxFailures: 0 },
  inputs: { a: 1, b: 1 },
  bad: [{ input: 'a', value: 9, effect: 'invalid' }],
  actions: [
    at(1, { kind: 'setInput', input: 'b', value: 2 }),
    at(2, { kind: 'abort' }),
    at(60, { kind: 'retry' }),
    at(120, { kind: 'setInput', input: 'a', value: 9 }),
    at(240, { kind: 'pauseFleet' }),
    at(250, { kind: 'setInput', input: 'b', value: 3 }),
    at(500, { kind: 'resumeFleet' }),
  ],
};

/**
 * Issue 35, part B: the failures real fleets have that the generator of issue 23 could not draw.
 * Defaults of the planner (--not-ready-timeout 5m, soak 1m) unless said otherwise.
 */
export const ISSUE_35_B: History[] = [
  {
    // Each node goes NotReady 40 s after it confirmed (inside its soak) for 80 s, is Ready for 30 s,
    // and again: no single stretch reaches --not-ready-timeout.
    name: 'case 1: a change that makes the kubelet flap (80 s NotReady, 30 s Ready) is stopped',
    nodes: 6,
    policy: { limit: 1, maxFailures: 0 },
    inputs: { a: 1 },
    bad: [{ input: 'a', value: 2, effect: 'flap' }],
    actions: [at(1, { kind: 'setInput', input: 'a', value: 2 })],
  },
  {
    name: 'case 1: flapping at --update-limit 2 and --max-failures 1',
    nodes: 8,
    policy: { limit: 2, maxFailures: 1 },
    inputs: { a: 1 },
    bad: [{ input: 'a', value: 2, effect: 'flap' }],
    actions: [at(1, { kind: 'setInput', input: 'a', value: 2 })],
  },
  {
    // The change cuts each node off; the agent restores after its confirm window, but the network
    // needs more than 15 s more to heal, so the shipped agent reports Interrupted.
    name: 'case 2: a cut-off the agent reports as Interrupted counts (the node went NotReady)',
    nodes: 5,
    policy: { limit: 1, maxFailures: 0 },
    inputs: { a: 1 },
    bad: [{ input: 'a', value: 2, effect: 'cutOffInterrupted' }],
    actions: [at(1, { kind: 'setInput', input: 'a', value: 2 })],
  },
  {
    name: 'case 2: Interrupted cut-offs at --update-limit 2 and --max-failures 1',
    nodes: 6,
    policy: { limit: 2, maxFailures: 1 },
    inputs: { a: 1 },
    bad: [{ input: 'a', value: 2, effect: 'cutOffInterrupted' }],
    actions: [at(1, { kind: 'setInput', input: 'a', value: 2 })],
  },
  {
    // A DaemonSet update restarts n0's and n1's agents during their applies (Interrupted, kubelet
    // Ready; n1's twice): re-assigned, never counted; the good change completes.
    name: 'case 2: agent restarts (Interrupted, kubelet Ready) stay harmless',
    nodes: 4,
    policy: { limit: 2, maxFailures: 0 },
    inputs: { a: 1 },
    bad: [],
    actions: [
      at(0, { kind: 'agent', node: 'n0', mode: 'interrupts' }),
      at(0, { kind: 'agent', node: 'n1', mode: 'interrupts' }),
      at(1, { kind: 'setInput', input: 'a', value: 2 }),
      at(40, { kind: 'agent', node: 'n0', mode: 'good' }),
      at(30, { kind: 'agent', node: 'n1', mode: 'good' }),
    ],
  },
  {
    // The MTU change completes on n0-n2 (harmless there); then new hardware joins, which it cuts
    // off: catch-up moves of the completed revision count against it like forward ones.
    name: 'case 3: a change that harms only nodes joining after it completed is stopped (catch-up counted)',
    nodes: 3,
    policy: { limit: 1, maxFailures: 0 },
    inputs: { a: 1 },
    bad: [{ input: 'a', value: 2, effect: 'cutOff', nodes: ['j0', 'j1', 'j2'] }],
    actions: [
      at(1, { kind: 'setInput', input: 'a', value: 2 }),
      ...['j0', 'j1', 'j2'].map((node) => at(400, { kind: 'join', node })),
    ],
  },
  {
    // The same through the selector: n3-n5 are relabelled into it after the change completed.
    name: 'case 3: nodes relabelled into the selector after the change completed (catch-up counted)',
    nodes: ['n0', 'n1', 'n2', 'n3', 'n4', 'n5'].map((name, i) => ({
      name,
      labels: { role: i < 3 ? 'net' : 'spare' },
    })),
    policy: { limit: 1, maxFailures: 0, nodeSelector: { role: 'net' } },
    inputs: { a: 1 },
    bad: [{ input: 'a', value: 2, effect: 'cutOff', nodes: ['n3', 'n4', 'n5'] }],
    actions: [
      at(1, { kind: 'setInput', input: 'a', value: 2 }),
      ...['n3', 'n4', 'n5'].map((node) => at(400, { kind: 'relabel', node, labels: { role: 'net' } })),
    ],
  },
  {
    // Network a serves zone 1 (n0-n2). Its MTU change (a=2) cuts off every node that takes it; 20 s
    // later, before n0's failure is visible, the same input's selector is widened to every node: the
    // follow-up write still carries the change in flight, whose budget it keeps.
    name: 'case 4: a follow-up edit (selector widened 20 s after the bad value) keeps the budget',
    nodes: ['n0', 'n1', 'n2', 'n3', 'n4', 'n5'].map((name, i) => ({
      name,
      labels: { zone: i < 3 ? 'z1' : 'z2' },
    })),
    policy: { limit: 1, maxFailures: 0 },
    inputs: { a: 1, b: 1 },
    inputZones: { a: 'z1' },
    bad: [{ input: 'a', value: 2, effect: 'cutOff' }],
    actions: [
      at(1, { kind: 'setInput', input: 'a', value: 2 }),
      at(21, { kind: 'setInput', input: 'a', value: 2, zone: null }),
    ],
  },
  {
    // Found by the extended generator (seed 23): the bad MTU is written for zone z1 only, then 4 s
    // later for every node, with an unrelated merge; the agent reports its cut-off Interrupted.
    name: 'case 4: a bad value written for one zone, widened 4 s later with an unrelated merge',
    nodes: ['n0', 'n1', 'n2'].map((name, i) => ({ name, labels: { zone: i % 2 ? 'z2' : 'z1' } })),
    policy: { limit: 1, maxFailures: 0, notReadyTimeoutMs: 60_000 },
    inputs: { a: 1, b: 1 },
    bad: [{ input: 'a', value: 7, effect: 'cutOffInterrupted' }],
    actions: [
      at(0, { kind: 'setInput', input: 'a', value: 7, zone: 'z1' }),
      at(4, { kind: 'setInput', input: 'a', value: 7, zone: null }),
      at(4, { kind: 'setInput', input: 'b', value: 2 }),
    ],
  },
];

export const ALL_NAMED: History[] = [...TABLE_HISTORIES, ...FALSE_INVALIDATIONS, DEMO_STORY, ...ISSUE_35_B];

/** Histories today's planner already gets right: the simulator is not red by construction. */
export const BASELINE: History[] = [
  {
    name: 'a good change reaches every node',
    nodes: 5,
    policy: { limit: 2, maxFailures: 0, ...SOAK },
    inputs: { a: 1 },
    bad: [],
    actions: [at(1, { kind: 'setInput', input: 'a', value: 2 })],
  },
  {
    name: 'a change refused by the nodes stops at the limit and rolls back',
    nodes: 5,
    policy: { limit: 2, maxFailures: 0 },
    inputs: { a: 1 },
    bad: [{ input: 'a', value: 2, effect: 'invalid' }],
    actions: [at(1, { kind: 'setInput', input: 'a', value: 2 })],
  },
  {
    name: 'a change that cuts its first node off is held and invalidated (soak longer than the NotReady grace)',
    nodes: 5,
    policy: { limit: 1, maxFailures: 0, notReadyTimeoutMs: 120_000, ...SOAK },
    inputs: { a: 1 },
    bad: [{ input: 'a', value: 2, effect: 'cutOff' }],
    actions: [at(1, { kind: 'setInput', input: 'a', value: 2 })],
  },
];
