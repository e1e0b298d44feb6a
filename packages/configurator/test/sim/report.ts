/** Readable failures: the violated invariant, the seed when there is one, and the timeline. */
import type { RunResult } from '@nodenet/testkit';

const TAIL = 80;

export function explain(name: string, r: RunResult, seed?: number): string {
  const v = r.violations[0];
  if (!v) return `${name}: all invariants hold`;
  const lines = r.timeline.length > TAIL ? ['…', ...r.timeline.slice(-TAIL)] : r.timeline;
  return [
    `${name}${seed !== undefined ? ` (seed ${seed}; replay with NODENET_SIM_SEED=${seed})` : ''}`,
    `invariant ${v.invariant} violated: ${v.message}`,
    'timeline:',
    ...lines.map((l) => `  ${l}`),
  ].join('\n');
}

/** Throws with the explanation when an invariant was violated. */
export function expectHolds(name: string, r: RunResult, seed?: number): void {
  if (r.violations.length > 0) throw new Error(explain(name, r, seed));
}
