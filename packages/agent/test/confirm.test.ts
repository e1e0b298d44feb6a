import { describe, expect, it } from 'vitest';
import { assessTick, runConfirmWindow, type ConfirmState, type ConfirmTick } from '@nodenet/agent';
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
