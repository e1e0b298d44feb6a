/**
 * When the row labels of a NodeConfig (`kubectl get nc`, rollout/rows.ts) are written. An agent
 * reports `provisioning` and then `provisioned` a moment later; writing the row on each report made
 * two label writes per node and rollout besides its one assignment write, and those writes sat in
 * the pass between a slot being freed and the next assignment. A row that differs is written once it
 * has differed for `settleMs` (on the configurator's monotonic clock), with what it should say then:
 * short-lived states are skipped, a long one (a confirm window of minutes) is shown, and a row is
 * never more than `settleMs` behind. A row that matches again, or whose node was assigned (that
 * write sets the row) or collected, is forgotten.
 */
import type { Action } from '../rollout/index.js';

export type RowLabelAction = Extract<Action, { type: 'labelNodeConfig' }>;

/** How long a row may lag behind the agent's report. */
export const ROW_LABEL_SETTLE_MS = 1000;

export class RowLabelGate {
  /** Per NodeConfig whose row differs: when this configurator first saw it differ. */
  private since = new Map<string, number>();
  /** When the first row still waiting is due (monotonic ms). */
  private firstDue: number | undefined;

  constructor(private readonly settleMs = ROW_LABEL_SETTLE_MS) {}

  /** The label writes of this pass that are due at `mono`; the others wait (see nextDueInMs). */
  due(actions: readonly RowLabelAction[], mono: number): RowLabelAction[] {
    const next = new Map<string, number>();
    const out: RowLabelAction[] = [];
    this.firstDue = undefined;
    for (const a of actions) {
      // A row written but still differing (the write failed) stays due: the retry writes it at once.
      const t = this.since.get(a.name) ?? mono;
      next.set(a.name, t);
      if (mono - t >= this.settleMs) out.push(a);
      else this.firstDue = Math.min(this.firstDue ?? Infinity, t + this.settleMs);
    }
    // Rows not in this pass match (or their node moved or went): forgotten, so the map stays
    // bounded by the NodeConfigs whose row differs.
    this.since = next;
    return out;
  }

  /** How long until the first waiting row is due (undefined: none waits). */
  nextDueInMs(mono: number): number | undefined {
    return this.firstDue === undefined ? undefined : Math.max(0, this.firstDue - mono);
  }
}
