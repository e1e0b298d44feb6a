/**
 * Issue 35, part B's named histories as fixed data (histories.ts holds the others): flapping, the
 * agent's own Interrupted, catch-up, follow-up edits. Times are virtual ms after revision 1 completed.
 */
import type { History } from './history.js';
import type { Scheduled, WorldAction } from './types.js';

const at = (s: number, action: WorldAction): Scheduled => ({ at: s * 1000, action });

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
  {
    // A Node deleted and re-created under the same name at once (a reinstall): its NodeConfig
    // survives with the old node's status, `provisioned` on revision 1. The new machine's agent has
    // not started. Before: the status made it look answered, it was handed revision 2 forward, and
    // its silence failed the good change (invariant 3). The NodeConfig records the Node's uid: a
    // different uid is another node, which has not answered yet.
    name: 'a Node re-created under its name with its old NodeConfig: the old status does not answer for the new agent',
    nodes: 3,
    policy: {
      limit: 1,
      maxFailures: 0,
      preconfigTimeoutMs: 60_000,
      notReadyTimeoutMs: 30_000,
      minSuccessTimeMs: 60_000,
    },
    inputs: { a: 1 },
    bad: [],
    actions: [
      at(0, { kind: 'join', node: 'n2', agent: 'notStarted', recreate: true }),
      at(5, { kind: 'setInput', input: 'a', value: 2 }),
      // The new agent stays silent past n2's turn and its preconfig timeout.
      at(300, { kind: 'agent', node: 'n2', mode: 'good' }),
    ],
  },
  {
    // The same with a working agent on the new machine: it gets a NodeConfig of its own, catches up
    // and takes revision 2, which completes.
    name: 'a Node re-created under its name with a working agent catches up and the change completes',
    nodes: 3,
    policy: {
      limit: 1,
      maxFailures: 0,
      preconfigTimeoutMs: 60_000,
      notReadyTimeoutMs: 30_000,
      minSuccessTimeMs: 60_000,
    },
    inputs: { a: 1 },
    bad: [],
    actions: [
      at(0, { kind: 'join', node: 'n2', agent: 'good', recreate: true }),
      at(5, { kind: 'setInput', input: 'a', value: 2 }),
    ],
  },
];

/**
 * Issue 35: histories the ≥ 50,000-history runs found after parts A and B merged. Each failed before
 * its fix (README.md); a bad change may complete within --max-failures here, so only the invariants
 * and the bound are asserted.
 */
/** The full generator's fleet, policy and inputs, as arbitrary.ts draws them (each history below). */
const GENERATED = {
  nodes: ['n0', 'n1', 'n2'].map((name, i) => ({
    name,
    labels: { role: 'net', zone: i % 2 ? 'z2' : 'z1', wave: i < 2 ? 'w1' : 'w2' },
  })),
  policy: {
    limit: 1,
    maxFailures: 1,
    preconfigTimeoutMs: 90_000,
    configTimeoutMs: 90_000,
    notReadyTimeoutMs: 60_000,
    minSuccessTimeMs: 60_000,
  },
  inputs: { a: 1, b: 1, c: 1 },
};

