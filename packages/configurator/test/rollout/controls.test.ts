/** Rollout controls (issue 11): pause, abort, retry, rollback pacing, revision numbers. */
import { HIGHEST_NUMBER_ANNOTATION, RETRY_ANNOTATION, type NetworkConfigRevision } from '@nodenet/api';
import { describe, expect, it } from 'vitest';
import { buildRevision, highWaterMarks, highestNumber, plan } from '@nodenet/configurator';
import {
  A,
  B,
  C,
  T0,
  assigned,
  completed,
  done,
  input,
  invalid,
  nc,
  nodes,
  ofType,
  provisioning,
  rev,
} from './fixtures.js';

const limit1 = { updateLimit: { kind: 'count', count: 1 } } as const;

describe('pause', () => {
  it('a paused revision starts no new forward moves; Progressing=False/Paused and Paused=True', () => {
    const p = plan(input({ revisions: [rev(1, A, { paused: true })], nodes: nodes(3) }));
    expect(assigned(p.actions)).toEqual([]);
    const conds = p.statusUpdates[0]?.status.conditions;
    expect(conds?.find((c) => c.type === 'Progressing')).toMatchObject({ status: 'False', reason: 'Paused' });
    expect(conds?.find((c) => c.type === 'Paused')).toMatchObject({ status: 'True', reason: 'Paused' });
  });

  it('pause of the rollback target never blocks the rollback away from an invalid revision', () => {
    const ncs = [
      nc('n00', B, { status: invalid(A) }),
      nc('n01', B, { status: done(B) }),
      nc('n02', A, { status: done(A) }),
    ];
    const p = plan(
      input({
        revisions: [rev(2, B), completed(rev(1, A, { paused: true }))],
        nodes: [...nodes(3), { name: 'n03', labels: {}, ready: true }],
        nodeConfigs: ncs,
        policy: { updateLimit: { kind: 'count', count: 3 } },
      }),
    );
    expect(ofType(p.actions, 'invalidate')).toHaveLength(1);
    // Rollbacks go (n00 restored A itself: first, without a slot); the new node n03 (a forward
    // move) waits for the resume.
    expect(ofType(p.actions, 'assign').map((a) => [a.node, a.move])).toEqual([
      ['n00', 'rollback'],
      ['n01', 'rollback'],
    ]);
  });
});

describe('abort (spec.aborted)', () => {
  it('marks the revision invalid with reason Aborted and rolls back exactly the nodes that took it', () => {
    const ncs = [
      nc('n00', B, { status: done(B) }),
      nc('n01', B, { status: provisioning(A) }),
      nc('n02', A, { status: done(A) }),
    ];
    const p = plan(
      input({
        revisions: [rev(2, B, { aborted: true }), completed(rev(1, A))],
        nodes: nodes(3),
        nodeConfigs: ncs,
        policy: { updateLimit: { kind: 'count', count: 2 } },
      }),
    );
    expect(ofType(p.actions, 'invalidate')).toEqual([
      expect.objectContaining({ revision: 'rev-2-bbbbbbbbbb', aborted: true, failedNodes: [] }),
    ]);
    expect(
      ofType(p.actions, 'assign')
        .map((a) => a.node)
        .sort(),
    ).toEqual(['n00', 'n01']);
    const st = p.statusUpdates.find((s) => s.revision === 'rev-2-bbbbbbbbbb')?.status;
    expect(st?.conditions?.find((c) => c.type === 'Invalid')).toMatchObject({
      status: 'True',
      reason: 'Aborted',
    });
  });

  it('an aborted revision that is already invalid is left alone', () => {
    const p = plan(
      input({ revisions: [rev(2, B, { aborted: true, invalid: true }), rev(1, A)], nodes: nodes(1) }),
    );
    expect(ofType(p.actions, 'invalidate')).toEqual([]);
  });
});

describe('rollback pacing', () => {
  it('rollback at limit 1 is not held by a soaking node', () => {
    const ncs = [
      nc('n00', A, { move: 'rollback', status: done(A) }), // rolled back, soaking for 10 minutes
      nc('n01', B, { status: done(B) }),
    ];
    const p = plan(
      input({
        revisions: [rev(2, B, { invalid: true }), completed(rev(1, A))],
        nodes: nodes(2),
        nodeConfigs: ncs,
        seen: { n00: { assign: 2000, status: 1000 } },
        policy: { ...limit1, minSuccessTimeMs: 600_000 },
      }),
    );
    expect(p.nodeStates.soaking).toBe(1);
    expect(assigned(p.actions)).toEqual(['n01']);
  });

  it('nodes really running the invalid revision go first; a node that restored itself moves without a slot', () => {
    const ncs = [
      nc('n00', B, { status: invalid(A) }), // failed and restored A on its own
      nc('n01', B), // handed B, agent has not started: host still on A? unknown: no status
      nc('n02', B, { status: done(B) }), // really runs B
    ];
    const p = plan(
      input({
        revisions: [rev(2, B, { invalid: true }), completed(rev(1, A))],
        nodes: nodes(3),
        nodeConfigs: ncs,
        seen: { n01: { assign: 1_000_000 } },
        policy: limit1,
      }),
    );
    expect(ofType(p.actions, 'assign').map((a) => [a.node, a.reason])).toEqual([
      ['n00', expect.stringContaining('no slot')],
      ['n02', expect.stringContaining('rollback')],
    ]);
    // After the move, the restored node is pending on A but still holds no slot.
    const after = plan(
      input({
        revisions: [rev(2, B, { invalid: true }), completed(rev(1, A))],
        nodes: nodes(3),
        nodeConfigs: [
          nc('n00', A, { move: 'rollback', generation: 2, status: invalid(A, 'x', T0, 1) }),
          nc('n01', B, { status: done(B) }),
          nc('n02', B, { status: done(B) }),
        ],
        policy: limit1,
      }),
    );
    expect(after.inProgress).toBe(1);
    expect(assigned(after.actions)).toEqual(['n01']);
  });
});

