/**
 * When the observed state is written: the pure decision (decide.ts) and the ObservedReporter's
 * rounds with an injected monotonic clock. The FRR read and the API write are the reporter's
 * boundaries; the real ones run in test/agent/agent-observed.test.ts.
 */
import type { ObservedState } from '@nodenet/api';
import { describe, expect, it, vi } from 'vitest';
import {
  decideObservedWrite,
  observedPatch,
  ObservedReporter,
  sameObserved,
  stabilizeSince,
} from '@nodenet/agent';

const session = (state: string, since?: string) => ({
  vrf: 'default',
  peer: '10.0.0.1',
  state,
  ...(since ? { since } : {}),
});
const up = (since = '2026-01-01T00:00:00Z'): ObservedState => ({
  frrVersion: '8.4.4',
  bgpSummary: '1/1',
  bgpSessions: [session('Established', since)],
});

describe('stabilizeSince', () => {
  it('keeps the written since while the same session moves by a second between reads', () => {
    const next = stabilizeSince(up('2026-01-01T00:00:00Z'), up('2026-01-01T00:00:01Z'));
    expect(next.bgpSessions?.[0]?.since).toBe('2026-01-01T00:00:00Z');
  });
  it('takes the new since when the session re-established (moved by more than the tolerance)', () => {
    const next = stabilizeSince(up('2026-01-01T00:00:00Z'), up('2026-01-01T00:05:00Z'));
    expect(next.bgpSessions?.[0]?.since).toBe('2026-01-01T00:05:00Z');
  });
  it('takes the new since when the state changed', () => {
    const down: ObservedState = { ...up(), bgpSessions: [session('Active', '2026-01-01T00:00:01Z')] };
    expect(stabilizeSince(up(), down).bgpSessions?.[0]).toEqual(session('Active', '2026-01-01T00:00:01Z'));
  });
});

describe('decideObservedWrite', () => {
  const base = { minIntervalMs: 10_000, nowMs: 50_000 };
  it('writes the first state', () => {
    expect(
      decideObservedWrite({ ...base, written: undefined, candidate: up(), lastWriteAtMs: undefined }),
    ).toEqual({
      kind: 'write',
    });
  });
  it('does not write an unchanged state, whatever the key order', () => {
    const reordered: ObservedState = {
      bgpSessions: [
        { since: '2026-01-01T00:00:00Z', state: 'Established', peer: '10.0.0.1', vrf: 'default' },
      ],
      bgpSummary: '1/1',
      frrVersion: '8.4.4',
    };
    expect(sameObserved(up(), reordered)).toBe(true);
    expect(decideObservedWrite({ ...base, written: up(), candidate: reordered, lastWriteAtMs: 0 })).toEqual({
      kind: 'unchanged',
    });
  });
  it('holds a change back until the interval since the last write has passed', () => {
    const changed: ObservedState = { ...up(), frrVersion: '10.1' };
    expect(
      decideObservedWrite({ ...base, written: up(), candidate: changed, lastWriteAtMs: 46_000 }),
    ).toEqual({
      kind: 'wait',
      inMs: 6_000,
    });
    expect(
      decideObservedWrite({ ...base, written: up(), candidate: changed, lastWriteAtMs: 40_000 }),
    ).toEqual({
      kind: 'write',
    });
  });
});

describe('observedPatch', () => {
  it('sends absent parts as null, so a merge patch removes them', () => {
    expect(observedPatch({ frrVersion: '8.4.4' })).toEqual({
      status: {
        observed: {
          frrVersion: '8.4.4',
          bgpSummary: null,
          vniSummary: null,
          bgpSessions: null,
          vnis: null,
          error: null,
        },
      },
    });
  });
});

/** A reporter over a scripted FRR and a recording API, on a clock the test moves. */
function harness(reads: ObservedState[], failWrites = 0) {
  let clock = 0;
  let failures = failWrites;
  const writes: { atMs: number; observed: ObservedState }[] = [];
  const reporter = new ObservedReporter({
    read: () => Promise.resolve((reads.length > 1 ? reads.shift() : reads[0]) ?? {}),
    write: (observed) => {
      if (failures-- > 0) return Promise.reject(new Error('API server unavailable'));
      writes.push({ atMs: clock, observed });
      return Promise.resolve();
    },
    intervalMs: 10_000,
    monotonicMs: () => clock,
  });
  return { reporter, writes, advance: (ms: number) => (clock += ms) };
}

describe('ObservedReporter', () => {
  it('writes only when the state changed and at most once per interval', async () => {
    const changed: ObservedState = { ...up(), bgpSummary: '0/1', bgpSessions: [session('Active')] };
    const h = harness([up(), up('2026-01-01T00:00:01Z'), changed, changed]);
    expect((await h.reporter.tick()).kind).toBe('write');
    h.advance(3000);
    // Same session, since one second later (rounding): nothing to write.
    expect((await h.reporter.tick()).kind).toBe('unchanged');
    h.advance(3000);
    // Changed 6 s after the last write: held back for the remaining 4 s.
    expect(await h.reporter.tick()).toEqual({ kind: 'wait', inMs: 4000 });
    h.advance(4000);
    expect((await h.reporter.tick()).kind).toBe('write');
    expect(h.writes).toEqual([
      { atMs: 0, observed: up() },
      { atMs: 10_000, observed: changed },
    ]);
  });

  it('retries a failed write at the interval, not faster', async () => {
    const h = harness([up()], 1);
    expect((await h.reporter.tick()).kind).toBe('write'); // fails
    h.advance(1000);
    expect((await h.reporter.tick()).kind).toBe('wait');
    h.advance(9000);
    expect((await h.reporter.tick()).kind).toBe('write');
    expect(h.writes).toEqual([{ atMs: 10_000, observed: up() }]);
  });

  it('writes again when the API no longer shows the state (NodeConfig re-created)', async () => {
    const h = harness([up()]);
    await h.reporter.tick();
    h.advance(20_000);
    expect((await h.reporter.tick()).kind).toBe('unchanged');
    h.reporter.seenInApi(undefined);
    expect((await h.reporter.tick()).kind).toBe('write');
    expect(h.writes).toHaveLength(2);
  });

  it('reads less often while nothing changes (doubling, bounded), and at the base pace again after a change', async () => {
    const changed: ObservedState = { ...up(), bgpSummary: '0/1', bgpSessions: [session('Active')] };
    // Seven reads of the same state, then a change that stays.
    const reads = [up(), up(), up(), up(), up(), up(), up(), changed, changed];
    const waits: number[] = [];
    const reporter: ObservedReporter = new ObservedReporter({
      read: () => Promise.resolve((reads.length > 1 ? reads.shift() : reads[0])!),
      write: () => Promise.resolve(),
      intervalMs: 10_000,
      maxIntervalMs: 40_000,
      monotonicMs: () => waits.reduce((a, b) => a + b, 0),
      sleep: (ms) => {
        waits.push(ms);
        if (waits.length === 9) void reporter.stop();
        return Promise.resolve();
      },
    });
    reporter.start();
    await vi.waitFor(() => expect(waits).toHaveLength(9));
    await reporter.stop();
    // write, then quiet reads back off 20 s, 40 s, capped at 40 s; the change reads at 10 s again.
    expect(waits).toEqual([10_000, 20_000, 40_000, 40_000, 40_000, 40_000, 40_000, 10_000, 20_000]);
  });
});
