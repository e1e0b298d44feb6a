/**
 * The RolloutPolicy knobs in force during a history (issue 35: a person changes them mid-history),
 * and the largest update limit and --max-failures ever in force: the bound the ledger checks
 * (docs/rollout.md, "What nodenet guarantees", precondition 3).
 */
import type { PolicyKnobs } from './planner-adapter.js';

/** A change of the knobs; `nodeSelector: null` removes the selector (every node a target). */
export type KnobChange = Partial<
  Pick<PolicyKnobs, 'limit' | 'limitPercent' | 'maxFailures' | 'notReadyTimeoutMs' | 'minSuccessTimeMs'>
> & { nodeSelector?: Record<string, string> | null };

export class KnobsInForce {
  knobs: PolicyKnobs;
  /** Bumped on every change (the world's policy cache key). */
  version = 0;
  /** The largest update limit (as a node count) and --max-failures in force so far. */
  maxLimit = 1;
  maxFailures: number;

  constructor(initial: PolicyKnobs) {
    this.knobs = { ...initial };
    this.maxFailures = initial.maxFailures;
  }

  change(c: KnobChange): void {
    const { nodeSelector, ...rest } = c;
    const next: PolicyKnobs = { ...this.knobs, ...rest };
    // A count replaces a percentage and the other way round.
    if (c.limit !== undefined) delete next.limitPercent;
    if (nodeSelector === null) delete next.nodeSelector;
    else if (nodeSelector !== undefined) next.nodeSelector = nodeSelector;
    this.knobs = next;
    this.version++;
    this.maxFailures = Math.max(this.maxFailures, next.maxFailures);
  }

  /** The update limit as a node count for this many target nodes (a percentage rounded up, at least 1). */
  limitFor(targets: number): number {
    const p = this.knobs.limitPercent;
    return p === undefined ? this.knobs.limit : Math.max(1, Math.ceil((p * targets) / 100));
  }

  /** Records the limit in force now (targets: the selected nodes). */
  inForce(targets: number): void {
    this.maxLimit = Math.max(this.maxLimit, this.limitFor(targets));
  }

  /** Whether a node with these labels is a target of the selector in force. */
  selects(labels: Record<string, string>): boolean {
    return Object.entries(this.knobs.nodeSelector ?? {}).every(([k, v]) => labels[k] === v);
  }
}
