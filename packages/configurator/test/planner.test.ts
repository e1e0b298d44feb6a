import {
  ASSIGNED_AT_ANNOTATION,
  REVISION_NUMBER_LABEL,
  type NetworkConfigRevision,
  type NodeConfig,
  type NodeConfigStatus,
} from '@nodenet/api';
import { describe, expect, it } from 'vitest';
import { compareNodes, plan, type Action, type NodeInfo, type PlanInput } from '../src/planner.js';
import { DEFAULT_POLICY, updateLimitFor, type Policy } from '../src/policy.js';

const T0 = Date.parse('2025-01-01T00:00:00Z');
const iso = (ms: number): string => new Date(ms).toISOString();
const hash = (c: string): string => c.repeat(64).slice(0, 64);

function rev(
  number: number,
  h: string,
  extra: { invalid?: boolean; paused?: boolean } = {},
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
    },
    ...(extra.invalid ? { status: { isInvalid: true } } : {}),
  };
}

function node(name: string, opts: Partial<NodeInfo> = {}): NodeInfo {
  return { name, labels: {}, ready: true, ...opts };
}

function nc(
  name: string,
  h: string,
  opts: { assignedAt?: number; number?: number; status?: NodeConfigStatus } = {},
): NodeConfig {
  return {
    apiVersion: 'network.nodenet.io/v1alpha1',
    kind: 'NodeConfig',
    metadata: {
      name,
      ...(opts.assignedAt !== undefined
        ? { annotations: { [ASSIGNED_AT_ANNOTATION]: iso(opts.assignedAt) } }
        : {}),
      ...(opts.number !== undefined ? { labels: { [REVISION_NUMBER_LABEL]: String(opts.number) } } : {}),
    },
    spec: { revision: h, vrf: [], layer2: [], routingTable: [] },
    ...(opts.status ? { status: opts.status } : {}),
  };
}

const done = (h: string, at = T0 - 60_000): NodeConfigStatus => ({
  configStatus: 'provisioned',
  lastAppliedRevision: h,
  lastUpdate: iso(at),
});
const provisioning = (h: string, at: number): NodeConfigStatus => ({
  configStatus: 'provisioning',
  lastAppliedRevision: h,
  lastUpdate: iso(at),
});
const invalid = (h: string, at: number, message = 'frr reload failed'): NodeConfigStatus => ({
  configStatus: 'invalid',
  lastAppliedRevision: h,
  lastUpdate: iso(at),
  message,
});

const A = hash('a');
const B = hash('b');
const C = hash('c');

function input(over: Omit<Partial<PlanInput>, 'policy'> & { policy?: Partial<Policy> }): PlanInput {
  return {
    revisions: over.revisions ?? [],
    nodes: over.nodes ?? [],
    nodeConfigs: over.nodeConfigs ?? [],
    now: over.now ?? T0,
    policy: { ...DEFAULT_POLICY, ...(over.policy ?? {}) },
    ...(over.inputHash ? { inputHash: over.inputHash } : {}),
  };
}

const assigned = (actions: Action[]): string[] =>
  actions.filter((a): a is Extract<Action, { type: 'assign' }> => a.type === 'assign').map((a) => a.node);
const ofType = <K extends Action['type']>(actions: Action[], t: K): Extract<Action, { type: K }>[] =>
  actions.filter((a): a is Extract<Action, { type: K }> => a.type === t);

const nodes = (n: number, prefix = 'n'): NodeInfo[] =>
  Array.from({ length: n }, (_, i) => node(`${prefix}${String(i).padStart(2, '0')}`));

describe('update limit', () => {
  it.each([
    { limit: { kind: 'count', count: 1 }, targets: 20, slots: 1 },
    { limit: { kind: 'count', count: 3 }, targets: 20, slots: 3 },
    { limit: { kind: 'count', count: 5 }, targets: 2, slots: 5 },
    { limit: { kind: 'percent', percent: 10 }, targets: 20, slots: 2 },
    { limit: { kind: 'percent', percent: 10 }, targets: 21, slots: 3 },
    { limit: { kind: 'percent', percent: 25 }, targets: 3, slots: 1 },
    { limit: { kind: 'percent', percent: 1 }, targets: 5, slots: 1 },
    { limit: { kind: 'percent', percent: 1 }, targets: 0, slots: 1 },
    { limit: { kind: 'percent', percent: 100 }, targets: 7, slots: 7 },
    { limit: { kind: 'percent', percent: 33 }, targets: 100, slots: 33 },
  ] as const)(
    '$limit.kind $limit → $slots slots for $targets targets (rounded up, at least 1)',
    ({ limit, targets, slots }) => {
      expect(updateLimitFor(limit, targets)).toBe(slots);
    },
  );

  it('a percentage is taken of the target nodes, not of all nodes', () => {
    const ns = [...nodes(10), ...nodes(10, 'down').map((n) => ({ ...n, ready: false }))];
    const p = plan(
      input({ revisions: [rev(1, A)], nodes: ns, policy: { updateLimit: { kind: 'percent', percent: 20 } } }),
    );
    expect(p.limit).toBe(2);
    expect(assigned(p.actions)).toEqual(['n00', 'n01']);
  });
});

