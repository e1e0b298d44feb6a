import { describe, expect, it } from 'vitest';
import { shutdownWithin } from '@nodenet/kube';

const never = (): Promise<void> => new Promise<void>(() => undefined);

describe('shutdownWithin (bounded shutdown steps)', () => {
  it('runs every step in order and reports complete when all finish', async () => {
    const order: string[] = [];
    const r = await shutdownWithin(
      ['a', 'b', 'c'].map((name) => ({ name, run: () => void order.push(name) })),
      1_000,
    );
    expect(order).toEqual(['a', 'b', 'c']);
    expect([r.complete, r.unfinished]).toEqual([true, []]);
  });

  it('abandons a step still running at the deadline, skips a step that needs a clean stop, runs the rest with the time left', async () => {
    const ran: string[] = [];
    const r = await shutdownWithin(
      [
        { name: 'stuck', run: never },
        { name: 'release', run: () => void ran.push('release'), onlyAfterCleanStop: true },
        { name: 'close', run: () => void ran.push('close') },
      ],
      50,
    );
    expect(ran).toEqual([]);
    expect(r.complete).toBe(false);
    expect(r.unfinished).toEqual([
      'stuck (still running after 50 ms, abandoned)',
      'release (skipped: an earlier step did not finish)',
      'close (no time left)',
    ]);
  });

  it('names a step that failed, and goes on', async () => {
    const ran: string[] = [];
    const r = await shutdownWithin(
      [
        { name: 'lease', run: () => Promise.reject(new Error('unreachable')) },
        { name: 'close', run: () => void ran.push('close') },
      ],
      1_000,
    );
    expect(ran).toEqual(['close']);
    expect(r.unfinished).toEqual(['lease (failed: unreachable)']);
  });

  it('an API step that never answers is abandoned at its own bound; the rest still runs; not complete', async () => {
    const ran: string[] = [];
    const result = await shutdownWithin(
      [
        { name: 'last status write', run: () => new Promise(() => undefined), maxMs: 50 },
        { name: 'close', run: () => void ran.push('close') },
      ],
      5000,
    );
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
});
