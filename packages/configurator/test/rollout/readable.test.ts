import { DESIRED_LABEL, type NetworkConfigRevisionStatus } from '@nodenet/api';
import { describe, expect, it } from 'vitest';
import { desiredLabels, finishedCondition, phaseOf, plan } from '@nodenet/configurator';
import { A, B, completed, done, input, invalid, nc, nodes, ofType, rev } from './fixtures.js';

const complete: NetworkConfigRevisionStatus = {
  ready: 3,
  total: 3,
  completedAt: '2025-01-01T00:00:00Z',
  conditions: [
    { type: 'Complete', status: 'True', reason: 'AllNodesReady', message: 'm', lastTransitionTime: 'x' },
  ],
};

describe('revision phase', () => {
  it.each([
    { what: 'desired, nodes to move', r: rev(2, B), st: {}, desired: true, phase: 'RollingOut' },
    { what: 'desired and paused', r: rev(2, B, { paused: true }), st: {}, desired: true, phase: 'Paused' },
    { what: 'desired and complete', r: rev(2, B), st: complete, desired: true, phase: 'Complete' },
    {
      what: 'complete wins over paused',
      r: rev(2, B, { paused: true }),
      st: complete,
      desired: true,
      phase: 'Complete',
    },
    { what: 'not desired, valid', r: rev(1, A), st: complete, desired: false, phase: 'Superseded' },
    { what: 'invalid', r: rev(2, B), st: { isInvalid: true }, desired: false, phase: 'Invalid' },
  ] as const)('$what → $phase', ({ r, st, desired, phase }) => {
    expect(phaseOf(r, st, desired)).toBe(phase);
  });
});

describe('Finished condition (what kubectl wait --for=condition=Finished waits for)', () => {
  it.each([
    { phase: 'RollingOut', st: {}, status: 'False', reason: 'RollingOut' },
    { phase: 'Paused', st: {}, status: 'False', reason: 'Paused' },
    { phase: 'Complete', st: complete, status: 'True', reason: 'Complete' },
    { phase: 'Invalid', st: { isInvalid: true }, status: 'True', reason: 'Invalid' },
    { phase: 'Superseded', st: {}, status: 'True', reason: 'Superseded' },
    { phase: 'Superseded', st: complete, status: 'True', reason: 'Complete' },
  ] as const)(
    '$phase (completed once: $st.completedAt) → $status $reason',
    ({ phase, st, status, reason }) => {
      expect(finishedCondition(phase, st)).toMatchObject({ type: 'Finished', status, reason });
    },
  );
});

describe('desired label', () => {
  const labelled = (r: ReturnType<typeof rev>) => ({
    ...r,
    metadata: { ...r.metadata, labels: { [DESIRED_LABEL]: 'true' } },
  });
  it('moves from the old desired revision to the new one', () => {
    expect(desiredLabels([rev(2, B), labelled(rev(1, A))], 'rev-2-bbbbbbbbbb')).toEqual([
      { type: 'labelDesired', revision: 'rev-2-bbbbbbbbbb', desired: true },
      { type: 'labelDesired', revision: 'rev-1-aaaaaaaaaa', desired: false },
    ]);
  });
  it('writes nothing when the label is already right', () => {
    expect(desiredLabels([rev(2, B), labelled(rev(1, A))], 'rev-1-aaaaaaaaaa')).toEqual([]);
  });
  it('no revision desired (all invalid): no label left anywhere', () => {
    expect(desiredLabels([labelled(rev(1, A))], undefined)).toEqual([
      { type: 'labelDesired', revision: 'rev-1-aaaaaaaaaa', desired: false },
    ]);
  });
});

describe('plan: readable revisions', () => {
  it('invalidating the desired revision moves the label back, phases Invalid and Complete, both Finished', () => {
    const ns = nodes(2);
    const p = plan(
      input({
        revisions: [rev(2, B), completed(rev(1, A))],
        nodes: ns,
        nodeConfigs: [
          nc('n00', B, { number: 2, status: invalid(A) }),
          nc('n01', A, { number: 1, status: done(A) }),
        ],
      }),
    );
    expect(ofType(p.actions, 'labelDesired')).toEqual([
      { type: 'labelDesired', revision: 'rev-1-aaaaaaaaaa', desired: true },
    ]);
    const st = (name: string) => p.statusUpdates.find((s) => s.revision === name)?.status;
    expect(st('rev-2-bbbbbbbbbb')?.phase).toBe('Invalid');
    expect(st('rev-2-bbbbbbbbbb')?.conditions?.find((c) => c.type === 'Finished')).toMatchObject({
      status: 'True',
      reason: 'Invalid',
    });
    expect(st('rev-1-aaaaaaaaaa')?.phase).toBe('RollingOut');
  });

  it('a superseded revision with the same config as the desired one counts only its own nodes', () => {
    // rev 3 is a retry of rev 1's config (same hash A); every node is on rev 3.
    const ns = nodes(3);
    const p = plan(
      input({
        revisions: [rev(3, A), completed(rev(1, A, { status: { ready: 3, total: 3 } }))],
        nodes: ns,
        nodeConfigs: ns.map((n) => nc(n.name, A, { number: 3, status: done(A) })),
      }),
    );
    const old = p.statusUpdates.find((s) => s.revision === 'rev-1-aaaaaaaaaa')?.status;
    expect(old).toMatchObject({ phase: 'Superseded', total: 0, ready: 0 });
    const cur = p.statusUpdates.find((s) => s.revision === 'rev-3-aaaaaaaaaa')?.status;
    expect(cur).toMatchObject({ phase: 'Complete', total: 3, ready: 3 });
  });
});