describe('filling slots', () => {
  it('fills all free slots in one pass in name order', () => {
    const p = plan(
      input({
        revisions: [rev(1, A)],
        nodes: nodes(20),
        policy: { updateLimit: { kind: 'count', count: 3 } },
      }),
    );
    expect(assigned(p.actions)).toEqual(['n00', 'n01', 'n02']);
    expect(p.inProgress).toBe(3);
  });

  it('nodes in progress hold their slots; only the rest is filled', () => {
    const ncs = [
      nc('n00', A, { assignedAt: T0 - 1000 }),
      nc('n01', A, { assignedAt: T0 - 1000, status: provisioning(A, T0 - 500) }),
    ];
    const p = plan(
      input({
        revisions: [rev(1, A)],
        nodes: nodes(5),
        nodeConfigs: ncs,
        policy: { updateLimit: { kind: 'count', count: 3 } },
      }),
    );
    expect(assigned(p.actions)).toEqual(['n02']);
  });

  it('finished nodes free their slots', () => {
    const ncs = [
      nc('n00', A, { assignedAt: T0 - 9000, status: done(A) }),
      nc('n01', A, { assignedAt: T0 - 1000 }),
    ];
    const p = plan(
      input({
        revisions: [rev(1, A)],
        nodes: nodes(4),
        nodeConfigs: ncs,
        policy: { updateLimit: { kind: 'count', count: 2 } },
      }),
    );
    expect(assigned(p.actions)).toEqual(['n02']);
  });

  it('orders by wave label value first (numerically), unlabelled last, then by name', () => {
    const ns = [
      node('a', { labels: { wave: '2' } }),
      node('b', { labels: { wave: '10' } }),
      node('c'),
      node('d', { labels: { wave: '1' } }),
      node('e', { labels: { wave: '2' } }),
    ];
    expect([...ns].sort(compareNodes('wave')).map((n) => n.name)).toEqual(['d', 'a', 'e', 'b', 'c']);
    const p = plan(
      input({
        revisions: [rev(1, A)],
        nodes: ns,
        policy: { updateLimit: { kind: 'count', count: 3 }, waveLabel: 'wave' },
      }),
    );
    expect(assigned(p.actions)).toEqual(['d', 'a', 'e']);
  });

  it('is deterministic whatever the input order', () => {
    const ns = nodes(10);
    const p1 = plan(
      input({ revisions: [rev(1, A)], nodes: ns, policy: { updateLimit: { kind: 'count', count: 4 } } }),
    );
    const p2 = plan(
      input({
        revisions: [rev(1, A)],
        nodes: [...ns].reverse(),
        policy: { updateLimit: { kind: 'count', count: 4 } },
      }),
    );
    expect(p1.actions).toEqual(p2.actions);
  });

  it('a paused revision starts no new nodes', () => {
    const p = plan(input({ revisions: [rev(1, A, { paused: true })], nodes: nodes(3) }));
    expect(assigned(p.actions)).toEqual([]);
    const st = p.statusUpdates.find((s) => s.revision === 'rev-1-aaaaaaaaaa')?.status;
    expect(st?.conditions?.find((c) => c.type === 'Progressing')).toMatchObject({
      status: 'False',
      reason: 'Paused',
    });
  });

  it('a new node gets the desired revision within the limit', () => {
    const ncs = nodes(3).map((n) => nc(n.name, A, { assignedAt: T0 - 9000, status: done(A) }));
    const p = plan(input({ revisions: [rev(1, A)], nodes: [...nodes(3), node('new')], nodeConfigs: ncs }));
    expect(ofType(p.actions, 'assign')).toEqual([
      expect.objectContaining({ node: 'new', hash: A, reason: expect.stringContaining('new node') }),
    ]);
  });

  it('the desired revision is the newest valid one by number, not by name or order', () => {
    const p = plan(input({ revisions: [rev(10, C), rev(9, B), rev(2, A)], nodes: nodes(1) }));
    expect(p.desired?.number).toBe(10);
    const p2 = plan(
      input({ revisions: [rev(10, C, { invalid: true }), rev(9, B), rev(2, A)], nodes: nodes(1) }),
    );
    expect(p2.desired?.number).toBe(9);
  });

  it('a node busy with a superseded revision keeps its slot and is handed the new one at once', () => {
    const ncs = [nc('n00', A, { assignedAt: T0 - 1000, status: provisioning(A, T0 - 500) })];
    const p = plan(input({ revisions: [rev(2, B), rev(1, A)], nodes: nodes(3), nodeConfigs: ncs }));
    expect(assigned(p.actions)).toEqual(['n00']);
    expect(p.inProgress).toBe(1);
  });
});

