/**
 * Invariant sanity: each invariant catches a deliberately broken planner rule (planner-adapter.ts
 * `Sabotage`), over the control histories (arbitrary.ts CONTROL) that today's planner passes
 * unbroken. Prints how many histories and how long it took to find; results are in README.md.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CONTROL,
  ROLLBACK_HISTORIES,
  historyArb,
  play,
  type GenOptions,
  type InvariantId,
  type Sabotage,
} from '@nodenet/testkit';

const CASES: { invariant: InvariantId; sabotage: Sabotage; rule: string }[] = [
  { invariant: 1, sabotage: 'ignoreFailures', rule: 'failures never invalidate (max-failures 1000)' },
  { invariant: 2, sabotage: 'ignorePause', rule: 'fleet and revision pause ignored' },
  { invariant: 3, sabotage: 'shortConfigTimeout', rule: 'config timeout 5 s (a slow agent fails)' },
  { invariant: 4, sabotage: 'skipLastNode', rule: 'the last node in start order is never moved' },
  { invariant: 5, sabotage: 'limitPlusOne', rule: 'one slot more than the update limit' },
];

/** Issue 35's rules, broken one at a time, caught by the full generator (it draws their histories). */
const RULES_35: { sabotage: Sabotage; rule: string; gen?: GenOptions }[] = [
  { sabotage: 'forgetOutages', rule: "a flapping node's NotReady stretches are not added up" },
  { sabotage: 'interruptedFree', rule: 'an Interrupted report never counts, even after a NotReady' },
  {
    sabotage: 'catchUpUncounted',
    rule: 'catch-up moves of a completed revision are not counted',
    // Catch-up needs a revision that completed before nodes join, are relabelled into the selector
    // or the selector widens: the full generator draws that too, rarely (not within 2,000).
    gen: { kinds: ['setInput', 'join', 'relabel', 'policy', 'deleteNodeConfig'] },
  },
];

describe("invariant sanity: issue 35's rules", () => {
  it.each(RULES_35)(
    'invariant 1 catches: $rule',
    ({ sabotage, rule, gen }) => {
      const started = performance.now();
      const out = fc.check(
        fc.property(historyArb(gen), (h) => {
          const r = play(h, { sabotage, stopAtFirst: false });
          return !r.violations.some((v) => v.invariant === 1);
        }),
        { numRuns: 2000, seed: 23, endOnFailure: true },
      );
      const ms = Math.round(performance.now() - started);
      console.log(`issue 35, broken rule "${rule}": found after ${out.numRuns} histories, ${ms} ms`);
      expect(out.failed).toBe(true);
    },
    600_000,
  );
});

describe('invariant sanity, issue 39: the capped bound of RolloutPolicy spec.disruptive', () => {
  it('invariant 5 catches: spec.disruptive ignored (a disruptive revision rolls under the normal limit)', () => {
    const started = performance.now();
    const out = fc.check(
      fc.property(historyArb(), (h) => {
        const r = play(h, { sabotage: 'ignoreDisruptive', stopAtFirst: false });
        return !r.violations.some((v) => v.invariant === 5);
      }),
      { numRuns: 2000, seed: 23, endOnFailure: true },
    );
    const ms = Math.round(performance.now() - started);
    console.log(`issue 39, spec.disruptive ignored: found after ${out.numRuns} histories, ${ms} ms`);
    expect(out.failed).toBe(true);
  }, 600_000);
});

describe('invariant sanity: each invariant catches a broken rule', () => {
  it.each(CASES)(
    'invariant $invariant catches: $rule',
    ({ invariant, sabotage, rule }) => {
      const started = performance.now();
      const out = fc.check(
        fc.property(historyArb(CONTROL), (h) => {
          const r = play(h, { sabotage, stopAtFirst: false });
          return !r.violations.some((v) => v.invariant === invariant);
        }),
        { numRuns: 2000, seed: 23, endOnFailure: true },
      );
      const ms = Math.round(performance.now() - started);
      console.log(
        `invariant ${invariant}, broken rule "${rule}": found after ${out.numRuns} histories, ${ms} ms`,
      );
      expect(out.failed).toBe(true);
    },
    600_000,
  );
});

describe('invariant sanity, issue 35: the rollback rule broken is caught by the named histories', () => {
  // The generator of issue 23 draws no input added mid-history nor a history without a completed
  // revision, so this rule is checked on the named histories (the extended generator is issue 35's
  // part B).
  it('invariant 6 catches: fallback to the last completed revision (or the empty config), rollback there', () => {
    const started = performance.now();
    const caught = ROLLBACK_HISTORIES.filter((h) =>
      play(h, { sabotage: 'completedFallback', stopAtFirst: false }).violations.some(
        (v) => v.invariant === 6,
      ),
    ).map((h) => h.name);
    const ms = Math.round(performance.now() - started);
    console.log(
      `invariant 6, broken rule "completed fallback": caught by ${caught.length} of ${ROLLBACK_HISTORIES.length} named histories in ${ms} ms: ${caught.join('; ')}`,
    );
    expect(caught.length).toBeGreaterThanOrEqual(2);
  });

  it('invariant 1 catches: a node leaving an invalid revision rolled back to the fallback, not to what it ran', () => {
    const started = performance.now();
    const caught = ROLLBACK_HISTORIES.filter((h) =>
      play(h, { sabotage: 'rollbackToFallback', stopAtFirst: false }).violations.some(
        (v) => v.invariant === 1,
      ),
    ).map((h) => h.name);
    const ms = Math.round(performance.now() - started);
    console.log(
      `invariant 1, broken rule "rollback to the fallback": caught by ${caught.length} of ${ROLLBACK_HISTORIES.length} named histories in ${ms} ms: ${caught.join('; ')}`,
    );
    expect(caught.length).toBeGreaterThanOrEqual(1);
  });
});
