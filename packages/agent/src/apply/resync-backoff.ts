/**
 * The resync period adapts: a resync that finds the host as applied (no netlink operation, FRR not
 * reloaded, no error) doubles the wait before the next one, up to RESYNC_BACKOFF × the configured
 * period; anything else (a repair, an error, a new revision applied) goes back to the configured
 * period. An idle node re-checks less often, and one that drifted is watched closely. Pure.
 */
import type { ReconcileOutcome } from './contract.js';

/** The longest wait, as a multiple of `--resync-period`. */
export const RESYNC_BACKOFF = 4;

export function nextResyncMs(currentMs: number, baseMs: number, outcome: ReconcileOutcome): number {
  const quiet =
    outcome.kind === 'unchanged' && !outcome.error && outcome.driftOperations === 0 && !outcome.frrChanged;
  return quiet ? Math.min(currentMs * 2, baseMs * RESYNC_BACKOFF) : baseMs;
}