describe('non-target nodes', () => {
  it('NotReady nodes hold no slot and never count as failures', () => {
    const ns = [node('n00', { ready: false }), node('n01'), node('n02')];
    const ncs = [nc('n00', A, { assignedAt: T0 - 3_600_000, status: provisioning(A, T0 - 3_600_000) })];
    const p = plan(input({ revisions: [rev(1, A)], nodes: ns, nodeConfigs: ncs }));
    expect(ofType(p.actions, 'invalidate')).toEqual([]);
    expect(assigned(p.actions)).toEqual(['n01']);
    expect(p.nodeStates.notTarget).toBe(1);
  });

  it('a node that is Ready again restarts its timers from when it became Ready', () => {
    const ns = [node('n00', { readySinceMs: T0 - 1000 })];
    const ncs = [nc('n00', A, { assignedAt: T0 - 3_600_000, status: provisioning(A, T0 - 3_600_000) })];
    const p = plan(input({ revisions: [rev(1, A)], nodes: ns, nodeConfigs: ncs }));
    expect(ofType(p.actions, 'invalidate')).toEqual([]);
    expect(p.nodeStates.provisioning).toBe(1);
    expect(p.requeueAfterMs).toBe(DEFAULT_POLICY.configTimeoutMs - 1000 + 1);
  });

  it('NodeConfigs of deleted nodes are collected, without a failure', () => {
    const ncs = [
      nc('gone', A, { assignedAt: T0 - 3_600_000 }),
      nc('n00', A, { assignedAt: T0 - 10, status: done(A) }),
    ];
    const p = plan(input({ revisions: [rev(1, A)], nodes: nodes(1), nodeConfigs: ncs }));
    expect(ofType(p.actions, 'deleteNodeConfig')).toEqual([expect.objectContaining({ name: 'gone' })]);
    expect(ofType(p.actions, 'invalidate')).toEqual([]);
  });

  it('nodes not matching --node-selector are not targets', () => {
    const ns = [node('a', { labels: { role: 'edge' } }), node('b', { labels: { role: 'core' } })];
    const p = plan(
      input({
        revisions: [rev(1, A)],
        nodes: ns,
        policy: { nodeSelector: { matchLabels: { role: 'edge' } }, updateLimit: { kind: 'count', count: 5 } },
      }),
    );
    expect(assigned(p.actions)).toEqual(['a']);
  });

  it('a node being deleted is not a target', () => {
    const p = plan(input({ revisions: [rev(1, A)], nodes: [node('a', { deleting: true }), node('b')] }));
    expect(assigned(p.actions)).toEqual(['b']);
  });
});

