/** The adaptive resync period: doubles while resyncs find nothing, bounded; back at once after anything else. */
import { describe, expect, it } from 'vitest';
import { nextResyncMs, RESYNC_BACKOFF, type ReconcileOutcome } from '@nodenet/agent';

const quiet: ReconcileOutcome = { kind: 'unchanged', revision: 'r', driftOperations: 0, frrChanged: false };

describe('resync back-off', () => {
  it('doubles while nothing drifts, up to RESYNC_BACKOFF × the period', () => {
    const seen: number[] = [];
    let ms = 60_000;
    for (let i = 0; i < 5; i++) seen.push((ms = nextResyncMs(ms, 60_000, quiet)));
    expect(seen).toEqual([120_000, 240_000, 240_000, 240_000, 240_000]);
    expect(RESYNC_BACKOFF * 60_000).toBe(240_000);
  });

  it('goes back to the period after a repair, an error or a new revision', () => {
    const after = (o: ReconcileOutcome): number => nextResyncMs(240_000, 60_000, o);
    expect(after({ ...quiet, driftOperations: 2 })).toBe(60_000);
    expect(after({ ...quiet, frrChanged: true })).toBe(60_000);
    expect(after({ ...quiet, error: 'netlink: EBUSY' })).toBe(60_000);
    expect(after({ kind: 'error', message: 'cannot start apply' })).toBe(60_000);
  });
});
