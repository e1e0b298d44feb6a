import { describe, expect, it } from 'vitest';
import {
  DEFAULT_POLICY,
  updateLimitFor,
  type Policy,
  MAX_REQUEUE_MS,
  clampRequeue,
  plan,
  type PlanInput,
} from '@nodenet/configurator';
import {
  A,
  B,
  C,
  M0,
  T0,
  assigned,
  completed,
  done,
  input,
  invalid,
  iso,
  nc,
  node,
  nodes,
  ofType,
  provisioning,
  rev,
  type Seen,
} from './fixtures.js';
import type { NodeConfig } from '@nodenet/api';

describe('update limit', () => {
  it.each([
    { limit: { kind: 'count', count: 1 }, targets: 20, slots: 1 },
    { limit: { kind: 'count', count: 3 }, targets: 20, slots: 3 },
    { limit: { kind: 'count', count: 5 }, targets: 2, slots: 5 },
    { limit: { kind: 'percent', percent: 10 }, targets: 20, slots: 2 },
    { limit: { kind: 'percent', percent: 10 }, targets: 21, slots: 3 },
    { limit: { kind: 'percent', percent: 25 }, targets: 3, slots: 1 },
    { limit: { kind: 'percent', percent: 1 }, targets: 0, slots: 1 },
    { limit: { kind: 'percent', percent: 100 }, targets: 7, slots: 7 },
    { limit: { kind: 'percent', percent: 33 }, targets: 100, slots: 33 },
  ] as const)('$limit.kind → $slots slots for $targets targets', ({ limit, targets, slots }) => {
    expect(updateLimitFor(limit, targets)).toBe(slots);
  });

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
  const limit = (count: number): Partial<Policy> => ({ updateLimit: { kind: 'count', count } });

  it('fills all free slots in one pass in name order, new nodes as forward moves', () => {
    const p = plan(input({ revisions: [rev(1, A)], nodes: nodes(20), policy: limit(3) }));
    expect(assigned(p.actions)).toEqual(['n00', 'n01', 'n02']);
    expect(ofType(p.actions, 'assign').map((a) => a.move)).toEqual(['forward', 'forward', 'forward']);
    expect(p.inProgress).toBe(3);
  });

  it('nodes in progress hold their slots; only the rest is filled', () => {
    const ncs = [nc('n00', A), nc('n01', A, { status: provisioning(A) })];
    const p = plan(input({ revisions: [rev(1, A)], nodes: nodes(5), nodeConfigs: ncs, policy: limit(3) }));
    expect(assigned(p.actions)).toEqual(['n02']);
  });

  it('finished nodes free their slots', () => {
    const ncs = [nc('n00', A, { status: done(A) }), nc('n01', A)];
    const p = plan(input({ revisions: [rev(1, A)], nodes: nodes(4), nodeConfigs: ncs, policy: limit(2) }));
    expect(assigned(p.actions)).toEqual(['n02']);
  });

  it('is deterministic whatever the input order', () => {
    const ns = nodes(10);
    const p1 = plan(input({ revisions: [rev(1, A)], nodes: ns, policy: limit(4) }));
    const p2 = plan(input({ revisions: [rev(1, A)], nodes: [...ns].reverse(), policy: limit(4) }));
    expect(p1.actions).toEqual(p2.actions);
  });

  it('a new node joining a complete revision catches up (its failure will not count against it)', () => {
    const ncs = nodes(3).map((n) => nc(n.name, A, { status: done(A) }));
    const p = plan(
      input({ revisions: [completed(rev(1, A))], nodes: [...nodes(3), node('new')], nodeConfigs: ncs }),
    );
    expect(ofType(p.actions, 'assign')).toEqual([
      expect.objectContaining({
        node: 'new',
        hash: A,
        move: 'catch-up',
        reason: expect.stringContaining('new node'),
      }),
    ]);
  });

  it('the desired revision is the newest valid one by number, not by name or order', () => {
    expect(
      plan(input({ revisions: [rev(10, C), rev(9, B), rev(2, A)], nodes: nodes(1) })).desired?.number,
    ).toBe(10);
    const p2 = plan(
      input({ revisions: [rev(10, C, { invalid: true }), completed(rev(9, B)), rev(2, A)], nodes: nodes(1) }),
    );
    expect(p2.desired?.number).toBe(9);
    // The fallback is the last completed revision, else the empty config: one that never completed
    // may carry the change that failed (issue 23).
    const p3 = plan(input({ revisions: [rev(10, C, { invalid: true }), rev(9, B)], nodes: nodes(1) }));
    expect(p3.desired).toMatchObject({ name: 'empty-config', number: 0 });
  });

  it('a node busy with a superseded revision keeps its slot and is handed the new one at once', () => {
    const ncs = [nc('n00', A, { status: provisioning(A) })];
    const p = plan(input({ revisions: [rev(2, B), rev(1, A)], nodes: nodes(3), nodeConfigs: ncs }));
    expect(assigned(p.actions)).toEqual(['n00']);
    expect(p.inProgress).toBe(1);
  });

  // Issue item 5: re-assigning NodeConfigs without assigned-at ignored the limit (6 nodes at limit 1).
  it('NodeConfigs without an assignment time are re-assigned under the limit, one at limit 1', () => {
    const ncs = nodes(6).map((n) => nc(n.name, A, { assigned: false }));
    const p = plan(input({ revisions: [rev(1, A)], nodes: nodes(6), nodeConfigs: ncs }));
    expect(ofType(p.actions, 'assign')).toEqual([
      expect.objectContaining({ node: 'n00', reason: expect.stringContaining('no assignment time') }),
    ]);
  });
});