describe('failures, invalidation and rollback', () => {
  const base = (ncs: NodeConfig[], policy: Partial<Policy> = {}, extraNodes = 0): PlanInput =>
    input({
      revisions: [rev(2, B), rev(1, A)],
      nodes: nodes(4 + extraNodes),
      nodeConfigs: ncs,
      policy: { updateLimit: { kind: 'count', count: 2 }, ...policy },
    });

  it('an invalid report invalidates the revision in the same pass and rolls back the nodes that took it', () => {
    const ncs = [
      nc('n00', B, { assignedAt: T0 - 5000, number: 2, status: invalid(B, T0 - 1000) }),
      nc('n01', B, { assignedAt: T0 - 5000, number: 2, status: done(B, T0 - 2000) }),
      nc('n02', A, { assignedAt: T0 - 90_000, number: 1, status: done(A) }),
      nc('n03', A, { assignedAt: T0 - 90_000, number: 1, status: done(A) }),
    ];
    const p = plan(base(ncs));
    const inv = ofType(p.actions, 'invalidate');
    expect(inv).toHaveLength(1);
    expect(inv[0]?.revision).toBe('rev-2-bbbbbbbbbb');
    expect(inv[0]?.failedNodes).toEqual([{ node: 'n00', message: 'frr reload failed', at: iso(T0 - 1000) }]);
    expect(p.desired?.number).toBe(1);
    const a = ofType(p.actions, 'assign');
    expect(a.map((x) => [x.node, x.hash, x.rollback])).toEqual([
      ['n00', A, true],
      ['n01', A, true],
    ]);
    const st = p.statusUpdates.find((s) => s.revision === 'rev-2-bbbbbbbbbb')?.status;
    expect(st?.isInvalid).toBe(true);
    expect(st?.conditions?.find((c) => c.type === 'Invalid')).toMatchObject({
      status: 'True',
      reason: 'NodesFailed',
    });
  });

  it('rollbacks respect the update limit and go before anything else', () => {
    const ncs = [
      nc('n00', B, { assignedAt: T0 - 5000, status: invalid(B, T0 - 1000) }),
      nc('n01', B, { assignedAt: T0 - 5000, status: done(B, T0 - 2000) }),
      nc('n02', B, { assignedAt: T0 - 5000, status: done(B, T0 - 2000) }),
    ];
    const p = plan(base(ncs));
    expect(assigned(p.actions)).toEqual(['n00', 'n01']);
  });

  it('failures up to --max-failures are tolerated; the failed node holds no slot', () => {
    const ncs = [nc('n00', B, { assignedAt: T0 - 5000, status: invalid(B, T0 - 1000) })];
    const p = plan(base(ncs, { maxFailures: 1 }));
    expect(ofType(p.actions, 'invalidate')).toEqual([]);
    expect(assigned(p.actions)).toEqual(['n01', 'n02']);
    expect(p.statusUpdates.find((s) => s.revision === 'rev-2-bbbbbbbbbb')?.status.failed).toBe(1);
  });

  it('failures above --max-failures invalidate', () => {
    const ncs = [
      nc('n00', B, { assignedAt: T0 - 5000, status: invalid(B, T0 - 1000) }),
      nc('n01', B, { assignedAt: T0 - 5000, status: invalid(B, T0 - 1000, 'bgp down') }),
    ];
    const p = plan(base(ncs, { maxFailures: 1 }));
    expect(ofType(p.actions, 'invalidate')[0]?.failedNodes.map((f) => f.node)).toEqual(['n00', 'n01']);
  });

  it('failedNodes is bounded', () => {
    const ncs = nodes(6).map((n) => nc(n.name, B, { assignedAt: T0 - 5000, status: invalid(B, T0 - 1000) }));
    const p = plan(base(ncs, { maxFailedNodes: 3 }, 2));
    expect(ofType(p.actions, 'invalidate')[0]?.failedNodes).toHaveLength(3);
  });

  it('preconfig timeout runs from the assignment annotation', () => {
    const pol = { preconfigTimeoutMs: 60_000 };
    const early = plan(base([nc('n00', B, { assignedAt: T0 - 59_000 })], pol));
    expect(ofType(early.actions, 'invalidate')).toEqual([]);
    expect(early.requeueAfterMs).toBe(1001);
    const late = plan(base([nc('n00', B, { assignedAt: T0 - 61_000 })], pol));
    expect(ofType(late.actions, 'invalidate')[0]?.failedNodes[0]?.message).toMatch(/preconfig timeout/);
  });

  it('a stale report about the same hash from before the assignment does not count', () => {
    const stale = nc('n00', B, { assignedAt: T0 - 1000, status: invalid(B, T0 - 5000) });
    const p = plan(base([stale]));
    expect(ofType(p.actions, 'invalidate')).toEqual([]);
    expect(p.nodeStates.failed).toBe(0);
    expect(assigned(p.actions)).toEqual(['n01']); // n00 still holds its slot
  });

  it("config timeout runs from the agent's last update, not from the assignment", () => {
    const pol = { configTimeoutMs: 30_000, preconfigTimeoutMs: 600_000 };
    const ok = plan(
      base([nc('n00', B, { assignedAt: T0 - 500_000, status: provisioning(B, T0 - 29_000) })], pol),
    );
    expect(ofType(ok.actions, 'invalidate')).toEqual([]);
    const stuck = plan(
      base([nc('n00', B, { assignedAt: T0 - 40_000, status: provisioning(B, T0 - 31_000) })], pol),
    );
    expect(ofType(stuck.actions, 'invalidate')[0]?.failedNodes[0]?.message).toMatch(/config timeout/);
  });

  it('with no valid revision left, nothing is assigned', () => {
    const ncs = [nc('n00', A, { assignedAt: T0 - 5000, status: invalid(A, T0 - 1000) })];
    const p = plan(input({ revisions: [rev(1, A)], nodes: nodes(2), nodeConfigs: ncs }));
    expect(ofType(p.actions, 'invalidate')).toHaveLength(1);
    expect(assigned(p.actions)).toEqual([]);
    expect(p.desired).toBeUndefined();
  });

  it('a retry of the same content after the invalid revision was deleted assigns the failed node again', () => {
    const ncs = [nc('n00', A, { assignedAt: T0 - 5000, number: 1, status: invalid(A, T0 - 1000) })];
    const p = plan(input({ revisions: [rev(2, A)], nodes: nodes(1), nodeConfigs: ncs }));
    expect(ofType(p.actions, 'invalidate')).toEqual([]);
    expect(ofType(p.actions, 'assign')).toEqual([
      expect.objectContaining({ node: 'n00', number: 2, reason: expect.stringMatching(/retry/) }),
    ]);
  });
});

