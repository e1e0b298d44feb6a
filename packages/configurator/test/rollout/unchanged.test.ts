/**
 * Unchanged nodes move for free (issue 26): a revision that leaves a node's host config as it is
 * moves that node without a slot and without a soak, never counted; the nodes it touches roll out
 * under the limit as before, and a fault on one still halts the rollout.
 */
import { describe, expect, it } from 'vitest';
import type { NetworkConfigRevision, NodeConfig } from '@nodenet/api';
import { plan, specContentHash, type NodeInfo, type PlanInput } from '@nodenet/configurator';
import {
  A,
  B,
  completed,
  done,
  input,
  invalid,
  nc,
  node,
  ofType,
  provisioning,
  rev,
  type Seen,
} from './fixtures.js';

// Revision 2 changes the host config of rack r1 (n00) only; n01..n03 are in rack r2.
const r1 = completed(rev(1, A));
const r2 = rev(2, B);
const nodes = [
  node('n00', { labels: { rack: 'r1' } }),
  ...['n01', 'n02', 'n03'].map((n) => node(n, { labels: { rack: 'r2' } })),
];
const sameContent = specContentHash(nc('x', A).spec);
const contentHash = (r: NetworkConfigRevision, n: NodeInfo): string =>
  r.spec.number === 2 && n.labels.rack === 'r1' ? 'touched' : sameContent;
const policy = { updateLimit: { kind: 'count', count: 1 }, minSuccessTimeMs: 60_000 } as const;
const soaked: Seen = { assign: 600_000, status: 300_000 };

function planWith(over: {
  nodeConfigs: NodeConfig[];
  revisions?: NetworkConfigRevision[];
  seen?: Record<string, Seen>;
  paused?: boolean;
}) {
  const base: PlanInput = input({
    revisions: over.revisions ?? [r2, r1],
    nodes,
    nodeConfigs: over.nodeConfigs,
    seen: over.seen ?? { n00: soaked, n01: soaked, n02: soaked, n03: soaked },
    policy: { ...policy, ...(over.paused ? { paused: true } : {}) },
  });
  return plan({ ...base, contentHash });
}

const onA = (name: string) => nc(name, A, { number: 1, status: done(A) });
const movedUnchanged = (name: string, status = done(B)) =>
  nc(name, B, { number: 2, move: 'unchanged', status });

describe('unchanged nodes move without a slot', () => {
  it('moves every node the change leaves unchanged in one pass; the touched node takes the one slot', () => {
    const p = planWith({ nodeConfigs: ['n00', 'n01', 'n02', 'n03'].map(onA) });
    const moves = ofType(p.actions, 'assign').map((a) => `${a.node}:${a.move}`);
    expect(moves.sort()).toEqual(['n00:forward', 'n01:unchanged', 'n02:unchanged', 'n03:unchanged']);
    expect(p.inProgress).toBe(1);
  });

  it('an unchanged move waiting for its agent holds no slot and no soak', () => {
    const p = planWith({
      nodeConfigs: [onA('n00'), movedUnchanged('n01', provisioning(A)), movedUnchanged('n02'), onA('n03')],
      seen: { n00: soaked, n01: soaked, n02: { assign: 1000, status: 500 }, n03: soaked },
    });
    expect(
      ofType(p.actions, 'assign')
        .map((a) => a.node)
        .sort(),
    ).toEqual(['n00', 'n03']);
    expect(p.nodeStates.upToDate).toBe(1); // n02: provisioned 0.5 s ago, nothing to soak
  });

  it('a pause holds them like any forward move', () => {
    const p = planWith({ nodeConfigs: ['n00', 'n01', 'n02', 'n03'].map(onA), paused: true });
    expect(ofType(p.actions, 'assign')).toEqual([]);
  });

  it('counts them on the revision; a failure on one is reported, never counted', () => {
    const p = planWith({
      nodeConfigs: [
        nc('n00', B, { number: 2, move: 'forward', status: done(B) }),
        movedUnchanged('n01'),
        movedUnchanged('n02'),
        movedUnchanged('n03', invalid(B, 'vtysh timed out')),
      ],
    });
    expect(ofType(p.actions, 'invalidate')).toEqual([]);
    const st = p.statusUpdates.find((u) => u.revision === r2.metadata.name)?.status;
    expect(st?.unchanged).toBe(3);
    expect(st?.degradedNodes?.map((d) => d.node)).toEqual(['n03']);
  });

  it('a fault on the touched node halts the rollout, and the unchanged nodes roll back for free', () => {
    const p = planWith({
      nodeConfigs: [
        nc('n00', B, { number: 2, move: 'forward', status: invalid(A, 'uplink lost') }),
        movedUnchanged('n01'),
        movedUnchanged('n02'),
        movedUnchanged('n03'),
      ],
    });
    expect(ofType(p.actions, 'invalidate').map((a) => a.revision)).toEqual([r2.metadata.name]);
    const moves = ofType(p.actions, 'assign').map((a) => `${a.node}:${a.number}:${a.move}`);
    expect(moves.sort()).toEqual(['n00:1:rollback', 'n01:1:unchanged', 'n02:1:unchanged', 'n03:1:unchanged']);
  });
});