describe('NotReady and gone nodes', () => {
  it('a node NotReady before it is handed the revision holds no slot, is no failure, and keeps the revision from completing', () => {
    const ns = [node('n00', { ready: false }), node('n01'), node('n02')];
    const ncs = [nc('n00', A, { status: done(A) })];
    const p = plan(input({ revisions: [rev(2, B), rev(1, A)], nodes: ns, nodeConfigs: ncs }));
    expect(ofType(p.actions, 'invalidate')).toEqual([]);
    expect(assigned(p.actions)).toEqual(['n01']);
    expect(p.nodeStates.unavailable).toBe(1);
    const st = p.statusUpdates.find((u) => u.revision === 'rev-2-bbbbbbbbbb')?.status;
    expect(st?.degradedNodes?.map((d) => d.message)).toEqual(['unavailable: NotReady']);
  });

  // Issue item 1: a node that went NotReady after taking the revision freed its slot.
  it.each<{ what: string; nc: NodeConfig; seen: Seen }>([
    {
      what: 'pending',
      nc: nc('n00', B, { number: 2 }),
      seen: { assign: 10_000, readiness: 'notReady', readinessFor: 5_000 },
    },
    {
      what: 'provisioning',
      nc: nc('n00', B, { number: 2, status: provisioning(A) }),
      seen: { assign: 10_000, status: 8_000, readiness: 'notReady', readinessFor: 5_000 },
    },
    {
      what: 'soaking',
      nc: nc('n00', B, { number: 2, status: done(B) }),
      seen: { assign: 10_000, status: 8_000, readiness: 'notReady', readinessFor: 5_000 },
    },
  ])(
    'a $what node that goes NotReady keeps its slot: the revision reaches no second node at limit 1',
    (c) => {
      const p = plan(
        input({
          revisions: [rev(2, B), completed(rev(1, A))],
          nodes: [node('n00', { ready: false }), node('n01'), node('n02')],
          nodeConfigs: [c.nc, nc('n01', A, { status: done(A) }), nc('n02', A, { status: done(A) })],
          seen: { n00: c.seen },
          policy: { minSuccessTimeMs: 60_000, notReadyTimeoutMs: 120_000 },
        }),
      );
      expect(assigned(p.actions)).toEqual([]);
      expect(p.nodeStates.notReady).toBe(1);
      expect(p.inProgress).toBe(1);
      expect(p.requeueAfterMs).toBe(120_000 - 5_000 + 1);
    },
  );

  it('NotReady beyond --not-ready-timeout after taking the revision is a failure that invalidates it', () => {
    const p = plan(
      input({
        revisions: [rev(7, B), completed(rev(6, A))],
        nodes: [node('n00', { ready: false }), node('n01')],
        nodeConfigs: [nc('n00', B, { number: 7, status: done(B) }), nc('n01', A, { status: done(A) })],
        seen: { n00: { assign: 200_000, status: 150_000, readiness: 'notReady', readinessFor: 120_001 } },
        policy: { minSuccessTimeMs: 60_000, notReadyTimeoutMs: 120_000 },
      }),
    );
    const inv = ofType(p.actions, 'invalidate');
    expect(inv[0]?.failedNodes).toEqual([
      { node: 'n00', message: 'NotReady for 2m after taking revision 7', at: expect.any(String) },
    ]);
    expect(p.desired?.number).toBe(6);
    // The NotReady node is rolled back when it returns, not now: it holds no slot while away.
    expect(assigned(p.actions)).toEqual([]);
  });

  it('a node whose Node object is gone keeps its slot (its NodeConfig is not collected) until the timeout', () => {
    // Its agent had started on revision 2 (provisioning): a node that never reported is not counted.
    const ncs = [nc('gone', B, { number: 2, status: provisioning(A) }), nc('n00', A, { status: done(A) })];
    const base = { revisions: [rev(2, B), rev(1, A)], nodes: [node('n00')], nodeConfigs: ncs };
    const early = plan(
      input({ ...base, seen: { gone: { assign: 10_000, readiness: 'gone', readinessFor: 5_000 } } }),
    );
    expect(ofType(early.actions, 'deleteNodeConfig')).toEqual([]);
    expect(assigned(early.actions)).toEqual([]);
    const late = plan(
      input({ ...base, seen: { gone: { assign: 400_000, readiness: 'gone', readinessFor: 301_000 } } }),
    );
    expect(ofType(late.actions, 'invalidate')[0]?.failedNodes[0]?.message).toBe(
      'Node gone for 5m after taking revision 2',
    );
    // Collected once the failure is in the revision's record, never in the pass that records it.
    expect(ofType(late.actions, 'deleteNodeConfig')).toEqual([]);
    const recorded = ofType(late.actions, 'invalidate')[0]?.failedNodes ?? [];
    const after = plan(
      input({
        ...base,
        revisions: [rev(2, B, { invalid: true, status: { failedNodes: recorded, failed: 1 } }), rev(1, A)],
        seen: { gone: { assign: 400_000, readiness: 'gone', readinessFor: 301_000 } },
      }),
    );
    expect(ofType(after.actions, 'deleteNodeConfig').map((a) => a.name)).toEqual(['gone']);
    const st = after.statusUpdates.find((u) => u.revision === 'rev-2-bbbbbbbbbb')?.status;
    expect(st?.failedNodes?.map((f) => f.node) ?? recorded.map((f) => f.node)).toEqual(['gone']);
  });

  it('NodeConfigs of deleted nodes that hold no slot are collected, without a failure', () => {
    const ncs = [nc('gone', A, { status: done(A) }), nc('n00', A, { status: done(A) })];
    const p = plan(input({ revisions: [rev(1, A)], nodes: nodes(1), nodeConfigs: ncs }));
    expect(ofType(p.actions, 'deleteNodeConfig')).toEqual([expect.objectContaining({ name: 'gone' })]);
    expect(ofType(p.actions, 'invalidate')).toEqual([]);
  });

  it('nodes not matching --node-selector, and nodes being deleted, are not targets', () => {
    const ns = [
      node('a', { labels: { role: 'edge' } }),
      node('b'),
      node('c', { labels: { role: 'edge' }, deleting: true }),
    ];
    const p = plan(
      input({
        revisions: [rev(1, A)],
        nodes: ns,
        policy: { nodeSelector: { matchLabels: { role: 'edge' } }, updateLimit: { kind: 'count', count: 5 } },
      }),
    );
    expect(assigned(p.actions)).toEqual(['a']);
  });
});

