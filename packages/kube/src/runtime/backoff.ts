/**
 * Capped exponential backoff, the one rule behind every retry: status writes, watch restarts,
 * revision builds, node re-assignments. Pure; callers add jitter where many clients retry at once.
 */

export interface BackoffPolicy {
  /** Delay before the first retry. */
  initialMs: number;
  /** No delay is longer than this. */
  maxMs: number;
  /** Growth per retry (2: doubling). */
  factor: number;
}

/** Delay before retry number `attempt` (1-based): initialMs × factor^(attempt-1), at most maxMs. */
export const backoffDelay = (policy: BackoffPolicy, attempt: number): number =>
  Math.min(policy.maxMs, policy.initialMs * policy.factor ** Math.max(0, attempt - 1));
