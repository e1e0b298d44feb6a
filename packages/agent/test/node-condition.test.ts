/** The NodenetReady decision and how the pipeline's events fold into the state it decides on. */
import { describe, expect, it } from 'vitest';
import {
  decideNodenetReady,
  nextNodeState,
  type NodeState,
  type ReconcileOutcome,
  type StatusReport,
} from '@nodenet/agent';

const rev = 'ab'.repeat(32);
const report = (r: Partial<StatusReport>): StatusReport => ({
  configStatus: 'provisioning',
  revision: rev,
  reason: 'Applying',
  message: 'applying',
  ...r,
});
const provisioned: ReconcileOutcome = {
  kind: 'provisioned',
  revision: rev,
  health: { ok: true, results: [], newFailures: [], preexisting: [], summary: 'all checks passed' },
};

describe('decideNodenetReady', () => {
  it('says nothing before anything is known (a restart keeps what the Node shows)', () => {
    expect(decideNodenetReady({})).toBeUndefined();
    expect(decideNodenetReady({ frr: { answering: true } })).toBeUndefined();
  });

  it('is True when the revision is applied and FRR answers', () => {
    expect(decideNodenetReady({ outcome: provisioned, frr: { answering: true } })).toEqual({
      status: 'True',
      reason: 'Applied',
      message: `revision ${rev.slice(0, 10)} is applied`,
    });
    expect(
      decideNodenetReady({
        outcome: { kind: 'unchanged', revision: rev, driftOperations: 2, frrChanged: true },
      }),
    ).toMatchObject({ status: 'True', reason: 'Applied' });
  });

  it('is False while applying and while confirming', () => {
    expect(
      decideNodenetReady({ applying: { revision: rev, confirming: false }, outcome: provisioned }),
    ).toMatchObject({
      status: 'False',
      reason: 'Applying',
    });
    expect(decideNodenetReady({ applying: { revision: rev, confirming: true } })).toMatchObject({
      status: 'False',
      reason: 'Confirming',
    });
  });

  it('is False, Restored, after a failed apply that was rolled back, with its message', () => {
    const message = 'health checks failed: vtep0 down; restored revision 0123456789';
    expect(
      decideNodenetReady({
        outcome: { kind: 'invalid', revision: rev, step: 'health', message, restored: true },
        frr: { answering: true },
      }),
    ).toEqual({ status: 'False', reason: 'Restored', message });
    expect(
      decideNodenetReady({ outcome: { kind: 'rejected', revision: rev, message: 'bad' } }),
    ).toMatchObject({ status: 'False', reason: 'Restored' });
    expect(
      decideNodenetReady({
        outcome: {
          kind: 'recovered',
          attempted: rev,
          restored: true,
          message: 'agent restarted during apply',
        },
      }),
    ).toMatchObject({ status: 'False', reason: 'Restored' });
  });

  it('is False, RestoreFailed, when the restore failed too', () => {
    expect(
      decideNodenetReady({
        outcome: { kind: 'invalid', revision: rev, step: 'frr', message: 'restore FAILED', restored: false },
      }),
    ).toMatchObject({ status: 'False', reason: 'RestoreFailed', message: 'restore FAILED' });
  });

  it('is False, ApplyFailed, when an apply could not start', () => {
    expect(decideNodenetReady({ outcome: { kind: 'error', message: 'cannot start apply: EROFS' } })).toEqual({
      status: 'False',
      reason: 'ApplyFailed',
      message: 'cannot start apply: EROFS',
    });
  });

  it('is False, Unhealthy, when drift repair fails or FRR does not answer', () => {
    expect(
      decideNodenetReady({
        outcome: { kind: 'unchanged', revision: rev, driftOperations: 0, frrChanged: false, error: 'EPERM' },
      }),
    ).toEqual({ status: 'False', reason: 'Unhealthy', message: 'drift repair failed: EPERM' });
    expect(
      decideNodenetReady({ outcome: provisioned, frr: { answering: false, detail: 'zebra is not running' } }),
    ).toEqual({ status: 'False', reason: 'Unhealthy', message: 'FRR does not answer: zebra is not running' });
  });
});

describe('nextNodeState', () => {
  it('follows an apply: provisioning, confirming, then the outcome ends it', () => {
    let s: NodeState = { outcome: provisioned };
    s = nextNodeState(s, { kind: 'report', report: report({}) });
    expect(decideNodenetReady(s)?.reason).toBe('Applying');
    s = nextNodeState(s, { kind: 'report', report: report({ confirming: true, reason: 'Confirming' }) });
    expect(decideNodenetReady(s)?.reason).toBe('Confirming');
    // The final report comes before the outcome; it does not end the apply by itself.
    s = nextNodeState(s, {
      kind: 'report',
      report: report({ configStatus: 'provisioned', reason: 'Provisioned' }),
    });
    expect(decideNodenetReady(s)?.reason).toBe('Confirming');
    s = nextNodeState(s, { kind: 'outcome', outcome: provisioned });
    expect(decideNodenetReady(s)).toMatchObject({ status: 'True', reason: 'Applied' });
  });

  it('keeps what FRR answered across outcomes', () => {
    let s = nextNodeState({}, { kind: 'frr', answering: false, detail: 'no bgpd' });
    s = nextNodeState(s, { kind: 'outcome', outcome: provisioned });
    expect(decideNodenetReady(s)?.reason).toBe('Unhealthy');
    s = nextNodeState(s, { kind: 'frr', answering: true });
    expect(decideNodenetReady(s)?.reason).toBe('Applied');
  });
});