describe('failures, invalidation and rollback', () => {
  it('a status answering an older generation is not about the current spec', () => {
    const n = nc('n00', B, { generation: 2, status: invalid(A, 'old', T0, 1) });
    const p = plan(input({ revisions: [rev(2, B), rev(1, A)], nodes: nodes(1), nodeConfigs: [n] }));
    expect(ofType(p.actions, 'invalidate')).toEqual([]);
    expect(p.nodeStates.pending).toBe(1);
  });

  const base = (
    ncs: NodeConfig[],
    policy: Partial<Policy> = {},
    extraNodes = 0,
    seen: Record<string, Seen> = {},
  ): PlanInput =>
    input({
      revisions: [rev(2, B), completed(rev(1, A))],
      nodes: nodes(4 + extraNodes),
      nodeConfigs: ncs,
      policy: { updateLimit: { kind: 'count', count: 2 }, ...policy },
      seen,
    });

  it('an invalid report invalidates the revision in the same pass and rolls back the nodes that took it', () => {
    const ncs = [
      nc('n00', B, { number: 2, status: invalid(A) }),
      nc('n01', B, { number: 2, status: done(B) }),
      nc('n02', A, { number: 1, status: done(A) }),
      nc('n03', A, { number: 1, status: done(A) }),
    ];
    const p = plan(base(ncs));
    const inv = ofType(p.actions, 'invalidate');
    expect(inv.map((i) => i.revision)).toEqual(['rev-2-bbbbbbbbbb']);
    expect(inv[0]?.failedNodes).toEqual([
      { node: 'n00', message: 'frr reload failed', at: iso(T0).replace('.000', '') },
    ]);
    expect(p.desired?.number).toBe(1);
    expect(ofType(p.actions, 'assign').map((x) => [x.node, x.hash, x.rollback, x.move])).toEqual([
      ['n00', A, true, 'rollback'],
      ['n01', A, true, 'rollback'],
    ]);
    const st = p.statusUpdates.find((s) => s.revision === 'rev-2-bbbbbbbbbb')?.status;
    expect(st?.isInvalid).toBe(true);
    expect(st?.conditions?.find((c) => c.type === 'Invalid')).toMatchObject({
      status: 'True',
      reason: 'NodesFailed',
    });
  });

  it('failures up to --max-failures are tolerated; the failed node holds no slot', () => {
    const p = plan(base([nc('n00', B, { status: invalid(A) })], { maxFailures: 1 }));
    expect(ofType(p.actions, 'invalidate')).toEqual([]);
    expect(assigned(p.actions)).toEqual(['n01', 'n02']);
    expect(p.statusUpdates.find((s) => s.revision === 'rev-2-bbbbbbbbbb')?.status.failed).toBe(1);
  });

  it('failures above --max-failures invalidate; failedNodes is bounded', () => {
    const ncs = nodes(6).map((n) => nc(n.name, B, { status: invalid(A, 'bgp down') }));
    const p = plan(base(ncs, { maxFailures: 1, maxFailedNodes: 3 }, 2));
    expect(ofType(p.actions, 'invalidate')[0]?.failedNodes.map((f) => f.node)).toEqual(['n00', 'n01', 'n02']);
  });

  it('preconfig timeout runs from the assignment this configurator observed', () => {
    const pol = { preconfigTimeoutMs: 60_000 };
    // The agent answered before (an older generation): it runs, so its silence counts.
    const answeredBefore = nc('n00', B, { status: done(A, T0, 0) });
    const early = plan(base([answeredBefore], pol, 0, { n00: { assign: 59_000 } }));
    expect(ofType(early.actions, 'invalidate')).toEqual([]);
    expect(early.requeueAfterMs).toBe(1001);
    const late = plan(base([answeredBefore], pol, 0, { n00: { assign: 61_000 } }));
    expect(ofType(late.actions, 'invalidate')[0]?.failedNodes[0]?.message).toMatch(/preconfig timeout/);
  });

  it('a report that was there before the assignment was observed does not count', () => {
    const stale = nc('n00', B, { status: invalid(A) });
    const p = plan(base([stale], {}, 0, { n00: { assign: 1_000, status: 5_000 } }));
    expect(ofType(p.actions, 'invalidate')).toEqual([]);
    expect(p.nodeStates.failed).toBe(0);
    expect(assigned(p.actions)).toEqual(['n01']); // n00 still holds its slot (pending)
  });

  it('config timeout: no status change seen for --config-timeout; any change (a heartbeat) is progress', () => {
    const pol = { configTimeoutMs: 30_000, preconfigTimeoutMs: 600_000 };
    const n = nc('n00', B, { status: provisioning(A) });
    const ok = plan(base([n], pol, 0, { n00: { assign: 500_000, status: 29_000 } }));
    expect(ofType(ok.actions, 'invalidate')).toEqual([]);
    const stuck = plan(base([n], pol, 0, { n00: { assign: 40_000, status: 31_000 } }));
    expect(ofType(stuck.actions, 'invalidate')[0]?.failedNodes[0]?.message).toMatch(/config timeout/);
    // A phase the agent reports while it waits for confirmation is "working" the same way.
    const confirming = nc('n00', B, { status: { ...provisioning(A), configStatus: 'confirming' as never } });
    const c = plan(base([confirming], pol, 0, { n00: { assign: 500_000, status: 10_000 } }));
    expect(c.nodeStates.provisioning).toBe(1);
  });

  it('with no valid revision left, the nodes that took the invalid one are rolled back to the empty config', () => {
    const ncs = [nc('n00', A, { status: invalid(A) })];
    const p = plan(input({ revisions: [rev(1, A)], nodes: nodes(2), nodeConfigs: ncs }));
    expect(ofType(p.actions, 'invalidate')).toHaveLength(1);
    expect(ofType(p.actions, 'assign')).toEqual([
      expect.objectContaining({ node: 'n00', revision: 'empty-config', number: 0, move: 'rollback' }),
    ]);
    expect(p.desired?.name).toBe('empty-config');
  });

  it('a failure under an earlier attempt at the same content does not count; the node is handed the new attempt', () => {
    const ncs = [nc('n00', A, { number: 1, status: invalid(A) })];
    const p = plan(
      input({ revisions: [rev(2, A), rev(1, A, { invalid: true })], nodes: nodes(1), nodeConfigs: ncs }),
    );
    expect(ofType(p.actions, 'invalidate')).toEqual([]);
    expect(ofType(p.actions, 'assign')).toEqual([
      expect.objectContaining({ node: 'n00', number: 2, reason: expect.stringMatching(/retry/) }),
    ]);
  });
});

