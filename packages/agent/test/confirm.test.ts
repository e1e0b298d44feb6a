import { describe, expect, it } from 'vitest';
import { assessTick, nextPause, runConfirmWindow, type ConfirmState, type ConfirmTick } from '@nodenet/agent';
import type { CheckResult } from '@nodenet/agent';

const ok = (name: string): CheckResult => ({ name, ok: true, detail: 'fine' });
const bad = (name: string, detail = 'state Active'): CheckResult => ({ name, ok: false, detail });
const limit = { unreachableLimitMs: 10_000 };

describe('assessTick', () => {
  const cases: [string, ConfirmState, ConfirmTick, CheckResult[], string][] = [
    [
      'all pass',
      {},
      { atMs: 5000, results: [ok('bgp/default/10.0.0.1')], api: { ok: true, detail: '' } },
      [],
      'ok',
    ],
    [
      'a check that passed before fails now: fail at once',
      {},
      { atMs: 5000, results: [bad('bgp/default/10.0.0.1')], api: { ok: true, detail: '' } },
      [ok('bgp/default/10.0.0.1')],
      'failed HealthCheckFailed: health check failed 5 s after apply: bgp/default/10.0.0.1 (state Active)',
    ],
    [
      'a check failing already before the apply is not held against it',
      {},
      { atMs: 5000, results: [bad('dns')] },
      [bad('dns')],
      'ok',
    ],
    [
      'API down, first seen: start counting',
      {},
      { atMs: 5000, results: [], api: { ok: false, detail: 'timeout' } },
      [],
      'ok since 5000',
    ],
    [
      'API down within the limit',
      { unreachableSinceMs: 5000 },
      { atMs: 14_999, results: [], api: { ok: false, detail: 'timeout' } },
      [],
      'ok since 5000',
    ],
    [
      'API down for the limit: fail',
      { unreachableSinceMs: 5000 },
      { atMs: 15_000, results: [], api: { ok: false, detail: 'timeout' } },
      [],
      'failed ApiServerUnreachable: API server unreachable 5 s after apply, for 10 s (timeout)',
    ],
    [
      'API back: the count restarts',
      { unreachableSinceMs: 5000 },
      { atMs: 12_000, results: [], api: { ok: true, detail: '' } },
      [],
      'ok',
    ],
    ['no API probe configured', {}, { atMs: 12_000, results: [] }, [], 'ok'],
  ];
  it.each(cases)('%s', (_name, state, tick, baseline, expected) => {
    const verdict = assessTick(state, tick, baseline, limit);
    const text =
      verdict.kind === 'failed'
        ? `failed ${verdict.reason}: ${verdict.message}`
        : verdict.state.unreachableSinceMs !== undefined
          ? `ok since ${verdict.state.unreachableSinceMs}`
          : 'ok';
    expect(text).toBe(expected);
  });
});

describe('runConfirmWindow', () => {
  const loop = (checks: Omit<ConfirmTick, 'atMs'>[], abort?: AbortController) => {
    let now = 0;
    const signal = (abort ?? new AbortController()).signal;
    return runConfirmWindow({
      settings: { windowMs: 12_000, intervalMs: 5000, unreachableLimitMs: 10_000 },
      baseline: [],
      check: async () => checks.shift() ?? { results: [] },
      monotonicMs: () => now,
      sleep: async (ms) => {
        now += ms;
        if (now > 5000) abort?.abort();
      },
      signal,
    });
  };
  it('checks every interval until the window passed (the last pause is shortened)', async () => {
    expect(await loop([])).toEqual({ kind: 'confirmed', rounds: 3 }); // at 5, 10 and 12 s
  });
  it('ends at the first failed round', async () => {
    expect(await loop([{ results: [] }, { results: [bad('tcp/spine')] }])).toMatchObject({
      kind: 'failed',
      reason: 'HealthCheckFailed',
      message: 'health check failed 10 s after apply: tcp/spine (state Active)',
    });
  });
  it('ends as stopped when the signal aborts', async () => {
    expect(await loop([], new AbortController())).toEqual({
      kind: 'stopped',
      message: 'agent stopped 10 s into the confirm window',
    });
  });
});

describe('runConfirmWindow: the window never ends while the last API probe failed', () => {
  /**
   * A fake monotonic clock; `apiDown(atMs)` says whether the API server answers at that time.
   * Window 8 s, checks every 1 s, limit 6 s: the real-agent case.
   */
  const run = (apiDown: (atMs: number) => boolean, windowMs = 8000, unreachableLimitMs = 6000) => {
    let now = 0;
    const ticks: number[] = [];
    return runConfirmWindow({
      settings: { windowMs, intervalMs: 1000, unreachableLimitMs },
      baseline: [],
      check: async () => {
        ticks.push(now);
        return {
          results: [],
          api: apiDown(now) ? { ok: false, detail: 'timeout' } : { ok: true, detail: '' },
        };
      },
      monotonicMs: () => now,
      sleep: async (ms) => {
        now += ms;
      },
      signal: new AbortController().signal,
    }).then((outcome) => ({ outcome, endedAt: now, ticks }));
  };

  it('path lost 1.5 s in, back 3 s later: confirmed at the end of the window', async () => {
    const { outcome, endedAt } = await run((t) => t >= 1500 && t < 4500);
    expect(outcome).toEqual({ kind: 'confirmed', rounds: 8 });
    expect(endedAt).toBe(8000);
  });

  it('path lost 1.5 s in and held 14 s: reverted when the outage reaches the limit', async () => {
    const { outcome, endedAt } = await run((t) => t >= 1500 && t < 15_500);
    expect(outcome).toMatchObject({
      kind: 'failed',
      reason: 'ApiServerUnreachable',
      message: 'API server unreachable 2 s after apply, for 6 s (timeout)',
    });
    expect(endedAt).toBe(8000);
  });

  it('an outage that starts just before the end: extended until the API answers, then confirmed', async () => {
    // Before the fix the window confirmed at 8 s, with the last probe failed.
    const { outcome, endedAt, ticks } = await run((t) => t >= 7500 && t < 10_200);
    expect(outcome).toEqual({ kind: 'confirmed', rounds: 11 });
    expect(ticks.filter((t) => t > 8000)).toEqual([9000, 10_000, 11_000]);
    expect(endedAt).toBe(11_000);
  });

  it('an outage that starts just before the end and lasts: reverted at the limit, past the window', async () => {
    const { outcome, endedAt } = await run((t) => t >= 7500);
    expect(outcome).toMatchObject({
      kind: 'failed',
      reason: 'ApiServerUnreachable',
      message: 'API server unreachable 8 s after apply, for 6 s (timeout)',
    });
    // Bounded: window + limit (+ one round at most).
    expect(endedAt).toBe(14_000);
  });

  it('a node that cannot reach the API server in any round is never confirmed (30 s window, 29 s limit)', async () => {
    const { outcome, endedAt } = await run(() => true, 30_000, 29_000);
    expect(outcome).toMatchObject({ kind: 'failed', reason: 'ApiServerUnreachable' });
    expect(endedAt).toBe(30_000);
  });

  it('nextPause: within the window ends on it; past it, only during an outage, ends at the limit', () => {
    const s = { windowMs: 8000, intervalMs: 1000, unreachableLimitMs: 6000 };
    expect(nextPause(s, {}, 7600)).toBe(400);
    expect(nextPause(s, {}, 8000)).toBeUndefined();
    expect(nextPause(s, { unreachableSinceMs: 7500 }, 8000)).toBe(1000);
    expect(nextPause(s, { unreachableSinceMs: 7500 }, 13_000)).toBe(500);
  });
});
