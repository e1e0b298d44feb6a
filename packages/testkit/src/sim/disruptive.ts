/**
 * RolloutPolicy spec.disruptive in the simulator (issue 39): each revision gets the disruption class
 * the configurator records in `status.disruption` (drawn from its hash; one in six is never known,
 * which the planner counts as disruptive), and after every pass the ledger checks the capped bound:
 * while the desired revision is the knob's `from` or worse, the nodes in flight on it are at most
 * the knob's update limit (the largest in force so far, as a node count).
 */
import { DISRUPTION_CLASSES, type DisruptionClass, type DisruptiveRollout } from '@nodenet/api';
import { fmt, type Ledger } from './ledger.js';
import type { LedgerView } from './ledger-view.js';
import { disruptiveLimitFor, type Policy, type Store } from './planner-adapter.js';

/** What the check reads of the world after a pass. */
interface CappedWorld {
  policy: Policy;
  desired: { name: string; number: number } | undefined;
  store: Store;
  ledger: Ledger;
}

/** The knob a history draws (0: none). */
export const DRAWN_DISRUPTIVE: readonly (DisruptiveRollout | undefined)[] = [
  undefined,
  {},
  { from: 'refilter', waveBarrier: false },
  { from: 'l2-interruption', updateLimit: '50%' },
];

const rank = (c: DisruptionClass | undefined): number =>
  c === undefined ? DISRUPTION_CLASSES.length : DISRUPTION_CLASSES.indexOf(c);

export class CappedBound {
  /** The largest update limit of the knob in force so far (a node count); 0: never set. */
  max = 0;

  /** After a pass: invariant 5, then the capped bound (a violation of invariant 5 too). */
  afterPass(w: CappedWorld, s: { targets: number; inFlight: string[]; view: LedgerView }): void {
    w.ledger.inFlight(s.inFlight, s.view);
    const d = w.desired;
    const worst = d ? w.store.revisions.get(d.name)?.status?.disruption?.worst : undefined;
    const problem = this.check(w.policy, d ? { number: d.number, worst } : undefined, {
      targets: s.targets,
      inFlight: s.inFlight,
      numberOf: (n) => w.ledger.lastAssign.get(n)?.number,
    });
    if (problem) w.ledger.fail(5, s.view.t, `t=${fmt(s.view.t)} ${problem}`);
  }

  /**
   * After a pass: `inFlight` are the nodes with an unanswered forward assignment, `numberOf` the
   * revision number each was handed. A message when more are in flight on the desired revision
   * than the cap allows.
   */
  check(
    policy: Policy,
    desired: { number: number; worst: DisruptionClass | undefined } | undefined,
    s: { targets: number; inFlight: readonly string[]; numberOf: (node: string) => number | undefined },
  ): string | undefined {
    const d = policy.disruptive;
    if (!d || !desired || rank(desired.worst) < rank(d.from)) return undefined;
    this.max = Math.max(this.max, disruptiveLimitFor(d, s.targets));
    const on = s.inFlight.filter((n) => s.numberOf(n) === desired.number);
    if (on.length <= this.max) return undefined;
    return `${on.length} nodes in progress at once on revision ${desired.number} (${desired.worst ?? 'class not known'}: spec.disruptive.from=${d.from}): ${on.join(', ')} > capped limit ${this.max}`;
  }
}