// Issue item 2 and "only forward moves count".
describe('only forward moves during the rollout count', () => {
  it('a node joining a complete revision that never reports is degraded, and the revision stays valid', () => {
    const r = completed(rev(1, A));
    const ncs = [
      ...nodes(3).map((n) => nc(n.name, A, { status: done(A) })),
      nc('new', A, { move: 'catch-up' }),
    ];
    const p = plan(
      input({
        revisions: [r],
        nodes: [...nodes(3), node('new')],
        nodeConfigs: ncs,
        seen: { new: { assign: 700_000 } },
      }),
    );
    expect(ofType(p.actions, 'invalidate')).toEqual([]);
    const st = p.statusUpdates[0]?.status;
    expect(st).toMatchObject({
      degraded: 1,
      failed: 0,
      isInvalid: false,
      completedAt: r.status?.completedAt,
    });
    expect(st?.degradedNodes?.[0]).toMatchObject({
      node: 'new',
      message: expect.stringMatching(/preconfig timeout/),
    });
    expect(st?.conditions?.find((c) => c.type === 'Degraded')).toMatchObject({
      status: 'True',
      reason: 'NodesDegraded',
    });
  });

  it('an agent that breaks after the revision completed is degraded, even though it took it as a forward move', () => {
    const r = completed(rev(2, B));
    const ncs = [
      nc('n00', B, { move: 'forward', status: invalid(A, 'agent broke') }),
      nc('n01', B, { status: done(B) }),
    ];
    const p = plan(input({ revisions: [r, rev(1, A)], nodes: nodes(2), nodeConfigs: ncs }));
    expect(ofType(p.actions, 'invalidate')).toEqual([]);
    expect(p.statusUpdates.find((s) => s.revision === r.metadata.name)?.status.degraded).toBe(1);
  });

  it('a failed rollback never invalidates the rollback target', () => {
    const ncs = [
      nc('n00', A, { move: 'rollback', status: invalid(B, 'restore failed') }),
      nc('n01', A, { status: done(A) }),
    ];
    // Revision 1 (the known-good fallback) rolling back: the rollback failure is reported only.
    const p = plan(
      input({
        revisions: [rev(2, B, { invalid: true }), completed(rev(1, A))],
        nodes: nodes(2),
        nodeConfigs: ncs,
      }),
    );
    expect(ofType(p.actions, 'invalidate')).toEqual([]);
    expect(p.desired?.number).toBe(1);
    expect(
      p.statusUpdates.find((s) => s.revision === 'rev-1-aaaaaaaaaa')?.status.degradedNodes?.[0]?.node,
    ).toBe('n00');
  });
});

