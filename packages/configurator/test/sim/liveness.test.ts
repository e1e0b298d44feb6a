/**
 * Issue 40: the agents write no status between their reports; their liveness is a Lease renewal
 * (docs/agent-status.md, "Liveness"). Played on the real planner in the fleet simulator: a slow agent
 * that renews is not failed by a config timeout shorter than its apply, and one that goes silent is
 * failed within --config-timeout.
 */
import { describe, expect, it } from 'vitest';
import { LIVENESS_CONFIG_TIMEOUT_MS, LIVENESS_HISTORIES, play } from '@nodenet/testkit';
import { expectHolds } from './report.js';

/** Virtual seconds of the first timeline line that matches. */
const timeOf = (timeline: readonly string[], re: RegExp): number | undefined => {
  const line = timeline.find((l) => re.test(l));
  return line === undefined ? undefined : Number(/^t=([\d.]+)s/.exec(line)?.[1]);
};

describe('issue 40: agent liveness through the Lease, in the simulator', () => {
  it(LIVENESS_HISTORIES.slow.name, () => {
    const r = play(LIVENESS_HISTORIES.slow);
    expectHolds(LIVENESS_HISTORIES.slow.name, r);
    expect(r.timeline.filter((l) => l.includes('config timeout'))).toEqual([]);
    expect(r.revisions.map((x) => [x.number, x.invalid, x.completed])).toEqual([
      [1, false, true],
      [2, false, true],
    ]);
  });

  it(LIVENESS_HISTORIES.silent.name, () => {
    const r = play(LIVENESS_HISTORIES.silent);
    expectHolds(LIVENESS_HISTORIES.silent.name, r);
    const silentAt = timeOf(r.timeline, /agent n0 is now dead/);
    const failedAt = timeOf(r.timeline, /INVALIDATE rev 2: .*n0: config timeout/);
    expect(silentAt).toBeDefined();
    expect(failedAt, r.timeline.join('\n')).toBeDefined();
    // Caught after it went silent, and within --config-timeout of that (its last renewal was before).
    expect(failedAt! - silentAt!).toBeGreaterThan(0);
    expect(failedAt! - silentAt!).toBeLessThanOrEqual(LIVENESS_CONFIG_TIMEOUT_MS / 1000);
  });
});
