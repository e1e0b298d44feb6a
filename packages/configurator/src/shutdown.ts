/**
 * Bounded shutdown. On SIGTERM the configurator stops acting, releases its Lease and closes its
 * endpoints, in that order, all within one deadline measured on this process's monotonic clock,
 * whatever the API server does (gone, refusing, or accepting connections and never answering).
 * A step that does not finish in the time left is abandoned and named; a step that may only run
 * after a clean stop of the ones before it (releasing the Lease: another instance may start
 * leading at once, so this one must no longer write) is skipped when one of them was abandoned —
 * the Lease then expires on its own, as after a crash. The process exits non-zero when anything
 * was abandoned or skipped, so the cut-short work shows in the pod's last state.
 */
import { performance } from 'node:perf_hooks';

/** Default shutdown deadline: well inside Kubernetes' default 30 s termination grace period. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;

export interface ShutdownStep {
  name: string;
  run: () => Promise<void> | void;
  /** Run only when every earlier step finished; skipped otherwise. */
  onlyAfterCleanStop?: boolean;
}

export interface ShutdownResult {
  /** Every step finished within the deadline. */
  complete: boolean;
  /** Steps abandoned at the deadline, that failed, or that were skipped, each with why. */
  unfinished: string[];
  elapsedMs: number;
}

/** Resolves true when `p` settles within `ms`, false when the time runs out (or it rejects: see `failed`). */
function within(p: Promise<void>, ms: number): Promise<'done' | 'timeout' | { error: unknown }> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('timeout'), Math.max(0, ms));
    p.then(
      () => {
        clearTimeout(timer);
        resolve('done');
      },
      (error: unknown) => {
        clearTimeout(timer);
        resolve({ error });
      },
    );
  });
}

/** Runs `steps` in order within `deadlineMs` of now. */
export async function shutdownWithin(
  steps: ShutdownStep[],
  deadlineMs: number,
  now: () => number = () => performance.now(),
): Promise<ShutdownResult> {
  const start = now();
  const unfinished: string[] = [];
  // Set once a step ran into the deadline (a timer may fire a little before the clock reads it).
  let expired = false;
  for (const step of steps) {
    if (step.onlyAfterCleanStop && unfinished.length > 0) {
      unfinished.push(`${step.name} (skipped: an earlier step did not finish)`);
      continue;
    }
    const left = start + deadlineMs - now();
    if (expired || left <= 0) {
      unfinished.push(`${step.name} (no time left)`);
      continue;
    }
    const outcome = await within(Promise.resolve().then(step.run), left);
    if (outcome === 'timeout') {
      expired = true;
      unfinished.push(`${step.name} (still running at the deadline)`);
    } else if (outcome !== 'done')
      unfinished.push(
        `${step.name} (failed: ${outcome.error instanceof Error ? outcome.error.message : String(outcome.error)})`,
      );
  }
  return { complete: unfinished.length === 0, unfinished, elapsedMs: Math.round(now() - start) };
}