// Issue item 3: foreign clocks.
describe('one clock: foreign timestamps are never compared', () => {
  const skews = [
    { what: '3 minutes behind', lastUpdate: T0 - 180_000 },
    { what: 'a day ahead', lastUpdate: T0 + 86_400_000 },
    { what: 'a year behind', lastUpdate: T0 - 365 * 86_400_000 },
  ];
  it.each(skews)('agent clock $what: a fresh provisioning report is no timeout', ({ lastUpdate }) => {
    const p = plan(
      input({
        revisions: [rev(2, B), rev(1, A)],
        nodes: nodes(2),
        nodeConfigs: [nc('n00', B, { status: provisioning(A, lastUpdate) })],
        seen: { n00: { assign: 2_000, status: 1_000 } },
      }),
    );
    expect(ofType(p.actions, 'invalidate')).toEqual([]);
    expect(p.requeueAfterMs).toBe(DEFAULT_POLICY.configTimeoutMs - 1_000 + 1);
  });

  it.each(skews)('agent clock $what: an invalid report counts at once', ({ lastUpdate }) => {
    const p = plan(
      input({
        revisions: [rev(2, B), rev(1, A)],
        nodes: nodes(2),
        nodeConfigs: [nc('n00', B, { status: invalid(A, 'bad', lastUpdate) })],
        seen: { n00: { assign: 2_000, status: 1_000 } },
      }),
    );
    expect(ofType(p.actions, 'invalidate')).toHaveLength(1);
  });

  it.each(skews)('agent clock $what: a stuck node still times out', ({ lastUpdate }) => {
    const p = plan(
      input({
        revisions: [rev(2, B), rev(1, A)],
        nodes: nodes(2),
        nodeConfigs: [nc('n00', B, { status: provisioning(A, lastUpdate) })],
        seen: {
          n00: { assign: 2 * DEFAULT_POLICY.configTimeoutMs, status: DEFAULT_POLICY.configTimeoutMs + 1 },
        },
      }),
    );
    expect(ofType(p.actions, 'invalidate')).toHaveLength(1);
  });

  it('a Lease renewal seen within --config-timeout keeps a working node; one seen before its assignment does not (issue 40)', () => {
    const stuck = (renewal: number) =>
      plan(
        input({
          revisions: [rev(2, B), rev(1, A)],
          nodes: nodes(2),
          nodeConfigs: [nc('n00', B, { status: provisioning(A) })],
          seen: {
            n00: {
              assign: 2 * DEFAULT_POLICY.configTimeoutMs,
              status: DEFAULT_POLICY.configTimeoutMs + 1,
              renewal,
            },
          },
        }),
      );
    expect(ofType(stuck(DEFAULT_POLICY.configTimeoutMs - 1).actions, 'invalidate')).toHaveLength(0);
    expect(ofType(stuck(DEFAULT_POLICY.configTimeoutMs + 1).actions, 'invalidate')).toHaveLength(1);
    expect(ofType(stuck(3 * DEFAULT_POLICY.configTimeoutMs).actions, 'invalidate')).toHaveLength(1);
  });

  it('a new leader (no observations yet) starts every timer from its own first sight: it may wait longer, never fail earlier', () => {
    // Assigned an hour ago by the previous leader, agent stuck since; the new leader just started.
    const ncs = [nc('n00', B, { status: provisioning(A, T0 - 3_600_000) }), nc('n01', B)];
    const p = plan(input({ revisions: [rev(2, B), rev(1, A)], nodes: nodes(2), nodeConfigs: ncs }));
    expect(ofType(p.actions, 'invalidate')).toEqual([]);
    expect(p.nodeStates).toMatchObject({ provisioning: 1, pending: 1 });
    expect(p.requeueAfterMs).toBe(DEFAULT_POLICY.configTimeoutMs + 1);
  });

  it('requeue delays are clamped to an hour, whatever the soak', () => {
    const p = plan(
      input({
        revisions: [rev(1, A)],
        nodes: nodes(2),
        nodeConfigs: [nc('n00', A, { status: done(A) })],
        seen: { n00: { assign: 1000, status: 1000 } },
        policy: { minSuccessTimeMs: 720 * 3_600_000 },
      }),
    );
    expect(p.nodeStates.soaking).toBe(1);
    expect(p.requeueAfterMs).toBe(MAX_REQUEUE_MS);
  });

  it.each([
    [-5, 1],
    [0, 1],
    [10, 11],
    [2 ** 40, MAX_REQUEUE_MS],
    [Infinity, MAX_REQUEUE_MS],
    [NaN, MAX_REQUEUE_MS],
  ])('clampRequeue(%d) = %d', (ms, want) => {
    expect(clampRequeue(ms)).toBe(want);
  });
});

