/**
 * Assignment writes the API server refuses (issue #37): after a few refused writes in a row the node
 * is out of the rollout for a while (no slot, listed degraded with the API's error, never counted),
 * and the slot goes to the next node. The decision (nodes/refused-assignments.ts) and what the
 * planner makes of it (rollout/classify.ts), pure.
 */
import { describe, expect, it } from 'vitest';
import { ASSIGNMENT_REFUSED, nodePlacement } from '@nodenet/api';
import { KubeApiError } from '@nodenet/kube';
import {
  ASSIGN_ATTEMPTS,
  IncrementalPlanner,
  plan,
  RefusedAssignments,
  REFUSED_RETRY_MAX_MS,
  REFUSED_RETRY_MS,
  refusalText,
  withRefusals,
  type PlanInput,
} from '@nodenet/configurator';
import { A, B, M0, assigned, completed, done, input, nc, node, rev } from './rollout/fixtures.js';

const apiError = (statusCode: number, reason: string | undefined, serverMessage: string): KubeApiError =>
  new KubeApiError({ method: 'PATCH', path: '/apis/x/nodeconfigs/n', statusCode, reason, serverMessage });

const tooLarge = apiError(500, undefined, 'etcdserver: request is too large');

describe('which failed writes refuse a node', () => {
  it('a conflict, a NotFound, throttling and no answer say nothing about the node', () => {
    for (const err of [
      apiError(409, 'Conflict', 'the object has been modified'),
      apiError(404, 'NotFound', 'gone'),
      apiError(429, 'TooManyRequests', 'slow down'),
      new Error('connect ECONNREFUSED'),
    ])
      expect(refusalText(err)).toBeUndefined();
    const r = new RefusedAssignments();
    for (let i = 0; i < 10; i++) r.failed('n1', apiError(409, 'Conflict', 'modified'), M0 + i);
    expect(r.refused(M0 + 10).size).toBe(0);
  });

  it('a 422, a 403 and a 5xx do, with the API error bounded and its controls escaped', () => {
    expect(refusalText(apiError(422, 'Invalid', 'spec: Too long'))).toBe(
      `${ASSIGNMENT_REFUSED} (422 Invalid): spec: Too long`,
    );
    expect(refusalText(apiError(403, 'Forbidden', 'cannot patch'))).toContain(
      '(403 Forbidden): cannot patch',
    );
    expect(refusalText(tooLarge)).toContain('(500): etcdserver: request is too large');
    const hostile = refusalText(apiError(422, 'Invalid', `\u001b[2J${'x'.repeat(5000)}\nsecond line`)) ?? '';
    expect(hostile).not.toContain('\u001b');
    expect(hostile).toContain('\\x1b[2J');
    expect(hostile.length).toBeLessThan(400);
  });

  it(`out after ${ASSIGN_ATTEMPTS} refused writes in a row, tried again after a doubling backoff, back in on success`, () => {
    const r = new RefusedAssignments();
    for (let i = 1; i < ASSIGN_ATTEMPTS; i++) expect(r.failed('n1', tooLarge, M0)).toBeUndefined();
    expect(r.refused(M0).size).toBe(0);
    expect(r.failed('n1', tooLarge, M0)).toContain('request is too large');
    expect([...r.refused(M0 + 1).keys()]).toEqual(['n1']);
    expect(r.nextRetryInMs(M0)).toBe(REFUSED_RETRY_MS);
    // Due again: one write; refused again, out for twice as long.
    expect(r.refused(M0 + REFUSED_RETRY_MS).size).toBe(0);
    expect(r.failed('n1', tooLarge, M0 + REFUSED_RETRY_MS)).toBeDefined();
    expect(r.nextRetryInMs(M0 + REFUSED_RETRY_MS)).toBe(2 * REFUSED_RETRY_MS);
    for (let i = 0; i < 20; i++) r.failed('n1', tooLarge, M0);
    expect(r.nextRetryInMs(M0)).toBe(REFUSED_RETRY_MAX_MS);
    r.succeeded('n1');
    expect(r.refused(M0).size).toBe(0);
    expect(r.nextRetryInMs(M0)).toBeUndefined();
  });
});

describe('a refused node in the plan', () => {
  const message = refusalText(tooLarge) as string;
  // Revision 1 complete on both nodes; revision 2 desired, one slot.
  const fleet = (refused: ReadonlyMap<string, string>): PlanInput =>
    input({
      revisions: [completed(rev(1, A)), rev(2, B)],
      nodes: withRefusals([node('n0'), node('n1')], refused),
      nodeConfigs: [nc('n0', A, { number: 1, status: done(A) }), nc('n1', A, { number: 1, status: done(A) })],
      policy: { updateLimit: { kind: 'count', count: 1 } },
    });

  it('holds no slot: the next node takes it; listed degraded with the API error, not counted', () => {
    // Without the refusal, n0 (first in start order) takes the only slot every pass.
    expect(assigned(plan(fleet(new Map())).actions)).toEqual(['n0']);
    const p = plan(fleet(new Map([['n0', message]])));
    expect(assigned(p.actions)).toEqual(['n1']);
    const status = p.statusUpdates.find((u) => u.revision.startsWith('rev-2'))?.status;
    expect(status?.degradedNodes).toEqual([
      expect.objectContaining({ node: 'n0', message: `unavailable: ${message}` }),
    ]);
    expect(status?.failed ?? 0).toBe(0);
    expect(status?.failedNodes ?? []).toEqual([]);
    expect(status?.isInvalid ?? false).toBe(false);
  });

  it('the incremental planner reads the refusal as the pure one does, and its end', () => {
    const planner = new IncrementalPlanner();
    const refusedNow = planner.plan(fleet(new Map([['n0', message]])));
    expect(assigned(refusedNow.actions)).toEqual(['n1']);
    expect(assigned(planner.plan(fleet(new Map())).actions)).toEqual(['n0']);
  });

  it('`why` names the refusal from the revision status (the NodeConfig is what can not be written)', () => {
    const p = plan(fleet(new Map([['n0', message]])));
    const r2 = rev(2, B, { status: p.statusUpdates.find((u) => u.revision.startsWith('rev-2'))?.status });
    const placed = nodePlacement({
      node: 'n0',
      nodeObject: { metadata: { name: 'n0' } },
      nodeConfig: nc('n0', A, { number: 1, status: done(A) }),
      revisions: [completed(rev(1, A)), r2],
    });
    expect(placed.state).toBe('unavailable');
    expect(placed.why).toContain('request is too large');
    expect(placed.next).toContain('tries the write again');
  });
});
