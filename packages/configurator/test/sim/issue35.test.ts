/**
 * Issue 35, part B: named histories of the failures real fleets have (histories.ts ISSUE_35_B),
 * played on the real planner: each keeps every invariant and the bound.
 */
import { describe, expect, it } from 'vitest';
import { ISSUE_35_B, play } from '@nodenet/testkit';
import { expectHolds } from './report.js';

describe('issue 35 (B): the bound holds against flapping, Interrupted, catch-up and follow-up edits', () => {
  it.each(ISSUE_35_B.map((h) => [h.name, h] as const))('%s', (name, h) => {
    const r = play(h);
    expectHolds(name, r);
    for (const [bad, reached] of r.reach) expect(reached, `${bad} reached`).toBeLessThanOrEqual(r.bound);
    // A good history: nothing ends invalid.
    if (h.bad.length === 0) expect(r.revisions.filter((x) => x.invalid).map((x) => x.number)).toEqual([]);
    // The bad change is stopped: every revision carrying it ends invalid.
    for (const b of h.bad)
      for (const x of r.revisions.filter((x) => x.content[b.input] === b.value))
        expect(x.invalid, `revision ${x.number} carrying ${b.input}=${b.value}`).toBe(true);
  });
});