// Issue item 4: label changes.
describe('label changes', () => {
  const specHash = (_r: unknown, n: { labels: Record<string, string> }): string =>
    `spec-for-${n.labels.rack ?? 'none'}`;
  const withSpecHash = (x: NodeConfig, h: string): NodeConfig => ({
    ...x,
    metadata: {
      ...x.metadata,
      annotations: { ...x.metadata.annotations, 'network.nodenet.io/spec-hash': h },
    },
  });

  it('a relabelled node whose spec changes is outdated and moves under the limit, alone', () => {
    const ns = [
      node('n00', { labels: { rack: 'r2' } }),
      node('n01', { labels: { rack: 'r1' } }),
      node('n02', { labels: { rack: 'r1' } }),
    ];
    const ncs = ns.map((n) => withSpecHash(nc(n.name, A, { status: done(A) }), 'spec-for-r1'));
    const p = plan(input({ revisions: [completed(rev(1, A))], nodes: ns, nodeConfigs: ncs, specHash }));
    expect(ofType(p.actions, 'assign')).toEqual([
      expect.objectContaining({
        node: 'n00',
        hash: A,
        move: 'catch-up',
        reason: expect.stringMatching(/labels changed/),
      }),
    ]);
    expect(p.statusUpdates[0]?.status).toMatchObject({ ready: 2, ongoing: 1 });
  });

  it('relabelled nodes wait for free slots like any other change', () => {
    const ns = nodes(3).map((n) => ({ ...n, labels: { rack: 'r2' } }));
    const ncs = ns.map((n) => withSpecHash(nc(n.name, A, { status: done(A) }), 'spec-for-r1'));
    const p = plan(input({ revisions: [rev(1, A)], nodes: ns, nodeConfigs: ncs, specHash }));
    expect(assigned(p.actions)).toEqual(['n00']);
  });
});

describe('soak (--min-success-time), measured from when the configurator saw the report', () => {
  it('a finished node keeps its slot until the soak period ends', () => {
    // The agent's lastUpdate (a day ahead) is not what the soak is measured from.
    const ncs = [nc('n00', A, { status: done(A, T0 + 86_400_000) })];
    const at = (mono: number) =>
      plan(
        input({
          revisions: [rev(1, A)],
          nodes: nodes(2),
          nodeConfigs: ncs,
          policy: { minSuccessTimeMs: 30_000 },
          seen: { n00: { assign: 60_000, status: 10_000 } },
          mono,
        }),
      );
    const p = at(M0);
    expect(assigned(p.actions)).toEqual([]);
    expect(p.nodeStates.soaking).toBe(1);
    expect(p.requeueAfterMs).toBe(20_001);
    expect(assigned(at(M0 + 20_001).actions)).toEqual(['n01']);
  });
});