describe('status as the agent writes it (observedGeneration; lastAppliedRevision = what is on the host)', () => {
  const withGen = (n: NodeConfig, generation: number): NodeConfig => ({
    ...n,
    metadata: { ...n.metadata, generation },
  });
  const agentStatus = (
    configStatus: 'provisioning' | 'invalid' | 'provisioned',
    onHost: string,
    gen: number,
    at: number,
  ): NodeConfigStatus => ({
    configStatus,
    lastAppliedRevision: onHost,
    lastUpdate: iso(at),
    message: configStatus === 'invalid' ? 'health check failed: bgp' : 'x',
    conditions: [
      {
        type: 'Ready',
        status: 'False',
        reason: 'R',
        message: 'm',
        lastTransitionTime: iso(at),
        observedGeneration: gen,
      },
    ],
  });

  it('provisioning with the old revision still on the host is provisioning (config timeout applies)', () => {
    const n = withGen(
      nc('n00', B, { assignedAt: T0 - 40_000, status: agentStatus('provisioning', A, 2, T0 - 31_000) }),
      2,
    );
    const p = plan(
      input({
        revisions: [rev(2, B), rev(1, A)],
        nodes: nodes(1),
        nodeConfigs: [n],
        policy: { configTimeoutMs: 30_000 },
      }),
    );
    expect(ofType(p.actions, 'invalidate')[0]?.failedNodes[0]?.message).toMatch(/config timeout/);
  });

  it('invalid with the restored revision on the host is a failure of the current spec', () => {
    const n = withGen(
      nc('n00', B, { assignedAt: T0 - 5000, status: agentStatus('invalid', A, 2, T0 - 1000) }),
      2,
    );
    const p = plan(input({ revisions: [rev(2, B), rev(1, A)], nodes: nodes(1), nodeConfigs: [n] }));
    expect(ofType(p.actions, 'invalidate')[0]?.failedNodes[0]).toMatchObject({
      node: 'n00',
      message: 'health check failed: bgp',
    });
  });

  it('a status answering an older generation is not about the current spec', () => {
    const n = withGen(
      nc('n00', B, { assignedAt: T0 - 5000, status: agentStatus('invalid', A, 1, T0 - 1000) }),
      2,
    );
    const p = plan(input({ revisions: [rev(2, B), rev(1, A)], nodes: nodes(1), nodeConfigs: [n] }));
    expect(ofType(p.actions, 'invalidate')).toEqual([]);
    expect(p.nodeStates.pending).toBe(1);
  });
});

