/**
 * A node that took the revision forward and then went NotReady may have been cut off by it: no
 * further node takes the revision forward until it is back or its --not-ready-timeout fails it.
 * Without the hold, the rest of its wave finishes the soak, frees slots and the change walks on.
 */
import { describe, expect, it } from 'vitest';
import { plan } from '@nodenet/configurator';
import { A, B, assigned, completed, done, input, invalid, nc, node, rev, type Seen } from './fixtures.js';
import type { NodeConfig } from '@nodenet/api';

const policy = {
  updateLimit: { kind: 'count', count: 2 },
  minSuccessTimeMs: 60_000,
  notReadyTimeoutMs: 120_000,
} as const;
// n00 took revision 2 forward, was provisioned and went NotReady 5 s ago, during its soak; n01 finished its soak.
const cutOff: Seen = { assign: 100_000, status: 30_000, readiness: 'notReady', readinessFor: 5_000 };
const soaked: Seen = { assign: 100_000, status: 90_000 };

function scenario(over: { n00?: NodeConfig; n00Seen?: Seen; revisions?: ReturnType<typeof rev>[] } = {}) {
  return plan(
    input({
      revisions: over.revisions ?? [rev(2, B), completed(rev(1, A))],
      nodes: [node('n00', { ready: false }), node('n01'), node('n02'), node('n03')],
      nodeConfigs: [
        over.n00 ?? nc('n00', B, { number: 2, move: 'forward', status: done(B) }),
        nc('n01', B, { number: 2, move: 'forward', status: done(B) }),
        nc('n02', A, { status: done(A) }),
        nc('n03', A, { status: done(A) }),
      ],
      seen: { n00: over.n00Seen ?? cutOff, n01: soaked },
      policy,
    }),
  );
}

describe('a node NotReady after a forward move holds the rollout', () => {
  it('holds every forward move although a slot is free, and says so in Progressing', () => {
    const p = scenario();
    expect(assigned(p.actions)).toEqual([]);
    expect(p.nodeStates.notReady).toBe(1);
    const progressing = p.statusUpdates
      .find((s) => s.revision === 'rev-2-bbbbbbbbbb')
      ?.status.conditions?.find((c) => c.type === 'Progressing');
    expect(progressing).toMatchObject({ status: 'True', reason: 'HeldByNotReadyNode' });
    expect(progressing?.message).toContain(
      'no new forward moves while node n00 is NotReady after taking a revision forward (it fails that revision after --not-ready-timeout=2m)',
    );
  });

  it('moves on once the node is back Ready', () => {
    const p = scenario({ n00Seen: { assign: 100_000, status: 90_000 } });
    expect(assigned(p.actions)).toEqual(['n02', 'n03']);
  });

  it('a node NotReady during the soak of a catch-up move (revision already complete) holds too (issue 35)', () => {
    const catchUp = {
      revisions: [completed(rev(2, B)), completed(rev(1, A))],
      n00: nc('n00', B, { number: 2, move: 'catch-up', status: done(B) }),
    };
    // In flight: a change that harms only nodes that catch up must not reach them all uncounted.
    expect(assigned(scenario(catchUp).actions)).toEqual([]);
    // NotReady only after its soak was over: finished, it holds nothing.
    const later = scenario({ ...catchUp, n00Seen: { ...cutOff, status: 90_000 } });
    expect(assigned(later.actions)).toEqual(['n02', 'n03']);
  });

  it('never holds a rollback away from an invalid revision', () => {
    // Revision 2 is invalid (n01 failed on it): n01 rolls back to revision 1 although n00 is NotReady.
    const p = plan(
      input({
        revisions: [rev(2, B), completed(rev(1, A))],
        nodes: [node('n00', { ready: false }), node('n01')],
        nodeConfigs: [
          nc('n00', B, { number: 2, move: 'forward', status: done(B) }),
          nc('n01', B, { number: 2, move: 'forward', status: invalid(A) }),
        ],
        seen: { n00: cutOff, n01: soaked },
        policy: { ...policy, maxFailures: 0 },
      }),
    );
    expect(p.desired?.number).toBe(1);
    expect(assigned(p.actions)).toContain('n01');
  });
});
