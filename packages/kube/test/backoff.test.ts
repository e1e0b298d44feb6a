import { describe, expect, it } from 'vitest';
import { backoffDelay, parallel } from '@nodenet/kube';

describe('backoffDelay', () => {
  it('doubles from the initial delay up to the cap', () => {
    const policy = { initialMs: 500, maxMs: 30_000, factor: 2 };
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => backoffDelay(policy, n))).toEqual([
      500, 1000, 2000, 4000, 8000, 16000, 30000, 30000,
    ]);
  });
});

describe('parallel', () => {
  it('calls fn once per item with at most `limit` calls in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const seen: number[] = [];
    await parallel([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      seen.push(n);
      inFlight--;
    });
    expect([...seen].sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(most).toBe(3);
  });

  it('rejects with a failure of fn', async () => {
    await expect(
      parallel([1, 2], 2, (n) => (n === 2 ? Promise.reject(new Error('write 2 failed')) : Promise.resolve())),
    ).rejects.toThrow('write 2 failed');
  });
});
