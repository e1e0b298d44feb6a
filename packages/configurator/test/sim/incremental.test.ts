/**
 * The incremental planner (issue 26) equals the reference plan() on every pass of random histories:
 * the simulator plans with IncrementalPlanner and compares each pass's plan with plan()'s on the same
 * input (planner-adapter.ts checkedIncremental). The invariants are the property test's business;
 * here every history of the full generator counts, whatever its outcome.
 * NODENET_SIM_INCREMENTAL_RUNS sets the number of histories (default 1,000).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IncrementalPlanner } from '@nodenet/configurator';
import { ALL_NAMED, BASELINE, describeHistory, historyArb, play, type History } from '@nodenet/testkit';

const RUNS = Number(process.env.NODENET_SIM_INCREMENTAL_RUNS ?? 1000);
const SEED = process.env.NODENET_SIM_SEED !== undefined ? Number(process.env.NODENET_SIM_SEED) : undefined;

/** Verdicts reused over all histories: the comparison is about something. */
const reused = { count: 0 };

function samePlans(h: History): void {
  const planner = new IncrementalPlanner();
  try {
    play(h, { stopAtFirst: false, incremental: planner });
    reused.count += planner.memo.counts.reused;
  } catch (err) {
    throw new Error(`${String(err).slice(0, 4000)}\nhistory: ${describeHistory(h)}`);
  }
}

describe('incremental planner', () => {
  it('equals plan() on every pass of the named histories', () => {
    const named = [...ALL_NAMED, ...BASELINE];
    for (const h of named) samePlans(h);
    expect(reused.count).toBeGreaterThan(0);
  });

  it(`equals plan() on every pass of ${RUNS} random histories`, async () => {
    // Asynchronous only to yield between histories: a worker that never yields for minutes misses
    // vitest's own RPC deadline.
    const yieldThen = async (h: History): Promise<void> => {
      await new Promise((resolve) => setImmediate(resolve));
      samePlans(h);
    };
    await fc.assert(fc.asyncProperty(historyArb(), yieldThen), {
      numRuns: RUNS,
      ...(SEED !== undefined ? { seed: SEED } : {}),
    });
  }, 900_000);
});