export const ISSUE_35_FOUND: History[] = [
  {
    // Seed 23 (full generator): rev 2 (a=7, refused on n0 only; c deleted by a person) completes
    // within --max-failures 1; rev 3 (c=7, refused everywhere) fails, n0 rolls back to rev 1 (which
    // it ran) and then catches up to the completed rev 2. Losing c is rev 2's deletion, which rolled
    // out: invariant 6 called it a loss the failing change did not touch (a ledger false alarm).
    name: 'a node rolled back past a completed revision that deleted an input catches up to it',
    ...GENERATED,
    bad: [
      { input: 'a', value: 7, effect: 'invalid', nodes: ['n0'] },
      { input: 'c', value: 7, effect: 'invalid' },
    ],
    actions: [
      at(0, { kind: 'setInput', input: 'a', value: 7 }),
      at(0, { kind: 'deleteInput', input: 'c' }),
      at(132, { kind: 'setInput', input: 'c', value: 7 }),
    ],
  },
  {
    // Seed 23 again, once the catch-up above passed: n0 ran rev 4 (a=9, c deleted, completed) and was
    // cut off, its agent restored rev 1; re-handed rev 4, it loses c. The host runs rev 1, not the
    // rev 4 it last reported provisioned: the move is forward to a completed revision all the same.
    name: 'a node whose agent restored an older revision after a cut-off is re-handed a completed one',
    ...GENERATED,
    bad: [
      { input: 'a', value: 9, effect: 'cutOffLater', nodes: ['n0'] },
      { input: 'c', value: 7, effect: 'invalid' },
    ],
    actions: [
      at(0, { kind: 'setInput', input: 'a', value: 9 }),
      at(0, { kind: 'deleteInput', input: 'c' }),
      at(167, { kind: 'setInput', input: 'a', value: 2 }),
      at(169, { kind: 'setInput', input: 'a', value: 9, zone: null }),
      at(170, { kind: 'setInput', input: 'c', value: 7 }),
    ],
  },
  {
    // Seed 35 (full generator, history 73, shrunk): a=7 (refused everywhere) for every node, c=2 a
    // second later; rev 3 (both) fails n0 and n1 and is invalidated; 0.6 s later a person writes a=7
    // again, for zone z1 only (rev 5), and pauses. A write after the invalidation is a new change
    // (docs/rollout.md, precondition 2): rev 5 reaches n0 and n2, within the bound. The ledger took
    // it for a follow-up through rev 2 (superseded by the invalid rev 3, never run) and counted n0,
    // n1 and n2 as one introduction (a ledger false alarm).
    name: 'a bad value, an unrelated change, the bad value narrowed to one zone and a pause',
    ...GENERATED,
    bad: [{ input: 'a', value: 7, effect: 'invalid' }],
    actions: [
      at(1, { kind: 'resumeFleet' }),
      at(489, { kind: 'setInput', input: 'a', value: 7, zone: null }),
      at(490, { kind: 'setInput', input: 'c', value: 2 }),
      at(495, { kind: 'setInput', input: 'a', value: 7, zone: 'z1' }),
      at(495, { kind: 'pauseRevision' }),
    ],
  },
  ...[2, 50, 101].map((followUpAt): History => ({
    // Seed 35 (full generator, history 73 of NODENET_SIM_RUNS=2000, shrunk): a=7 (cuts a node off)
    // and c=2 make rev 2; a=7 is written again for every node while rev 2 is in flight (the same
    // content, a new generation of a, no new revision). n0 is cut off and rev 2 invalidated at
    // 162 s; the build made rev 3 {a:7, c:1} at once and n1 took it: 2 nodes at bound 1. The
    // follow-up write escaped the hold (heldSuspects released a suspect as soon as the input's
    // generation differed); a write before the invalidation carries the same change.
    name: `a same-content follow-up write ${followUpAt} s into an in-flight bad change`,
    ...GENERATED,
    policy: { ...GENERATED.policy, maxFailures: 0, waveLabel: 'wave' },
    restoreMs: 120_000,
    bad: [{ input: 'a', value: 7, effect: 'cutOff' }],
    actions: [
      at(0, { kind: 'setInput', input: 'c', value: 2 }),
      at(0, { kind: 'setInput', input: 'a', value: 7 }),
      at(followUpAt, { kind: 'setInput', input: 'a', value: 7, zone: null }),
    ],
  })),
  {
    // Extended generator with the bad first revision (seed 23): c=7 is new and cuts n0 off, which its
    // agent reports Interrupted; a=2 3 s later (rev 3), c=7 narrowed to zone z1 (rev 4). Rev 4 fails
    // (n0 interrupted 4 times), n1 rolls back to rev 3, which then fails too: n1 leaves it for rev 1
    // (the newest completed), losing c, which it ran on rev 2. The planner remembers one step of what
    // a host ran (RAN_BEFORE_ANNOTATION: rev 4); invariant 6 follows that documented rule (a ledger
    // false alarm; README "Open").
    name: 'a node rolled back into a revision that then fails goes back to the newest completed one',
    ...GENERATED,
    policy: {
      ...GENERATED.policy,
      maxFailures: 0,
      preconfigTimeoutMs: 600_000,
      configTimeoutMs: 120_000,
      notReadyTimeoutMs: 300_000,
      limitPercent: 50,
      waveLabel: 'wave',
      waveBarrier: true,
    },
    inputs: { a: 1, b: 1 },
    restoreMs: 30_000,
    bad: [
      { input: 'c', value: 7, effect: 'cutOffInterrupted', nodes: ['n0'] },
      { input: 'a', value: 7, effect: 'invalid' },
    ],
    actions: [
      at(0, { kind: 'setInput', input: 'c', value: 7 }),
      at(3, { kind: 'setInput', input: 'a', value: 2 }),
      at(65, { kind: 'setInput', input: 'c', value: 7, zone: 'z1' }),
    ],
  },
  {
    // Extended generator, seed 101: a=7 refused and invalidated at 2 s; a person deletes a (rev 3)
    // and re-creates it with a=7 (the invalid rev 2's content: nothing built without a retry). n0
    // moves forward to rev 3, without a: the person's deletion rolling out, not a loss (a ledger
    // false alarm).
    name: 'a bad input deleted after its failure and re-created with the failed value',
    ...GENERATED,
    policy: { ...GENERATED.policy, maxFailures: 0 },
    bad: [{ input: 'a', value: 7, effect: 'invalid' }],
    actions: [
      at(0, { kind: 'setInput', input: 'a', value: 7 }),
      at(3, { kind: 'deleteInput', input: 'a' }),
      at(4, { kind: 'setInput', input: 'a', value: 7 }),
    ],
  },
  {
    // Extended generator, seed 201 (a guard): a=7 ran on n0, a=2 replaced it, then a=7 is written
    // again and rev 2 aborted in the same second. The write came after a was changed away: a
    // re-introduction, not a follow-up of rev 2's change (follow-ups.ts), so it is not held back.
    name: 'a bad value written back after a revert, as its revision is aborted, is no follow-up',
    ...GENERATED,
    policy: { ...GENERATED.policy, maxFailures: 0 },
    inputs: { b: 1, c: 1 },
    bad: [{ input: 'a', value: 7, effect: 'invalid', nodes: ['n1'] }],
    actions: [
      at(0, { kind: 'setInput', input: 'a', value: 7 }),
      at(61, { kind: 'setInput', input: 'a', value: 2 }),
      at(65, { kind: 'setInput', input: 'a', value: 7, zone: null }),
      at(65, { kind: 'abort', number: 2 }),
    ],
  },
];
