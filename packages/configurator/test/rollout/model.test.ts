/** The definitions of docs/rollout.md "The model", one table test each (time injected). */
import type { NodeConfigStatus } from '@nodenet/api';
import { describe, expect, it } from 'vitest';
import { boundedMessage, failureRecord, plan } from '@nodenet/configurator';
import {
  A,
  B,
  C,
  assigned,
  completed,
  done,
  input,
  invalid,
  nc,
  node,
  nodes,
  ofType,
  provisioning,
  rev,
} from './fixtures.js';

const withCause = (s: NodeConfigStatus, cause: 'Interrupted' | 'RestoreFailed'): NodeConfigStatus => ({
  ...s,
  failureCause: cause,
});

describe('failures are recorded once, bounded', () => {
  it('a 1 MB message is cut to its first line and 300 characters', () => {
    const m = boundedMessage(`${'x'.repeat(1_000_000)}\nsecond line`);
    expect(m.length).toBeLessThan(340);
    expect(m).toContain('chars)');
  });

  it('30 failures: 20 listed, 30 counted; a listed node is not counted twice', () => {
    const r = rev(2, B);
    const fresh = Array.from({ length: 30 }, (_, i) => ({ node: `n${i}`, message: 'm', at: 't' }));
    const rec = failureRecord(r, fresh);
    expect(rec.failedNodes).toHaveLength(20);
    expect(rec.failed).toBe(30);
    const again = failureRecord(
      { ...r, status: { failedNodes: rec.failedNodes, failed: rec.failed } },
      fresh,
    );
    expect(again.failed).toBe(30);
  });
});

describe('busy re-assignments respect the limit (a new leader finds unanswered nodes)', () => {
  const fleet = (answered: number) =>
    plan(
      input({
        revisions: [rev(3, C), rev(2, B), completed(rev(1, A))],
        nodes: nodes(5),
        nodeConfigs: nodes(5).map((n, i) =>
          nc(n.name, B, {
            number: 2,
            move: 'forward',
            status: i < answered ? provisioning(A) : done(A, 0, 0),
          }),
        ),
      }),
    );
  it('five nodes unanswered on a superseded revision: none is handed the desired one before it answers (seed 31)', () => {
    expect(assigned(fleet(0).actions)).toEqual([]);
  });
  it('five nodes answered on a superseded revision: one is handed the desired one at limit 1', () => {
    expect(assigned(fleet(5).actions)).toEqual(['n00']);
  });
});

describe('failure causes (#24)', () => {
  const revisions = [rev(2, B), completed(rev(1, A))];
  it('Interrupted never counts: re-assigned after its backoff with an attempt number', () => {
    const n = nc('n00', B, { number: 2, move: 'forward', status: withCause(invalid(A), 'Interrupted') });
    const early = plan(
      input({
        revisions,
        nodes: nodes(1),
        nodeConfigs: [n],
        seen: { n00: { assign: 20_000, status: 5_000 } },
      }),
    );
    expect(ofType(early.actions, 'invalidate')).toEqual([]);
    expect(assigned(early.actions)).toEqual([]);
    const late = plan(
      input({
        revisions,
        nodes: nodes(1),
        nodeConfigs: [n],
        seen: { n00: { assign: 20_000, status: 11_000 } },
      }),
    );
    expect(ofType(late.actions, 'assign')).toEqual([
      expect.objectContaining({ node: 'n00', number: 2, attempt: 1, move: 'forward' }),
    ]);
  });

  it('Interrupted keeps its slot during its backoff: at limit 1 no second node starts meanwhile', () => {
    const n = nc('n00', B, { number: 2, move: 'forward', status: withCause(invalid(A), 'Interrupted') });
    const ncs = [n, nc('n01', A, { number: 1, status: done(A) })];
    const policy = { updateLimit: { kind: 'count' as const, count: 1 } };
    const at = (status: number) =>
      plan(
        input({
          revisions,
          nodes: nodes(2),
          nodeConfigs: ncs,
          policy,
          seen: { n00: { assign: 20_000, status } },
        }),
      );
    expect(at(5_000).inProgress).toBe(1);
    expect(assigned(at(5_000).actions)).toEqual([]);
    expect(assigned(at(11_000).actions)).toEqual(['n00']);
  });

  it('RestoreFailed counts, and the node is never read as restored: it rolls back in a slot', () => {
    const st: NodeConfigStatus = { ...withCause(invalid(A), 'RestoreFailed') };
    delete st.lastAppliedRevision;
    const p = plan(
      input({
        revisions,
        nodes: [node('n00')],
        nodeConfigs: [nc('n00', B, { number: 2, move: 'forward', status: st })],
      }),
    );
    expect(ofType(p.actions, 'invalidate')[0]?.failedNodes[0]?.message).toMatch(/^restore failed: /);
    expect(ofType(p.actions, 'assign')).toEqual([
      expect.objectContaining({
        node: 'n00',
        number: 1,
        move: 'rollback',
        reason: expect.stringContaining('slot 1/1'),
      }),
    ]);
  });
});

describe('the fallback is known-good', () => {
  it('after an invalidation, nodes go back to the last completed revision, never to a newer one that never completed', () => {
    const p = plan(
      input({
        revisions: [rev(3, C), rev(2, B), completed(rev(1, A))],
        nodes: nodes(2),
        nodeConfigs: [
          nc('n00', C, { number: 3, move: 'forward', status: invalid(A) }),
          nc('n01', A, { number: 1, status: done(A) }),
        ],
      }),
    );
    expect(p.desired?.number).toBe(1);
    expect(ofType(p.actions, 'assign').map((a) => [a.node, a.number, a.move])).toEqual([
      ['n00', 1, 'rollback'],
    ]);
  });
});
