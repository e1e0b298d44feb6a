import { describe, expect, it } from 'vitest';
import { BuildSchedule } from '@nodenet/configurator';

const timing = { quietMs: 2000, maxDelayMs: 20_000, backoffMs: 500, maxBackoffMs: 30_000 };
const input = (name: string, generation: number, type = 'update') => ({
  type,
  object: { kind: 'VRFRouteConfiguration', metadata: { name, generation } },
});

/** A schedule that has built once at t=0 and owes nothing. */
function settled(): BuildSchedule {
  const s = new BuildSchedule(timing);
  s.finished(s.started(), true, 0);
  return s;
}

describe('BuildSchedule', () => {
  it('owes a build at start and builds at once', () => {
    expect(new BuildSchedule(timing).decide(0, false)).toEqual({ run: true });
  });

  it('waits for the quiet period after the last input event of a burst', () => {
    const s = settled();
    s.inputEvent(input('a', 1, 'add'), 1000);
    s.inputEvent(input('b', 1, 'add'), 1050);
    expect(s.decide(1100, false)).toEqual({ run: false, waitMs: 1950 });
    s.inputEvent(input('c', 1, 'add'), 2000);
    expect(s.decide(3999, false)).toEqual({ run: false, waitMs: 1 });
    expect(s.decide(4000, false)).toEqual({ run: true });
  });

  it('builds a steady trickle after the longest delay', () => {
    const s = settled();
    for (let t = 1000; t <= 21_000; t += 1000) s.inputEvent(input(`n${t}`, 1, 'add'), t);
    expect(s.decide(21_000, false)).toEqual({ run: true });
  });

  it('owes no build for a status write (same generation), and builds a revision change at once', () => {
    const s = settled();
    s.inputEvent(input('a', 1, 'add'), 0);
    s.finished(s.started(), true, 2000);
    s.inputEvent(input('a', 1), 2100); // our own status write
    expect(s.decide(2100, false)).toEqual({ run: false });
    s.changed();
    expect(s.decide(2200, false)).toEqual({ run: true });
  });

  it('owes nothing after a complete run, but builds while the inputs differ from every revision', () => {
    const s = settled();
    expect(s.decide(5000, false)).toEqual({ run: false });
    expect(s.decide(5000, true)).toEqual({ run: true });
  });

  it('retries a failed run with a doubling, bounded backoff, and forgets it after a success', () => {
    const s = settled();
    s.changed();
    const delays: number[] = [];
    let t = 0;
    for (let i = 0; i < 10; i++) {
      const d = s.finished(s.started(), false, t);
      delays.push(d ?? -1);
      expect(s.decide(t + (d ?? 0) - 1, false).run).toBe(false);
      t += d ?? 0;
      expect(s.decide(t, false)).toEqual({ run: true });
    }
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000, 30_000]);
    expect(s.finished(s.started(), true, t)).toBeUndefined();
    s.changed();
    expect(s.decide(t, false)).toEqual({ run: true });
    expect(s.finished(s.started(), false, t)).toBe(500);
  });

  it('an input event during a run keeps the build owed', () => {
    const s = settled();
    s.changed();
    const token = s.started();
    s.inputEvent(input('late', 1, 'add'), 100);
    s.finished(token, true, 200);
    expect(s.decide(200, false).run).toBe(false); // waiting for quiet
    expect(s.decide(2100, false)).toEqual({ run: true });
  });

  it('orders inputs by when their current generation was first seen', () => {
    const s = settled();
    s.inputEvent(input('a', 1, 'add'), 0);
    s.inputEvent(input('b', 1, 'add'), 0);
    s.inputEvent(input('a', 2), 0);
    s.inputEvent(input('b', 1), 0); // status only: not newer
    const r = (name: string) => s.recency({ kind: 'VRFRouteConfiguration', metadata: { name } });
    expect(r('a')).toBeGreaterThan(r('b'));
    expect(r('unknown')).toBe(0);
  });
});
