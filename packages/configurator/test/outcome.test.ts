import type { InputStatus, Layer2NetworkConfiguration } from '@nodenet/api';
import { describe, expect, it } from 'vitest';
import { appliedCondition, carried } from '@nodenet/configurator';
import { A, B, completed, rev } from './rollout/fixtures.js';

const l2 = (generation: number, status?: InputStatus): Layer2NetworkConfiguration => ({
  apiVersion: 'network.nodenet.io/v1alpha1',
  kind: 'Layer2NetworkConfiguration',
  metadata: { name: 'red', generation },
  spec: { id: 100, vni: 10100, mtu: 1500 },
  ...(status ? { status } : {}),
});
const r1 = completed(rev(1, A, { status: { ready: 3, total: 3 } }));
const r2Invalid = rev(2, B, {
  invalid: true,
  status: { failedNodes: [{ node: 'n00', message: 'health check failed: x', at: 't' }] },
});
const r2Rolling = rev(2, B, { status: { ready: 1, total: 3, phase: 'RollingOut' } });
const on = (revision: string, revisionGeneration: number): InputStatus => ({ revision, revisionGeneration });
const ok = { accepted: true, blocked: false };

describe('Applied condition of an input generation', () => {
  it.each([
    {
      what: 'carried by a complete revision',
      o: l2(1),
      st: on('rev-1-aaaaaaaaaa', 1),
      o2: ok,
      revs: [r1],
      reason: 'Applied',
    },
    {
      what: 'carried by a revision rolling out',
      o: l2(2),
      st: on('rev-2-bbbbbbbbbb', 2),
      o2: ok,
      revs: [r2Rolling, r1],
      reason: 'RollingOut',
    },
    {
      what: 'carried by an invalidated revision',
      o: l2(2),
      st: on('rev-2-bbbbbbbbbb', 2),
      o2: ok,
      revs: [r2Invalid, r1],
      reason: 'RolledBack',
    },
    {
      what: 'an invalid new generation',
      o: l2(3),
      st: on('rev-1-aaaaaaaaaa', 1),
      o2: { accepted: false, blocked: true },
      revs: [r1],
      reason: 'HeldBack',
    },
    {
      what: 'valid, blocked by another input',
      o: l2(3),
      st: on('rev-1-aaaaaaaaaa', 1),
      o2: { accepted: true, blocked: true },
      revs: [r1],
      reason: 'Blocked',
    },
    { what: 'not in a revision yet', o: l2(1), st: {}, o2: ok, revs: [r1], reason: 'Pending' },
    {
      what: 'its revision superseded before completing: read off the newer',
      o: l2(1),
      st: on('rev-1-aaaaaaaaaa', 1),
      o2: ok,
      revs: [r2Rolling, rev(1, A)],
      reason: 'RollingOut',
    },
    {
      what: 'its revision completed, then superseded: applied',
      o: l2(1),
      st: on('rev-1-aaaaaaaaaa', 1),
      o2: ok,
      revs: [r2Rolling, r1],
      reason: 'Applied',
    },
  ])('$what → $reason', ({ o, st, o2, revs, reason }) => {
    const c = appliedCondition(o, st, o2, revs);
    expect(c.reason).toBe(reason);
    expect(c.status).toBe(reason === 'Applied' ? 'True' : 'False');
  });

  it('RolledBack names the revision and the failed nodes with their messages', () => {
    expect(appliedCondition(l2(2), on('rev-2-bbbbbbbbbb', 2), ok, [r2Invalid, r1]).message).toBe(
      'revision rev-2-bbbbbbbbbb carrying generation 2 was invalidated (NodesFailed) and rolled back: n00: health check failed: x',
    );
  });

  it('a generation carried by an invalid revision counts as not carried (a retry carries it again)', () => {
    expect(carried(l2(2, on('rev-2-bbbbbbbbbb', 2)), [r2Invalid, r1])).toBe(false);
    expect(carried(l2(1, on('rev-1-aaaaaaaaaa', 1)), [r2Invalid, r1])).toBe(true);
    expect(carried(l2(2, on('rev-1-aaaaaaaaaa', 1)), [r1])).toBe(false);
  });
});
