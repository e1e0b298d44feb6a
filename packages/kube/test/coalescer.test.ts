import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Coalescer, gatheredRunAt } from '../src/runtime/coalescer.js';

describe('gatheredRunAt', () => {
  const t = { windowMs: 50, gapMs: 5 };
  it('is the gap after the latest event', () => {
    expect(gatheredRunAt(t, 100, 100)).toBe(105);
    expect(gatheredRunAt(t, 100, 120)).toBe(125);
  });
  it('is never later than the window after the first event', () => {
    expect(gatheredRunAt(t, 100, 148)).toBe(150);
    expect(gatheredRunAt(t, 100, 400)).toBe(150);
  });
  it('a gap longer than the window is the window', () => {
    expect(gatheredRunAt({ windowMs: 10, gapMs: 50 }, 0, 0)).toBe(10);
  });
});

describe('Coalescer', () => {
  let runs: number[];
  let coalescer: Coalescer;
  let runMs: number;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    runs = [];
    runMs = 0;
    coalescer = new Coalescer(async () => {
      runs.push(performance.now());
      if (runMs > 0) await new Promise((r) => setTimeout(r, runMs));
    }, 50);
    coalescer.enable();
  });
  afterEach(async () => {
    await coalescer.stop();
    vi.useRealTimers();
  });

  it('serves a lone event after the quiet gap, not the whole window', async () => {
    const t0 = performance.now();
    coalescer.schedule();
    await vi.advanceTimersByTimeAsync(4);
    expect(runs).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toEqual([t0 + 5]);
  });

  it('a burst shares one run, after its last event', async () => {
    const t0 = performance.now();
    for (let i = 0; i < 10; i++) {
      coalescer.schedule();
      await vi.advanceTimersByTimeAsync(3);
    }
    // Events at 0, 3, …, 27; the run 5 ms after the last one.
    await vi.advanceTimersByTimeAsync(10);
    expect(runs).toEqual([t0 + 32]);
  });

  it('a steady stream still runs once per window', async () => {
    const t0 = performance.now();
    for (let i = 0; i < 60; i++) {
      coalescer.schedule();
      await vi.advanceTimersByTimeAsync(2);
    }
    expect(runs.slice(0, 2)).toEqual([t0 + 50, t0 + 100]);
    expect(runs.length).toBeLessThanOrEqual(3);
  });

  it('an explicit earlier request is not postponed by events', async () => {
    const t0 = performance.now();
    coalescer.schedule(0);
    coalescer.schedule();
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toEqual([t0]);
  });

  it('an explicit later request gives way to an event, which runs after the gap', async () => {
    const t0 = performance.now();
    coalescer.schedule(1000);
    coalescer.schedule();
    await vi.advanceTimersByTimeAsync(5);
    expect(runs).toEqual([t0 + 5]);
  });

  it('requests during a run cause exactly one more run, at once after it', async () => {
    runMs = 20;
    const t0 = performance.now();
    coalescer.schedule(0);
    await vi.advanceTimersByTimeAsync(1);
    for (let i = 0; i < 5; i++) {
      coalescer.schedule();
      await vi.advanceTimersByTimeAsync(3);
    }
    await vi.advanceTimersByTimeAsync(100);
    expect(runs.length).toBe(2);
    expect(runs[1]).toBeGreaterThanOrEqual(t0 + 20);
    expect(runs[1]).toBeLessThanOrEqual(t0 + 21);
  });
});
