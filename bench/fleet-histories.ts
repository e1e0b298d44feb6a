/**
 * Blast radius of every history the fleet simulator (packages/testkit/src/sim) can play, on
 * the planner as built: per bad change, the most nodes it harms that were handed a revision carrying
 * it (per introduction), against the bound `--update-limit` + `--max-failures`. Then the worst
 * ratio over a sample of random histories. Virtual time: the figures do not depend on the machine.
 */
import fc from 'fast-check';
import { ALL_NAMED, BASELINE, historyArb, play, type History } from '@nodenet/testkit';

export interface BlastRow {
  history: string;
  reached: string;
  verdict: string;
}

function rowsOf(h: History): BlastRow[] {
  const r = play(h, { stopAtFirst: false });
  const invariants = [...new Set(r.violations.map((v) => v.invariant))].sort();
  const broken = invariants.length ? `; invariants broken: ${invariants.join(', ')}` : '';
  if (r.reach.size === 0)
    return [{ history: h.name, reached: 'no bad change reached a node it harms', verdict: `ok${broken}` }];
  return [...r.reach].map(([bad, n]) => ({
    history: h.name,
    reached: `${bad}: ${n} node(s), bound ${r.bound}`,
    verdict: `${n <= r.bound ? 'ok' : 'OVER'}${broken}`,
  }));
}

/** The named histories' blast radius, and the worst of `samples` random ones (seeded). */
export function blastRadiusOfHistories(samples = 200, seed = 23): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of [...ALL_NAMED, ...BASELINE])
    for (const row of rowsOf(h))
      out[`${row.history} (${row.reached.split(':')[0]})`] =
        `${row.reached.split(': ')[1] ?? row.reached} -> ${row.verdict}`;
  let over = 0;
  let worst = 0;
  let worstAt = '';
  const started = performance.now();
  for (const h of fc.sample(historyArb(), { numRuns: samples, seed })) {
    const r = play(h, { stopAtFirst: false });
    for (const [bad, n] of r.reach) {
      if (n > r.bound) over++;
      if (n / r.bound > worst) {
        worst = n / r.bound;
        worstAt = `${bad} reached ${n}, bound ${r.bound}`;
      }
    }
  }
  out[`random histories (seed ${seed})`] =
    `${samples} played in ${((performance.now() - started) / 1000).toFixed(1)} s; bad changes over the bound: ${over}; worst ${worst.toFixed(2)}x (${worstAt || 'none'})`;
  return out;
}
