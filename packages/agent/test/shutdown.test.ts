import { describe, expect, it } from 'vitest';
import { shutdownWithin } from '@nodenet/agent';

describe('shutdownWithin', () => {
  it('runs every step in order and is complete when all finish', async () => {
    const order: string[] = [];
    const result = await shutdownWithin(
      [
        { name: 'restore', run: () => void order.push('restore') },
        { name: 'status', run: async () => void order.push('status'), maxMs: 100 },
      ],
      1000,
    );
    expect(order).toEqual(['restore', 'status']);
    expect(result).toMatchObject({ complete: true, unfinished: [] });
  });

  it('an API step that never answers is abandoned at its own bound; the rest still runs; not complete', async () => {
    const ran: string[] = [];
    const t0 = performance.now();
    const result = await shutdownWithin(
      [
        { name: 'last status write', run: () => new Promise(() => undefined), maxMs: 50 },
        { name: 'close', run: () => void ran.push('close') },
      ],
      5000,
    );
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(ran).toEqual(['close']);
    expect(result.complete).toBe(false);
    expect(result.unfinished).toEqual(['last status write (still running after 50 ms, abandoned)']);
  });

  it('the overall deadline bounds everything; later steps are named as not run', async () => {
    const result = await shutdownWithin(
      [
        { name: 'finish the apply', run: () => new Promise(() => undefined) },
        { name: 'close', run: () => undefined },
      ],
      60,
    );
    expect(result.unfinished).toEqual([
      'finish the apply (still running after 60 ms, abandoned)',
      'close (no time left)',
    ]);
  });

  it('a failing step is named with its error', async () => {
    const result = await shutdownWithin(
      [{ name: 'close', run: () => Promise.reject(new Error('EBADF')) }],
      100,
    );
    expect(result.unfinished).toEqual(['close (failed: EBADF)']);
  });
});
