/**
 * The pipeline's state, a plain value each step takes and returns, and the pure decision of which
 * step a desired spec goes to next (table-tested). The dispatcher (pipeline.ts) holds the state
 * between calls and runs the step `decide` names.
 */
import type { FailureCause } from '@nodenet/api';
import type { AppliedCheckpoint, RejectedAttempt } from './checkpoint.js';
import { retriesOnItsOwn } from './failure-cause.js';

export interface PipelineState {
  /** The checkpoint was loaded (start-up ran). */
  started: boolean;
  /** The last good config on the host, as the checkpoint records it. */
  applied?: AppliedCheckpoint;
  /** The last attempt that was restored (rejected.json). */
  rejected?: RejectedAttempt;
  /** A restore failed: the host may be half-applied, so the next call restores first. */
  recoveryNeeded: boolean;
  /** The first-healthy hook (start-up taint removal) succeeded; it is not called again. */
  healthyOnce: boolean;
  /** This process compared its rendering of the applied spec with its predecessor's (upgrade.ts). */
  upgradeChecked?: boolean;
  /**
   * This binary's rendering of the applied spec failed its window and the previous one was put back
   * (upgrade.ts): the agent is not ready, drift repair keeps the previous rendering.
   */
  upgradeFailed?: { message: string; rendering: { frr: string | null; netlink?: unknown[] } };
}

export const INITIAL_STATE: PipelineState = { started: false, recoveryNeeded: false, healthyOnce: false };

/** What a step hands back to the dispatcher: the next state and what to answer. */
export interface Stepped<O> {
  state: PipelineState;
  outcome: O;
}

/** What reconcile does with a desired spec; pure, so the decision is table-tested. */
export type NextStep = 'recover-first' | 'resync' | 'keep-rejected' | 'apply';

export function nextStep(facts: {
  /** A restore failed earlier: the host may be half-applied. */
  recoveryNeeded: boolean;
  desiredHash: string;
  assignedAt?: string;
  appliedHash?: string;
  rejected?: { specHash: string; assignedAt?: string; failureCause?: FailureCause; interruptions?: number };
}): NextStep {
  if (facts.recoveryNeeded) return 'recover-first';
  if (facts.appliedHash === facts.desiredHash) return 'resync';
  // The same content under the same assignment failed already; the configurator's retry re-assigns.
  // An interrupted attempt (e.g. a rollback whose window a SIGTERM cut short) is tried again, bounded.
  if (
    facts.rejected?.specHash === facts.desiredHash &&
    facts.rejected.assignedAt === facts.assignedAt &&
    !retriesOnItsOwn(facts.rejected)
  )
    return 'keep-rejected';
  return 'apply';
}

/**
 * The step for a desired spec in `state`: `nextStep`, with an apply of content that was rejected
 * before (an interrupted attempt tried again) told apart, because it waits until the API server
 * answers (not in the middle of an outage).
 */
export type Step = NextStep | 'retry-interrupted';

export function decide(state: PipelineState, desired: { hash: string; assignedAt?: string }): Step {
  const step = nextStep({
    recoveryNeeded: state.recoveryNeeded,
    desiredHash: desired.hash,
    assignedAt: desired.assignedAt,
    appliedHash: state.applied?.specHash,
    rejected: state.rejected,
  });
  return step === 'apply' && state.rejected?.specHash === desired.hash ? 'retry-interrupted' : step;
}
