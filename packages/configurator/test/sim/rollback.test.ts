/**
 * Issue 35, part A: a rollback takes back only the failed change (invariant 6), a node that never
 * answered never counts, and every input a revision changed is a suspect (no cap at 50). Each
 * history failed on the planner before issue 35 (packages/testkit/src/sim/README.md).
 */
import { describe, expect, it } from 'vitest';
import { ROLLBACK_HISTORIES, play } from '@nodenet/testkit';
import { expectHolds } from './report.js';

describe('issue 35: a rollback takes back only the failed change; a node that never answered never counts', () => {
  it.each(ROLLBACK_HISTORIES.map((h) => [h.name, h] as const))('%s', (name, h) => {
    const r = play(h);
    expectHolds(name, r);
    for (const [bad, reached] of r.reach) expect(reached, `${bad} reached`).toBeLessThanOrEqual(r.bound);
    // A failed change stays rolled back: no second revision carries it (none of these retries it).
    for (const b of h.bad)
      expect(
        r.revisions.filter((x) => x.content[b.input] === b.value).map((x) => x.number),
        `revisions carrying ${b.input}=${b.value}`,
      ).toHaveLength(1);
    if (h.bad.length === 0) {
      const allowed = new Set(h.mayEndInvalid ?? []);
      expect(r.revisions.filter((x) => x.invalid && !allowed.has(x.number)).map((x) => x.number)).toEqual([]);
    }
  });
});
