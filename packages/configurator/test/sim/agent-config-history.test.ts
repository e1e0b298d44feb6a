/**
 * Issue #36 in the fleet simulator: the FRR base template is one more input (`c`), played on
 * the real planner. The bound holds and the bad template ends rolled back everywhere.
 */
import { describe, expect, it } from 'vitest';
import { AGENT_CONFIG_HISTORIES, play } from '@nodenet/testkit';
import { expectHolds } from './report.js';

describe('the template is an input like any other', () => {
  it.each(AGENT_CONFIG_HISTORIES.map((h) => [h.name, h] as const))('%s', (name, h) => {
    const r = play(h);
    expectHolds(name, r);
    for (const [bad, reached] of r.reach) expect(reached, `${bad} reached`).toBeLessThanOrEqual(r.bound);
    const withBad = r.revisions.filter((x) => x.content.c === 2);
    expect(withBad.length).toBeGreaterThan(0);
    expect(withBad.every((x) => x.invalid)).toBe(true);
    // The last valid revision has the previous template.
    expect(r.revisions.filter((x) => !x.invalid).at(-1)?.content).toMatchObject({ c: 1 });
  });
});
