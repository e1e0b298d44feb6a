import { AGENT_MISCONFIGURED_REASON, AGENT_READY_CONDITION, type NodeConfigStatus } from '@nodenet/api';
import { describe, expect, it } from 'vitest';
import { plan } from '@nodenet/configurator';
import { A, B, completed, done, input, nc, nodes, ofType, rev } from './fixtures.js';

const misconfigured = (onHost: string): NodeConfigStatus => ({
  ...done(onHost),
  conditions: [
    ...(done(onHost).conditions ?? []),
    {
      type: AGENT_READY_CONDITION,
      status: 'False',
      reason: AGENT_MISCONFIGURED_REASON,
      message: 'agent misconfigured: --frr-template: refused',
      lastTransitionTime: '2025-01-01T00:00:00Z',
    },
  ],
});

describe('a node whose agent is misconfigured (self-check failed)', () => {
  const ns = nodes(3);
  it('is not moved, holds no slot, is degraded and never invalidates the revision', () => {
    const p = plan(
      input({
        revisions: [rev(2, B), completed(rev(1, A))],
        nodes: ns,
        nodeConfigs: [
          nc('n00', A, { number: 1, status: misconfigured(A) }),
          nc('n01', A, { number: 1, status: done(A) }),
          nc('n02', A, { number: 1, status: done(A) }),
        ],
        policy: { updateLimit: { kind: 'count', count: 1 } },
      }),
    );
    expect(ofType(p.actions, 'invalidate')).toEqual([]);
    // The one slot goes to a healthy node.
    expect(ofType(p.actions, 'assign').map((a) => a.node)).toEqual(['n01']);
    const st = p.statusUpdates.find((u) => u.revision === 'rev-2-bbbbbbbbbb')?.status;
    expect(st?.degradedNodes?.map((d) => [d.node, d.message])).toEqual([
      ['n00', 'unavailable: agent misconfigured: --frr-template: refused'],
    ]);
    expect(st?.failed).toBe(0);
  });

  // One budget across revisions: a node that took the revision forward and whose agent then broke
  // is in flight like a NotReady one (it may have been broken by the change): it holds its slot and
  // the rollout, and fails the revision after --not-ready-timeout.
  it('handed the revision as a forward move, it holds its slot and the rollout until --not-ready-timeout', () => {
    const p = plan(
      input({
        revisions: [rev(2, B), completed(rev(1, A))],
        nodes: ns,
        nodeConfigs: [
          nc('n00', B, { number: 2, move: 'forward', status: misconfigured(A) }),
          nc('n01', B, { number: 2, status: done(B) }),
          nc('n02', B, { number: 2, status: done(B) }),
        ],
      }),
    );
    expect(ofType(p.actions, 'invalidate')).toEqual([]);
    expect(p.nodeStates.notReady).toBe(1);
    const st = p.statusUpdates.find((u) => u.revision === 'rev-2-bbbbbbbbbb')?.status;
    expect(st).toMatchObject({ phase: 'RollingOut', ready: 2, failed: 0 });
  });
});
