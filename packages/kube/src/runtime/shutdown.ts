/**
 * Bounded shutdown, the same for every binary. On SIGTERM the steps run in order, all within one
 * deadline on this process's monotonic clock, whatever the API server does (gone, refusing, or
 * accepting connections and never answering); a step that talks to the API server may have a
 * shorter bound of its own. A step that does not finish in its time is abandoned and named; a step
 * that may only run after a clean stop of the ones before it (releasing a leader Lease: another
 * instance may start leading at once, so this one must no longer write) is skipped when one of
 * them did not finish. The caller exits non-zero when anything was cut short, so it shows in the
 * pod's last state.
 */
import { performance } from 'node:perf_hooks';

export interface ShutdownStep {
  name: string;
  run: () => Promise<unknown> | void;
  /** This step's own bound (default: what is left of the deadline). */
  maxMs?: number;
  /** Run only when every earlier step finished; skipped otherwise. */
  onlyAfterCleanStop?: boolean;
}

export interface ShutdownResult {
  /** Every step finished within its bound and the deadline. */
  complete: boolean;
  /** Steps abandoned, failed or skipped, each with why. */
  unfinished: string[];
  elapsedMs: number;
}

type Outcome = 'done' | 'timeout' | { error: unknown };

function within(p: Promise<unknown>, ms: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('timeout'), Math.max(0, ms));
    p.then(
      () => resolve('done'),
      (error: unknown) => resolve({ error }),
    ).finally(() => clearTimeout(timer));
  });
}

/** Runs `steps` in order, each within its bound and all within `deadlineMs` of now. */
export async function shutdownWithin(
  steps: readonly ShutdownStep[],
  deadlineMs: number,
  now: () => number = () => performance.now(),
): Promise<ShutdownResult> {
  const start = now();
  const unfinished: string[] = [];
  let deadlinePassed = false;
  for (const step of steps) {
    if (step.onlyAfterCleanStop === true && unfinished.length > 0) {
      unfinished.push(`${step.name} (skipped: an earlier step did not finish)`);
      continue;
    }
    const left = start + deadlineMs - now();
    if (deadlinePassed || left <= 0) {
      unfinished.push(`${step.name} (no time left)`);
      continue;
    }
    const bound = Math.min(left, step.maxMs ?? left);
    const outcome = await within(Promise.resolve().then(step.run), bound);
    if (outcome === 'timeout') {
      // Timers and performance.now() may differ by a millisecond: a step cut at the overall
      // deadline ends the shutdown's time, whatever the clock says now.
      deadlinePassed = bound === left;
      unfinished.push(`${step.name} (still running after ${Math.round(bound)} ms, abandoned)`);
    } else if (outcome !== 'done')
      unfinished.push(
        `${step.name} (failed: ${outcome.error instanceof Error ? outcome.error.message : String(outcome.error)})`,
      );
  }
  return { complete: unfinished.length === 0, unfinished, elapsedMs: Math.round(now() - start) };
}