describe('soak (--min-success-time)', () => {
  it('a finished node keeps its slot until the soak period ends', () => {
    const pol = { minSuccessTimeMs: 30_000 };
    const ncs = [nc('n00', A, { assignedAt: T0 - 60_000, status: done(A, T0 - 10_000) })];
    const p = plan(input({ revisions: [rev(1, A)], nodes: nodes(2), nodeConfigs: ncs, policy: pol }));
    expect(assigned(p.actions)).toEqual([]);
    expect(p.nodeStates.soaking).toBe(1);
    expect(p.requeueAfterMs).toBe(20_001);
    const later = plan(
      input({ revisions: [rev(1, A)], nodes: nodes(2), nodeConfigs: ncs, policy: pol, now: T0 + 20_001 }),
    );
    expect(assigned(later.actions)).toEqual(['n01']);
  });
});

describe('revision status', () => {
  it('counts nodes and reports Complete when all target nodes are ready', () => {
    const ncs = nodes(3).map((n) => nc(n.name, A, { assignedAt: T0 - 9000, status: done(A) }));
    const p = plan(input({ revisions: [rev(1, A)], nodes: nodes(3), nodeConfigs: ncs }));
    const st = p.statusUpdates[0]?.status;
    expect(st).toMatchObject({ total: 3, ready: 3, ongoing: 0, queued: 0, failed: 0, isInvalid: false });
    expect(st?.conditions?.find((c) => c.type === 'Complete')).toMatchObject({ status: 'True' });
  });

  it('counts queued and ongoing during a rollout', () => {
    const p = plan(
      input({
        revisions: [rev(1, A)],
        nodes: nodes(5),
        policy: { updateLimit: { kind: 'count', count: 2 } },
      }),
    );
    expect(p.statusUpdates[0]?.status).toMatchObject({ total: 5, ready: 0, ongoing: 2, queued: 3 });
    expect(p.statusUpdates[0]?.status.conditions?.find((c) => c.type === 'Progressing')).toMatchObject({
      status: 'True',
    });
  });

  it('no status update when nothing changed', () => {
    const ncs = nodes(2).map((n) => nc(n.name, A, { assignedAt: T0 - 9000, status: done(A) }));
    const first = plan(input({ revisions: [rev(1, A)], nodes: nodes(2), nodeConfigs: ncs }));
    const r = { ...rev(1, A), status: first.statusUpdates[0]?.status };
    const second = plan(input({ revisions: [r], nodes: nodes(2), nodeConfigs: ncs, now: T0 + 60_000 }));
    expect(second.statusUpdates).toEqual([]);
  });
});

describe('history cleanup', () => {
  const many = (n: number): NetworkConfigRevision[] =>
    Array.from({ length: n }, (_, i) => {
      const r = rev(i + 1, (i + 1).toString(16).padStart(64, '0'));
      return { ...r, metadata: { name: `rev-${i + 1}` } };
    });

  it('deletes the oldest unreferenced revisions beyond the limit', () => {
    const revs = many(6);
    const p = plan(input({ revisions: revs, nodes: [], policy: { revisionHistoryLimit: 3 } }));
    expect(ofType(p.actions, 'deleteRevision').map((a) => a.revision)).toEqual(['rev-3', 'rev-2', 'rev-1']);
  });

  it('never deletes a revision a NodeConfig references, nor the rollback target', () => {
    const revs = many(6);
    const ncs = [nc('x', (1).toString(16).padStart(64, '0'), { assignedAt: T0 })];
    const p = plan(
      input({ revisions: revs, nodes: [node('x')], nodeConfigs: ncs, policy: { revisionHistoryLimit: 1 } }),
    );
    const deleted = ofType(p.actions, 'deleteRevision').map((a) => a.revision);
    expect(deleted).not.toContain('rev-1');
    expect(deleted).not.toContain('rev-5'); // rollback target of rev-6
    expect(deleted).toEqual(['rev-4', 'rev-3', 'rev-2']);
  });

  it('keeps invalid revisions within the limit, and one equal to the inputs even beyond it', () => {
    const revs = many(4).map((r, i) => (i === 0 || i === 3 ? { ...r, status: { isInvalid: true } } : r));
    const p = plan(input({ revisions: revs, nodes: [], policy: { revisionHistoryLimit: 2 } }));
    // rev-4 invalid (kept, within limit), rev-3 desired, rev-2 rollback target, rev-1 invalid beyond the limit
    expect(ofType(p.actions, 'deleteRevision').map((a) => a.revision)).toEqual(['rev-1']);
    const keep = plan(
      input({
        revisions: revs,
        nodes: [],
        policy: { revisionHistoryLimit: 2 },
        inputHash: revs[0]?.spec.hash,
      }),
    );
    expect(ofType(keep.actions, 'deleteRevision')).toEqual([]);
  });
});
