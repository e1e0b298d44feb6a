/**
 * A desired revision that waits only for unavailable nodes (pure): every other target is on it (or
 * failed on it) and none is in progress or queued. It is not complete: such a node takes it forward,
 * counted, when it answers, so a change that fails there is still caught (docs/rollout.md; the
 * simulator's "the rack returns" history). But its conditions say so (reason below), and
 * `status --watch` and the inputs' `Applied` end on it instead of reading "rolling out" forever.
 */

/** Condition reason (Progressing, Complete, Finished) of a revision that waits only for unavailable nodes. */
export const WAITING_FOR_UNAVAILABLE = 'WaitingForUnavailableNodes';

/** The condition message when only unavailable targets (`skipped`) are left, else undefined. */
export function waitingForSkipped(
  c: { complete: boolean; ongoing: number; queued: number; incomplete: number; skipped: readonly string[] },
  summary: string,
): string | undefined {
  const n = c.skipped.length;
  if (c.complete || c.ongoing > 0 || c.queued > 0 || n === 0 || c.incomplete !== n) return undefined;
  const names = c.skipped.slice(0, 10).join(', ') + (n > 10 ? ` and ${n - 10} more` : '');
  return `${summary}; every available node is on it; waiting for ${n} unavailable node(s), each catches up when its agent answers: ${names}`;
}
