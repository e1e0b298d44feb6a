/** Event aggregation and the per-object rate limit (pure, time injected). */
import { describe, expect, it } from 'vitest';
import { EventCorrelator } from '@nodenet/kube';

const key = (object: string, message = 'drift repaired on vx.10'): { object: string; aggregate: string } => ({
  object,
  aggregate: `${object}|Warning|DriftRepaired|${message}`,
});

describe('EventCorrelator', () => {
  it('creates the first report, then patches the same Event with a growing count', () => {
    const c = new EventCorrelator();
    const k = key('NodeConfig//node-1/u1');
    expect(c.decide(k, 0)).toEqual({ action: 'create' });
    c.created(k, 'node-1.abc', 0);
    expect(c.decide(k, 1000)).toEqual({ action: 'patch', name: 'node-1.abc', count: 2, firstSeen: 0 });
    expect(c.decide(k, 2000)).toEqual({ action: 'patch', name: 'node-1.abc', count: 3, firstSeen: 0 });
  });

  it('keeps different messages, reasons and objects apart', () => {
    const c = new EventCorrelator();
    c.created(key('a'), 'a.1', 0);
    expect(c.decide(key('a', 'other message'), 1)).toEqual({ action: 'create' });
    expect(c.decide(key('b'), 1)).toEqual({ action: 'create' });
  });

  it('rate-limits one object after its burst, refills one token per interval, and leaves other objects alone', () => {
    const c = new EventCorrelator({ burst: 3, refillMs: 1000 });
    const decisions = [0, 1, 2, 3].map((i) => c.decide(key('noisy', `m${i}`), 0).action);
    expect(decisions).toEqual(['create', 'create', 'create', 'drop']);
    expect(c.decide(key('quiet'), 0).action).toBe('create');
    expect(c.decide(key('noisy', 'm9'), 999).action).toBe('drop');
    expect(c.decide(key('noisy', 'm9'), 2000).action).toBe('create');
  });

  it('starts a new Event after the old one was forgotten (deleted or expired)', () => {
    const c = new EventCorrelator();
    const k = key('x');
    c.created(k, 'x.1', 0);
    c.forget(k);
    expect(c.decide(k, 5)).toEqual({ action: 'create' });
  });

  it('forgets the oldest keys beyond its bound', () => {
    const c = new EventCorrelator({ maxKeys: 2 });
    c.created(key('a'), 'a.1', 0);
    c.created(key('b'), 'b.1', 0);
    c.created(key('c'), 'c.1', 0);
    expect(c.decide(key('a'), 1)).toEqual({ action: 'create' });
    expect(c.decide(key('c'), 1)).toMatchObject({ action: 'patch', name: 'c.1' });
  });
});
