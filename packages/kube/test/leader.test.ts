import { describe, expect, it } from 'vitest';
import { decideLease, microTime } from '@nodenet/kube';

const wallNow = new Date('2025-01-01T00:00:00.123Z');
const base = { wallNow, identity: 'me', leaseDurationSeconds: 15 };

describe('decideLease (client-go semantics)', () => {
  it('creates a missing lease with us as holder', () => {
    expect(decideLease({ ...base, current: undefined, observedAtMs: 0, nowMs: 0 })).toEqual({
      action: 'create',
      spec: {
        holderIdentity: 'me',
        leaseDurationSeconds: 15,
        acquireTime: '2025-01-01T00:00:00.123000Z',
        renewTime: '2025-01-01T00:00:00.123000Z',
        leaseTransitions: 0,
      },
    });
  });

  it("waits while another holder's lease has not expired on the local clock", () => {
    const current = {
      holderIdentity: 'other',
      leaseDurationSeconds: 15,
      leaseTransitions: 2,
      renewTime: '1999-01-01T00:00:00.000000Z',
    };
    // renewTime is far in the past by the other's clock, but we only saw the record 14.9 s ago.
    expect(decideLease({ ...base, current, observedAtMs: 1000, nowMs: 15_900 }).action).toBe('wait');
  });

  it('takes over an expired lease and counts a transition', () => {
    const current = { holderIdentity: 'other', leaseDurationSeconds: 15, leaseTransitions: 2 };
    const d = decideLease({ ...base, current, observedAtMs: 1000, nowMs: 16_001 });
    expect(d).toMatchObject({ action: 'update', spec: { holderIdentity: 'me', leaseTransitions: 3 } });
  });

  it('takes a released lease (empty holder) at once', () => {
    const current = { holderIdentity: '', leaseDurationSeconds: 1, leaseTransitions: 4 };
    expect(decideLease({ ...base, current, observedAtMs: 1000, nowMs: 1000 })).toMatchObject({
      action: 'update',
      spec: { holderIdentity: 'me', leaseTransitions: 5 },
    });
  });

  it('a renewal keeps acquireTime and the transition count', () => {
    const current = {
      holderIdentity: 'me',
      leaseDurationSeconds: 15,
      leaseTransitions: 7,
      acquireTime: '2024-12-31T23:00:00.000000Z',
    };
    expect(decideLease({ ...base, current, observedAtMs: 0, nowMs: 100_000 })).toMatchObject({
      action: 'update',
      spec: {
        holderIdentity: 'me',
        acquireTime: '2024-12-31T23:00:00.000000Z',
        leaseTransitions: 7,
        renewTime: '2025-01-01T00:00:00.123000Z',
      },
    });
  });

  it('honours the lease duration written in the record (e.g. 1 s after a release)', () => {
    const current = { holderIdentity: 'other', leaseDurationSeconds: 1 };
    expect(decideLease({ ...base, current, observedAtMs: 0, nowMs: 999 }).action).toBe('wait');
    expect(decideLease({ ...base, current, observedAtMs: 0, nowMs: 1001 }).action).toBe('update');
  });

  it('writes MicroTime with six fractional digits', () => {
    expect(microTime(new Date('2025-06-01T12:34:56.789Z'))).toBe('2025-06-01T12:34:56.789000Z');
  });
});
