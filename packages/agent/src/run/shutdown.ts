/**
 * Bounded shutdown of the agent (#25 item 5). SIGTERM ends a confirm window at once and restores the
 * host (host work: kernel and FRR, no API server involved), then says so to the API server. The
 * whole runs within one deadline on this process's monotonic clock, and every step that needs the
 * API server has its own short bound on top, so an API server that is gone, refuses, or accepts and
 * never answers costs at most those bounds. A step that does not finish in its time is abandoned and
 * named; the process then exits non-zero so the cut-short work shows in the pod's last state.
 */

/**
 * Default deadline: the worst case of finishing an apply step and restoring (FRR check and reload,
 * 60 s each, twice, plus health checks), inside deploy/agent.yaml's 300 s grace period.
 */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 280_000;
/** Bound on each step that talks to the API server (a status write, the observed-state loop). */
export const API_STEP_TIMEOUT_MS = 3_000;

export interface ShutdownStep {
  name: string;
  run: () => Promise<unknown> | void;
  /** This step's own bound (default: what is left of the deadline). */
  maxMs?: number;
}

export interface ShutdownResult {
  complete: boolean;
  /** Each step abandoned or failed, with why. */
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
