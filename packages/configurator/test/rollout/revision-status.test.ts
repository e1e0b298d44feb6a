import { describe, expect, it } from 'vitest';
import type { NodeConfig } from '@nodenet/api';
import { plan } from '@nodenet/configurator';
import { A, B, T0, completed, done, input, invalid, iso, nc, node, nodes, rev } from './fixtures.js';

describe('revision status', () => {
  it('counts nodes and reports Complete when all target nodes are ready', () => {
    const ncs = nodes(3).map((n) => nc(n.name, A, { status: done(A) }));
    const st = plan(input({ revisions: [rev(1, A)], nodes: nodes(3), nodeConfigs: ncs })).statusUpdates[0]
      ?.status;
    expect(st).toMatchObject({
      total: 3,
      ready: 3,
      ongoing: 0,
      queued: 0,
      failed: 0,
      degraded: 0,
      isInvalid: false,
      completedAt: iso(T0).replace('.000', ''),
    });
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
  });

  it('no status update when nothing changed', () => {
    const ncs = nodes(2).map((n) => nc(n.name, A, { status: done(A) }));
    const first = plan(input({ revisions: [rev(1, A)], nodes: nodes(2), nodeConfigs: ncs }));
    const r = { ...rev(1, A), status: first.statusUpdates[0]?.status };
    expect(
      plan(input({ revisions: [r], nodes: nodes(2), nodeConfigs: ncs, now: T0 + 60_000 })).statusUpdates,
    ).toEqual([]);
  });

  it('a degraded node keeps the time it was first listed (no status write every pass)', () => {
    const r = completed(rev(1, A));
    const ncs = [nc('n00', A, { status: done(A) }), nc('n01', A, { move: 'catch-up', status: invalid(A) })];
    const first = plan(input({ revisions: [r], nodes: nodes(2), nodeConfigs: ncs }));
    const again = plan(
      input({
        revisions: [{ ...r, status: first.statusUpdates[0]?.status }],
        nodes: nodes(2),
        nodeConfigs: ncs,
        now: T0 + 60_000,
      }),
    );
    expect(again.statusUpdates).toEqual([]);
  });

  // Issue item 5: completedAt was dropped when a node joined, and RolloutComplete recorded again.
  it('completedAt is set once: a node joining later does not move or drop it', () => {
    const r = completed(rev(1, A));
    const ncs = nodes(2).map((n) => nc(n.name, A, { status: done(A) }));
    const p = plan(input({ revisions: [r], nodes: [...nodes(2), node('new')], nodeConfigs: ncs }));
    expect(p.statusUpdates[0]?.status).toMatchObject({ completedAt: r.status?.completedAt, ongoing: 1 });
    expect(p.statusUpdates[0]?.status.conditions?.find((c) => c.type === 'Complete')?.status).toBe('False');
  });

  it('a superseded revision keeps its failure record', () => {
    const old = rev(1, A, {
      status: {
        failed: 1,
        failedNodes: [{ node: 'n09', message: 'tolerated', at: iso(T0) }],
        completedAt: iso(T0),
      },
    });
    const p = plan(
      input({
        revisions: [rev(2, B), old],
        nodes: nodes(1),
        nodeConfigs: [nc('n00', A, { status: done(A) })],
      }),
    );
    const st = p.statusUpdates.find((s) => s.revision === old.metadata.name)?.status;
    expect(st).toMatchObject({
      failed: 1,
      failedNodes: [{ node: 'n09', message: 'tolerated' }],
      completedAt: iso(T0),
    });
  });

  it('an invalid revision shows why (Invalid=True) and keeps its failed nodes after the rollback', () => {
    const bad = rev(2, B, {
      invalid: true,
      status: {
        failedNodes: [{ node: 'n00', message: 'boom', at: iso(T0) }],
        conditions: [
          {
            type: 'Invalid',
            status: 'True',
            reason: 'NodesFailed',
            message: 'n00: boom',
            lastTransitionTime: iso(T0),
          },
        ],
      },
    });
    const p = plan(
      input({
        revisions: [bad, rev(1, A)],
        nodes: nodes(1),
        nodeConfigs: [nc('n00', A, { status: done(A) })],
      }),
    );
    const st = p.statusUpdates.find((s) => s.revision === bad.metadata.name)?.status;
    expect(st).toMatchObject({ isInvalid: true, failed: 1, failedNodes: [{ node: 'n00' }] });
    expect(st?.conditions?.find((c) => c.type === 'Invalid')).toMatchObject({
      status: 'True',
      message: 'n00: boom',
    });
  });

  // Issue 38 item 2: a skipped NotReady node kept the revision "Rolling out" with nothing moving.
  /** n00 NotReady on revision 1; n01 on revision 2; n02 as given. */
  const skippedScene = (n02: NodeConfig) =>
    plan(
      input({
        revisions: [rev(2, B), completed(rev(1, A))],
        nodes: [node('n00', { ready: false }), node('n01'), node('n02')],
        nodeConfigs: [nc('n00', A, { status: done(A) }), nc('n01', B, { number: 2, status: done(B) }), n02],
        now: T0 + 600_000,
      }),
    ).statusUpdates.find((u) => u.revision === 'rev-2-bbbbbbbbbb')?.status;

  it('only unavailable nodes left: Progressing/Complete False WaitingForUnavailableNodes naming them; not complete', () => {
    const st = skippedScene(nc('n02', B, { number: 2, status: done(B) }));
    expect(st).toMatchObject({ ready: 2, ongoing: 0, queued: 0, degraded: 1, phase: 'RollingOut' });
    expect(st?.completedAt).toBeUndefined();
    for (const type of ['Progressing', 'Complete'])
      expect(st?.conditions?.find((c) => c.type === type)).toMatchObject({
        status: 'False',
        reason: 'WaitingForUnavailableNodes',
        message: expect.stringContaining(
          'waiting for 1 unavailable node(s), each catches up when its agent answers: n00',
        ),
      });
    expect(st?.conditions?.find((c) => c.type === 'Finished')).toMatchObject({
      status: 'False',
      reason: 'WaitingForUnavailableNodes',
    });
  });

  it('a node still queued keeps it RollingOut (not waiting)', () => {
    const st = skippedScene(nc('n02', A, { status: done(A) }));
    expect(st?.conditions?.find((c) => c.type === 'Progressing')?.reason).toBe('RollingOut');
  });
});