describe('retry and revision numbers', () => {
  const withAnn = (r: NetworkConfigRevision, ann: Record<string, string>): NetworkConfigRevision => ({
    ...r,
    metadata: { ...r.metadata, annotations: { ...r.metadata.annotations, ...ann } },
  });
  const inputs = { vrf: [], layer2: [], routingTable: [] };
  const emptyHash = buildRevision(inputs, [], T0).hash as string;

  it('the high-water mark is the highest number ever seen, from numbers and annotations', () => {
    expect(highestNumber([rev(3, A), withAnn(rev(1, B), { [HIGHEST_NUMBER_ANNOTATION]: '9' })])).toBe(9);
    expect(highWaterMarks([rev(3, A), withAnn(rev(1, B), { [HIGHEST_NUMBER_ANNOTATION]: '9' })])).toEqual([
      { type: 'markHighestNumber', revision: 'rev-3-aaaaaaaaaa', number: 9 },
    ]);
  });

  it('a rebuild after `kubectl delete ncr` of the invalid revision gets a number above every earlier one', () => {
    // Revision 5 (invalid) was deleted; revision 4 remembers that 5 was used.
    const remaining = [withAnn(completed(rev(4, A)), { [HIGHEST_NUMBER_ANNOTATION]: '5' })];
    const d = buildRevision(inputs, remaining, T0).decision;
    expect(d).toMatchObject({ action: 'create', revision: { spec: { number: 6 } } });
  });

  it('the invalid revision equal to the inputs blocks them until a retry is requested', () => {
    const bad = rev(5, emptyHash, { invalid: true });
    const revs = [bad, rev(4, A)];
    expect(buildRevision(inputs, revs, T0).decision).toMatchObject({
      action: 'skip',
      reason: expect.stringContaining(`kubectl annotate ncr ${bad.metadata.name} ${RETRY_ANNOTATION}=now`),
    });
    const asked = [
      withAnn(bad, { [RETRY_ANNOTATION]: 'please' }),
      withAnn(rev(4, A), { [HIGHEST_NUMBER_ANNOTATION]: '7' }),
    ];
    const d = buildRevision(inputs, asked, T0).decision;
    expect(d).toMatchObject({
      action: 'create',
      revision: { spec: { number: 8, hash: emptyHash, retryOf: bad.metadata.name } },
    });
    // Once the retry exists, the request is answered: no second attempt.
    const retried = [...asked, rev(8, emptyHash)].map((r) =>
      r.spec.number === 8 ? { ...r, spec: { ...r.spec, retryOf: bad.metadata.name } } : r,
    );
    expect(buildRevision(inputs, retried, T0).decision.action).toBe('skip');
  });

  it('the old revision names its retry (status.retriedBy, RetryRequested=True) and keeps its failures; old failures never count against the retry', () => {
    const bad = withAnn(
      rev(5, C, {
        invalid: true,
        status: { failedNodes: [{ node: 'n00', message: 'boom', at: '2025-01-01T00:00:00Z' }] },
      }),
      { [RETRY_ANNOTATION]: 'x' },
    );
    const retry: NetworkConfigRevision = {
      ...rev(6, C),
      spec: { ...rev(6, C).spec, retryOf: bad.metadata.name },
    };
    const ncs = [nc('n00', C, { number: 5, status: invalid(A, 'boom') }), nc('n01', A, { status: done(A) })];
    const p = plan(
      input({
        revisions: [retry, bad, rev(4, A)],
        nodes: nodes(2),
        nodeConfigs: ncs,
        inputHash: C,
        policy: limit1,
      }),
    );
    expect(ofType(p.actions, 'invalidate')).toEqual([]);
    expect(ofType(p.actions, 'assign')).toEqual([
      expect.objectContaining({ node: 'n00', number: 6, reason: expect.stringMatching(/retry/) }),
    ]);
    const old = p.statusUpdates.find((s) => s.revision === bad.metadata.name)?.status;
    expect(old).toMatchObject({
      retriedBy: retry.metadata.name,
      failedNodes: [{ node: 'n00', message: 'boom' }],
    });
    expect(old?.conditions?.find((c) => c.type === 'RetryRequested')).toMatchObject({
      status: 'True',
      reason: 'Retried',
    });
  });

  it('a retry request on a configuration the inputs no longer produce is answered RetryRequested=False', () => {
    const bad = withAnn(rev(5, C, { invalid: true }), { [RETRY_ANNOTATION]: 'x' });
    const p = plan(input({ revisions: [rev(6, B), bad], nodes: [], inputHash: B }));
    const cond = p.statusUpdates
      .find((s) => s.revision === bad.metadata.name)
      ?.status.conditions?.find((c) => c.type === 'RetryRequested');
    expect(cond).toMatchObject({ status: 'False', reason: 'InputsChanged' });
  });
});
