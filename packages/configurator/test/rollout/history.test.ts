import { RAN_BEFORE_ANNOTATION, type NetworkConfigRevision, type NodeConfig } from '@nodenet/api';
import { describe, expect, it } from 'vitest';
import { historyCleanup } from '@nodenet/configurator';
import { nc, rev } from './fixtures.js';

const many = (n: number): NetworkConfigRevision[] =>
  Array.from({ length: n }, (_, i) => ({
    ...rev(i + 1, (i + 1).toString(16).padStart(64, '0')),
    metadata: { name: `rev-${i + 1}` },
  })).reverse();
const deleted = (
  revisions: NetworkConfigRevision[],
  over: Partial<Parameters<typeof historyCleanup>[0]>,
): string[] =>
  historyCleanup({
    revisions,
    desired: revisions[0],
    invalid: new Set(),
    nodeConfigs: [],
    limit: 10,
    ...over,
  }).map((a) => a.revision);

describe('history cleanup', () => {
  it('deletes the oldest unreferenced revisions beyond the limit', () => {
    expect(deleted(many(6), { limit: 3 })).toEqual(['rev-3', 'rev-2', 'rev-1']);
  });

  it('never deletes a revision a NodeConfig references, nor the rollback target', () => {
    const revs = many(6);
    const ncs = [nc('x', (1).toString(16).padStart(64, '0'))];
    expect(deleted(revs, { limit: 1, nodeConfigs: ncs })).toEqual(['rev-4', 'rev-3', 'rev-2']);
  });

  it('keeps invalid revisions within the limit, and one equal to the inputs even beyond it', () => {
    const revs = many(4);
    const invalid = new Set(['rev-4', 'rev-1']);
    const desired = revs[1];
    const other = 'f'.repeat(64);
    expect(deleted(revs, { limit: 2, invalid, desired, inputHash: other })).toEqual(['rev-1']);
    expect(deleted(revs, { limit: 2, invalid, desired, inputHash: revs[3]?.spec.hash })).toEqual([]);
  });

  // Issue 11: with some input invalid the current inputs are unknown; deleting the invalid revision
  // equal to them would let the known-bad configuration roll out again once the typo is fixed.
  it('inputs unknown (invalid since start-up): every invalid revision is kept, whatever the limit', () => {
    const revs = many(5);
    const invalid = new Set(['rev-1', 'rev-5']);
    // rev-5 newest, rev-4 desired, rev-3 rollback target; rev-1 (invalid) stays.
    expect(deleted(revs, { limit: 1, invalid, desired: revs[1] })).toEqual(['rev-2']);
    expect(deleted(revs, { limit: 1, invalid, desired: revs[1], inputHash: 'f'.repeat(64) })).toEqual([
      'rev-2',
      'rev-1',
    ]);
  });

  // Issue #23: deleting the invalid revision released its suspects and the same inputs rolled out again.
  it('keeps an invalid revision that holds its suspects back, until it is retried', () => {
    const revs = many(4);
    const withSuspects = (r: NetworkConfigRevision): NetworkConfigRevision => ({
      ...r,
      spec: { ...r.spec, changedInputs: ['VRFRouteConfiguration/x@2'] },
      status: { isInvalid: true },
    });
    const list = [
      revs[0],
      revs[1],
      revs[2],
      withSuspects(revs[3] as NetworkConfigRevision),
    ] as NetworkConfigRevision[];
    const over = { limit: 2, invalid: new Set(['rev-1']), desired: list[0], inputHash: 'f'.repeat(64) };
    expect(deleted(list, over)).toEqual(['rev-2']);
    const retried = list.map((r) =>
      r.metadata.name === 'rev-4' ? { ...r, spec: { ...r.spec, retryOf: 'rev-1' } } : r,
    );
    expect(deleted(retried, { ...over, desired: retried[0] })).toEqual(['rev-2', 'rev-1']);
  });

  // Issue 35: a node leaving an invalid revision goes back to what its own host ran before
  // (`ran-before`); with that revision deleted it went to an older completed one (or the empty
  // configuration) and lost inputs the failed change never touched.
  it("keeps the revision a NodeConfig's ran-before names", () => {
    const revs = many(6);
    const x = nc('n0', (revs[0] as NetworkConfigRevision).spec.hash);
    const n0: NodeConfig = {
      ...x,
      metadata: { ...x.metadata, annotations: { ...x.metadata.annotations, [RAN_BEFORE_ANNOTATION]: '2' } },
    };
    // n0 is on rev 6 (desired), its host ran rev 2 before: rev 2 stays, rev 5 (rollback target) too.
    expect(deleted(revs, { limit: 1, nodeConfigs: [n0] })).toEqual(['rev-4', 'rev-3', 'rev-1']);
  });

  // Issue 35: the suspects of an invalid revision are held at its fallback's entries (the newest
  // revision that ran well), and a node without ran-before goes back to the newest completed one.
  it("keeps an invalid revision's fallback and the completed revision before it", () => {
    const status: Record<number, NetworkConfigRevision['status']> = {
      6: { isInvalid: true },
      4: { ranAt: '2025-01-01T00:00:00Z' },
      2: { completedAt: '2025-01-01T00:00:00Z' },
    };
    const list = many(7).map((r) => {
      const n = r.spec.number;
      const spec = n === 6 ? { ...r.spec, changedInputs: ['VRFRouteConfiguration/x@2'] } : r.spec;
      return status[n] ? { ...r, spec, status: status[n] } : { ...r, spec };
    });
    // rev 7 desired (built with the suspects held back), rev 5 the newest valid one before it.
    const over = { limit: 1, invalid: new Set(['rev-6']), inputHash: 'f'.repeat(64) };
    expect(deleted(list, over)).toEqual(['rev-3', 'rev-1']);
  });
});
