/**
 * Which Event write a repeated report becomes (pure, time injected), in the manner of client-go's
 * EventCorrelator: the same report about the same object (source, object, type, reason, message)
 * is one Event whose `count` grows and whose `lastTimestamp` moves, not a new object each time; and
 * each object has a token bucket (client-go's spam filter: a burst of 25, then one every 5 minutes),
 * so a condition that lasts (drift repaired on every resync, an agent that never reports) cannot
 * flood the API server. Both maps are bounded: the oldest keys are forgotten first.
 */

export interface EventKey {
  /** Identifies the involved object (kind/namespace/name/uid). */
  object: string;
  /** Identifies the report: object + type + reason + message. */
  aggregate: string;
}

export type EventDecision =
  | { action: 'create' }
  | { action: 'patch'; name: string; count: number; firstSeen: number }
  | { action: 'drop'; reason: 'rate-limited' };

export interface EventCorrelatorOptions {
  /** Events an object may get at once (default 25, as client-go). */
  burst?: number;
  /** Milliseconds for one more token (default 300,000: one every 5 minutes, as client-go). */
  refillMs?: number;
  /** Keys remembered (default 4,096); the oldest are forgotten first. */
  maxKeys?: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class EventCorrelator {
  private readonly burst: number;
  private readonly refillMs: number;
  private readonly maxKeys: number;
  private readonly buckets = new Map<string, Bucket>();
  private readonly seen = new Map<string, { name: string; count: number; firstSeen: number }>();

  constructor(opts: EventCorrelatorOptions = {}) {
    this.burst = opts.burst ?? 25;
    this.refillMs = opts.refillMs ?? 300_000;
    this.maxKeys = opts.maxKeys ?? 4096;
  }

  /** Decides what to do with a report at monotonic time `now` (ms). */
  decide(key: EventKey, now: number): EventDecision {
    const bucket = this.buckets.get(key.object) ?? { tokens: this.burst, at: now };
    const refilled = Math.min(this.burst, bucket.tokens + Math.max(0, now - bucket.at) / this.refillMs);
    if (refilled < 1) {
      remember(this.buckets, key.object, { tokens: refilled, at: now }, this.maxKeys);
      return { action: 'drop', reason: 'rate-limited' };
    }
    remember(this.buckets, key.object, { tokens: refilled - 1, at: now }, this.maxKeys);
    const earlier = this.seen.get(key.aggregate);
    if (!earlier) return { action: 'create' };
    const next = { ...earlier, count: earlier.count + 1 };
    remember(this.seen, key.aggregate, next, this.maxKeys);
    return { action: 'patch', name: next.name, count: next.count, firstSeen: next.firstSeen };
  }

  /** The Event a `create` decision wrote, so that repeats patch it. */
  created(key: EventKey, name: string, now: number): void {
    remember(this.seen, key.aggregate, { name, count: 1, firstSeen: now }, this.maxKeys);
  }

  /** The Event is gone (deleted or expired by the API server): the next repeat creates a new one. */
  forget(key: EventKey): void {
    this.seen.delete(key.aggregate);
  }
}

/** Map insertion order is recency: re-inserting moves a key last; the first key is the oldest. */
function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value as string);
}
