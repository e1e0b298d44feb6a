import { APPLIED_NUMBER_LABEL, REPORT_LABEL, REVISION_NUMBER_LABEL } from '@nodenet/api';
import { describe, expect, it } from 'vitest';
import {
  isTimeoutFailure,
  newTimeouts,
  rowLabelActions,
  rowLabels,
  rowLabelsOnMove,
  whyReportIgnored,
} from '@nodenet/configurator';
import { A, B, C, done, invalid, nc, provisioning, rev } from './fixtures.js';

const revs = [rev(2, B), rev(1, A)];

describe('kubectl get nc row labels', () => {
  it.each([
    { what: 'no report yet', nc: nc('n', B, { number: 2 }), report: 'pending', applied: null },
    {
      what: 'provisioned, about the current spec',
      nc: nc('n', B, { number: 2, status: done(B) }),
      report: 'provisioned',
      applied: '2',
    },
    {
      what: 'a report about the previous spec (older generation)',
      nc: nc('n', B, { number: 2, generation: 2, status: done(A, undefined, 1) }),
      report: 'pending',
      applied: '1',
    },
    {
      what: 'provisioning the current spec, old revision on the host',
      nc: nc('n', B, { number: 2, status: provisioning(A) }),
      report: 'provisioning',
      applied: '1',
    },
    {
      what: 'invalid: restored revision 1',
      nc: nc('n', B, { number: 2, status: invalid(A) }),
      report: 'invalid',
      applied: '1',
    },
    {
      what: 'on the host a revision since deleted: its hash prefix',
      nc: nc('n', B, { number: 2, status: provisioning(C) }),
      report: 'provisioning',
      applied: C.slice(0, 10),
    },
  ])('$what → $report, applied $applied', ({ nc: obj, report, applied }) => {
    expect(rowLabels(obj, revs)).toEqual({ [REPORT_LABEL]: report, [APPLIED_NUMBER_LABEL]: applied });
  });

  it('writes only differing labels, never for a NodeConfig assigned in the same pass', () => {
    const a = nc('a', B, { number: 2, status: done(B) });
    a.metadata.labels = { [REVISION_NUMBER_LABEL]: '2', [REPORT_LABEL]: 'pending' };
    const b = nc('b', B, { number: 2, status: done(B) });
    b.metadata.labels = {
      [REVISION_NUMBER_LABEL]: '2',
      [REPORT_LABEL]: 'provisioned',
      [APPLIED_NUMBER_LABEL]: '2',
    };
    const c = nc('c', B, { number: 2 });
    expect(rowLabelActions([a, b, c], revs, new Set(['c']))).toEqual([
      {
        type: 'labelNodeConfig',
        name: 'a',
        labels: { [REPORT_LABEL]: 'provisioned', [APPLIED_NUMBER_LABEL]: '2' },
      },
    ]);
  });
});

describe('rows of an agent that names the revision numbers (read from status)', () => {
  const numbered = nc('n', B, {
    number: 2,
    status: { ...done(B), revisionNumber: 2, appliedRevisionNumber: 2 },
  });

  it("no label write after its report; an older agent's row labels are removed once", () => {
    const leftover = nc('l', B, { number: 2, status: { ...provisioning(A), revisionNumber: 2 } });
    leftover.metadata.labels = { ...leftover.metadata.labels, [REPORT_LABEL]: 'pending' };
    expect(rowLabelActions([numbered, leftover], revs, new Set())).toEqual([
      { type: 'labelNodeConfig', name: 'l', labels: { [REPORT_LABEL]: null } },
    ]);
  });

  it('a move writes pending only for an older agent, and removes leftover row labels otherwise', () => {
    const older = nc('o', A, { number: 1, status: done(A) });
    const leftover = nc('l', A, { number: 1, status: { ...done(A), revisionNumber: 1 } });
    leftover.metadata.labels = { ...leftover.metadata.labels, [APPLIED_NUMBER_LABEL]: '1' };
    expect(rowLabelsOnMove(undefined)).toEqual({});
    expect(rowLabelsOnMove(nc('new', A, { number: 1 }))).toEqual({});
    expect(rowLabelsOnMove(numbered)).toEqual({});
    expect(rowLabelsOnMove(older)).toEqual({ [REPORT_LABEL]: 'pending' });
    expect(rowLabelsOnMove(leftover)).toEqual({ [APPLIED_NUMBER_LABEL]: null });
  });

  it('no label at all for a node whose agent has not reported yet', () => {
    expect(rowLabelActions([nc('n', B, { number: 2 })], revs, new Set())).toEqual([]);
  });
});

describe('timeouts recorded on the NodeConfig', () => {
  it.each([
    ['preconfig timeout: agent did not report on the assignment within 2m', true],
    ['config timeout: agent reported provisioning and nothing since for 5m', true],
    ['NotReady for 5m after taking revision 3', true],
    ['Node gone for 5m after taking revision 3', true],
    ['health check failed: gateway unreachable', false],
  ])('%s → %s', (message, timeout) => {
    expect(isTimeoutFailure(message)).toBe(timeout);
  });
  it('only newly listed timeouts', () => {
    const t = { node: 'a', message: 'config timeout: x', at: 't' };
    const u = { node: 'b', message: 'preconfig timeout: y', at: 't' };
    const bad = { node: 'c', message: 'frr reload failed', at: 't' };
    expect(newTimeouts([t], [t, u, bad])).toEqual([u]);
  });
});

describe('agent reports the configurator ignores (logged with the reason)', () => {
  it.each([
    { what: 'no status', obj: nc('n', B, { number: 2 }), why: undefined },
    { what: 'an answer to the spec', obj: nc('n', B, { number: 2, status: done(B) }), why: undefined },
    {
      what: 'an older generation',
      obj: nc('n', B, { number: 2, generation: 3, status: provisioning(A, undefined, 2) }),
      why: 'it answers generation 2, the spec is generation 3 (not answered yet)',
    },
    {
      what: 'no observedGeneration anywhere, another revision applied',
      obj: nc('n', B, { number: 2, status: { configStatus: 'provisioned', lastAppliedRevision: A } }),
      why: "no condition carries observedGeneration, and lastAppliedRevision is not the spec's revision (see docs/agent-status.md)",
    },
  ])('$what', ({ obj, why }) => {
    expect(whyReportIgnored(obj)).toBe(why);
  });
});
