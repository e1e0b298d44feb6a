/** What the leader election thread and the main thread share (leader-thread.ts, leader-worker.ts). */

/** Index in the shared BigInt64Array: 1 while the thread leads, else 0. */
export const LEADING = 0;
/** Index in the shared BigInt64Array: when the last successful renewal began (monotonicNs). */
export const RENEWED_AT = 1;
export const SHARED_SLOTS = 2;

/** CLOCK_MONOTONIC in ns: one clock for all threads of the process (performance.now() is per thread). */
export const monotonicNs = (): bigint => process.hrtime.bigint();

export type LeaderThreadMessage =
  | { type: 'started' }
  | { type: 'stopped'; reason: string }
  | { type: 'newLeader'; holder: string }
  | { type: 'error'; text: string }
  | { type: 'done'; released: boolean };
