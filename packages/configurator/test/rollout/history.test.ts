import type { NetworkConfigRevision } from '@nodenet/api';
import { describe, expect, it } from 'vitest';
import { historyCleanup } from '../../src/rollout/index.js';
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
    expect(deleted(revs, { limit: 2, invalid, desired })).toEqual(['rev-1']);
    expect(deleted(revs, { limit: 2, invalid, desired, inputHash: revs[3]?.spec.hash })).toEqual([]);
  });
});
