/**
 * The named histories of issue 23 as fixed data: the five of its table, the false invalidations and
 * the demo story. Times are virtual ms after revision 1 completed on every node. Limit 1 and
 * max-failures 0 unless said otherwise; a soak of 60 s (longer than the 40 s the node lifecycle
 * controller takes to show a cut-off node NotReady) unless the history is about the defaults.
 */
import type { History } from './history.js';
import { ISSUE_35_B } from './histories-35b.js';
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

// ------------------------------------------------------------------ issue 35, part A (rollback)

/**
 * Issue 35, case 0 and 5 and the 50-input case: a rollback takes back only the failed change, and a
 * node that never answered never counts. Each fails on the planner before issue 35 (see README.md).
 */
export const ROLLBACK_HISTORIES: History[] = [
  {
    // Case 0 as the issue found it: the first network (a=1, rev 2; rev 1 is the empty config) runs
    // on n0 and n1 and has not completed when its MTU change (a=2) fails. The fallback must keep a=1
    // on the nodes that ran it, never "the empty configuration".
    name: 'case 0: a change fails before the first network completed; no node loses the network',
    nodes: 4,
    policy: { limit: 1, maxFailures: 0, ...SOAK },
    inputs: {},
    bad: [{ input: 'a', value: 2, effect: 'cutOff' }],
    actions: [
      at(1, { kind: 'setInput', input: 'a', value: 1 }),
      at(100, { kind: 'setInput', input: 'a', value: 2 }),
    ],
  },
  {
    // A change (b=1, a new input) still rolling out when an unrelated change (a=5) fails: the nodes
    // that ran b keep it.
    name: 'a change comes before the previous revision completed, and fails: the nodes keep the previous change',
    nodes: 4,
    policy: { limit: 1, maxFailures: 0, ...SOAK },
    inputs: { a: 1 },
    bad: [{ input: 'a', value: 5, effect: 'invalid' }],
    actions: [
      at(1, { kind: 'setInput', input: 'b', value: 1 }),
      at(100, { kind: 'setInput', input: 'a', value: 5 }),
    ],
  },
  {
    // A bad first revision: the empty configuration is the right fallback (the inputs never ran
    // anywhere without the failed change); a second network that ran fine stays where it ran.
    name: 'a bad first revision rolls back to the empty configuration, within the bound',
    nodes: 4,
    policy: { limit: 1, maxFailures: 0, ...SOAK },
    inputs: {},
    bad: [{ input: 'a', value: 7, effect: 'cutOff' }],
    actions: [at(1, { kind: 'setInput', input: 'a', value: 7 })],
  },
  {
    // Case 0's second history / 5(b): a node joins a complete revision, its agent never starts, the
    // operator deletes the Node. It never answered: its deletion is no failure of revision 1.
    name: 'case 5(b): a node that joined and never answered is deleted by the operator',
    nodes: 3,
    policy: { limit: 1, maxFailures: 0, notReadyTimeoutMs: 30_000, preconfigTimeoutMs: 600_000 },
    inputs: { a: 1 },
    bad: [],
    actions: [
      at(0, { kind: 'join', node: 'late', agent: 'notStarted' }),
      at(60, { kind: 'deleteNode', node: 'late' }),
      at(200, { kind: 'setInput', input: 'a', value: 2 }),
    ],
  },
  {
    // 5(b) while a change rolls out: the node that never answered is handed nothing forward, and its
    // deletion fails neither revision.
    name: 'case 5(b): a node that never answered is deleted while a change rolls out',
    nodes: 3,
    policy: { limit: 1, maxFailures: 0, notReadyTimeoutMs: 30_000, ...SOAK },
    inputs: { a: 1 },
    bad: [],
    actions: [
      at(0, { kind: 'join', node: 'late', agent: 'notStarted' }),
      at(30, { kind: 'setInput', input: 'a', value: 2 }),
      at(40, { kind: 'deleteNode', node: 'late' }),
    ],
  },
  {
    // A Node re-created under the same name (new machine, agent not started yet) after its old self
    // ran revision 1: the new one never answered, and its deletion counts against nothing.
    name: 'a Node re-created under the same name never answers and is deleted again',
    nodes: 3,
    policy: { limit: 1, maxFailures: 0, notReadyTimeoutMs: 30_000, preconfigTimeoutMs: 60_000, ...SOAK },
    inputs: { a: 1 },
    bad: [],
    actions: [
      at(0, { kind: 'deleteNode', node: 'n2' }),
      at(5, { kind: 'join', node: 'n2', agent: 'notStarted' }),
      at(20, { kind: 'setInput', input: 'a', value: 2 }),
      at(200, { kind: 'deleteNode', node: 'n2' }),
    ],
  },
  {
    // Case 5(a): n0's agent is dead when it takes rev 2 (it never answers); n1 goes NotReady right
    // after taking rev 2 (a fault the planner cannot tell from a cut-off: rev 2 fails, rightly). The
    // operator retries before n0's preconfig timeout. When it passes, the retry must not be handed
    // forward to n0, whose agent never answered its last assignment, nor fail by it.
    name: 'case 5(a): a retry is never handed to a node whose agent never answered its last assignment',
    nodes: 4,
    policy: { limit: 2, maxFailures: 0, preconfigTimeoutMs: 60_000, notReadyTimeoutMs: 30_000, ...SOAK },
    inputs: { a: 1 },
    bad: [],
    mayEndInvalid: [2],
    actions: [
      at(0, { kind: 'agent', node: 'n0', mode: 'dead' }),
      at(1, { kind: 'setInput', input: 'a', value: 2 }),
      at(2, { kind: 'kubelet', node: 'n1', ready: false }),
      at(40, { kind: 'retry' }),
      at(45, { kind: 'kubelet', node: 'n1', ready: true }),
    ],
  },
  {
    // A broken node (its agent refuses everything as RestoreFailed) is deleted by the operator while a
    // good change rolls out: its failure was the node's, and it is gone; the change still completes.
    name: 'a broken node deleted while a change rolls out',
    nodes: 4,
    policy: { limit: 1, maxFailures: 1, notReadyTimeoutMs: 30_000, ...SOAK },
    inputs: { a: 1, b: 1 },
    bad: [],
    mayEndInvalid: [2],
    actions: [
      at(0, { kind: 'agent', node: 'n0', mode: 'restoreFails' }),
      at(1, { kind: 'setInput', input: 'a', value: 2 }),
      at(30, { kind: 'deleteNode', node: 'n0' }),
    ],
  },
  {
    // Why a rollback goes to what the node ran itself, never to a revision that only ran elsewhere:
    // rev 2 (a=2, cuts off rack 2: n2, n3) ran well on n0 only when rev 3 (a=3, b=9) superseded it;
    // n1-n3 take rev 3 from rev 1, and b=9 fails n4. Rev 2 is the fallback (it ran, no failure), but
    // a rollback of n2 and n3 to it would hand a=2 to both, uncounted: they go back to rev 1 and move
    // to rev 2 forward, counted, one at a time.
    name: 'a rollback never hands a node content that ran only elsewhere (fallback not completed)',
    nodes: 6,
    policy: { limit: 1, maxFailures: 0, notReadyTimeoutMs: 60_000, ...SOAK },
    inputs: { a: 1, b: 1 },
    bad: [
      { input: 'a', value: 2, effect: 'cutOff', nodes: ['n2', 'n3'] },
      { input: 'b', value: 9, effect: 'invalid', nodes: ['n4'] },
    ],
    actions: [
      at(1, { kind: 'setInput', input: 'a', value: 2 }),
      at(10, { kind: 'setInput', input: 'a', value: 3 }),
      at(10, { kind: 'setInput', input: 'b', value: 9 }),
    ],
  },
  {
    // One commit of 55 inputs whose last (beyond the 50th) is bad: every changed input is a suspect,
    // so the bad one is not rebuilt with a fresh budget.
    name: 'one commit of 55 inputs, the bad one beyond the 50th',
    nodes: 4,
    policy: { limit: 1, maxFailures: 0, ...SOAK },
    inputs: Object.fromEntries(Array.from({ length: 55 }, (_, i) => [`i${String(i).padStart(2, '0')}`, 1])),
    bad: [{ input: 'i54', value: 2, effect: 'invalid' }],
    actions: Array.from({ length: 55 }, (_, i) =>
      at(1, { kind: 'setInput', input: `i${String(i).padStart(2, '0')}`, value: 2 }),
    ),
  },
];

export { ISSUE_35_B };
