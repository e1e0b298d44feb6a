/**
 * Two more kinds of history for the extended generator (issue 35, after seed 35 found a follow-up
 * write escaping the hold):
 * - a bad first revision: the bad change's input does not exist before (or no input does), so
 *   the first revision carrying it has nothing that ran without it to fall back to;
 * - follow-up writes while a bad change is in flight: the same bad value written again (the same
 *   content, a new generation), for every node or one zone, or the input deleted and re-created
 *   with it, 0-200 s after the bad write (before, around and after its invalidation).
 */
import fc from 'fast-check';
import type { History } from './history.js';
import type { BadChange, Scheduled, WorldAction } from './types.js';

export interface DrawnExtras {
  /** 0: the bad input is new (revision 1 lacks it); 1: no input exists before; else: none. */
  firstBad: number;
  /** Seconds after the bad write, and what the follow-up is (pick). */
  followUps: { after: number; pick: number }[];
  /** Which bad write the follow-ups follow (modulo their count). */
  which: number;
}

export const extrasArb: fc.Arbitrary<DrawnExtras> = fc.record({
  firstBad: fc.nat(5),
  followUps: fc.array(fc.record({ after: fc.integer({ min: 0, max: 200 }), pick: fc.nat(7) }), {
    maxLength: 3,
  }),
  which: fc.nat(3),
});

type SetInput = Extract<WorldAction, { kind: 'setInput' }>;

const badWrites = (
  actions: readonly Scheduled[],
  bad: readonly BadChange[],
): { at: number; action: SetInput }[] =>
  actions.flatMap(({ at, action }) =>
    action.kind === 'setInput' && bad.some((b) => b.input === action.input && b.value === action.value)
      ? [{ at, action }]
      : [],
  );

/** A same-content follow-up of `w` at `at` ms: kept zone, every node, zone z1, or deleted and re-created 1 s later. */
function followUp(w: SetInput, at: number, pick: number): Scheduled[] {
  const again = { kind: 'setInput' as const, input: w.input, value: w.value };
  if (pick < 3) return [{ at, action: again }];
  if (pick < 5) return [{ at, action: { ...again, zone: null } }];
  if (pick < 7) return [{ at, action: { ...again, zone: 'z1' } }];
  return [
    { at, action: { kind: 'deleteInput', input: w.input } },
    { at: at + 1000, action: again },
  ];
}

/** The history with its bad first revision and follow-up writes, as drawn. */
export function withExtras(h: History, x: DrawnExtras): History {
  const first = h.bad[0];
  let { inputs, actions } = h;
  let zones = h.inputZones;
  if (first && x.firstBad <= 1) {
    const kept = (k: string): boolean => x.firstBad === 0 && k !== first.input;
    inputs = Object.fromEntries(Object.entries(inputs).filter(([k]) => kept(k)));
    zones = zones && Object.fromEntries(Object.entries(zones).filter(([k]) => kept(k)));
    actions = [{ at: 0, action: { kind: 'setInput', input: first.input, value: first.value } }, ...actions];
  }
  const writes = badWrites(actions, h.bad);
  const w = writes[x.which % Math.max(1, writes.length)];
  if (w) {
    const more = x.followUps.flatMap((f) => followUp(w.action, w.at + f.after * 1000, f.pick));
    actions = [...actions, ...more].sort((a, b) => a.at - b.at);
  }
  const { inputZones: _, ...rest } = h;
  return {
    ...rest,
    inputs,
    actions,
    ...(zones && Object.keys(zones).length > 0 ? { inputZones: zones } : {}),
  };
}
