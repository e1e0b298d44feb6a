/** What the simulator plays (a history: nodes, policy, bad changes, scheduled actions) and what it returns. */
import type { Violation } from './ledger.js';
import type { PolicyKnobs } from './planner-adapter.js';
import type { BadChange, Scheduled } from './types.js';

export interface NodeSpec {
  name: string;
  labels?: Record<string, string>;
}

export interface History {
  name: string;
  nodes: number | NodeSpec[];
  policy: PolicyKnobs;
  /** Input values of revision 1, complete on every node before the history starts. */
  inputs: Record<string, number>;
  /** Inputs of revision 1 with a nodeSelector: the zone whose nodes (label `zone`) carry them. */
  inputZones?: Record<string, string>;
  bad: BadChange[];
  /** At virtual ms after the start (revision 1 complete). */
  actions: Scheduled[];
  /** The agent's confirm window and restore after a cut-off (default TIMING.restore, 90 s). */
  restoreMs?: number;
  /** After the last action: faults stop, pauses are lifted, convergence is checked after this long. */
  settleMs?: number;
  /** Check convergence (invariant 4) at the end; default true. */
  converge?: boolean;
  /** Something (an autoscaler, a MachineHealthCheck) deletes Nodes NotReady for this long. */
  deleteNotReadyAfterMs?: number;
  /**
   * Revisions a good history may still end invalid: a fault indistinguishable from a cut-off (a node
   * NotReady right after taking a revision) rightly fails the revision it took; its retry must not.
   */
  mayEndInvalid?: number[];
}

export interface RevisionSummary {
  number: number;
  content: Record<string, number>;
  invalid: boolean;
  completed: boolean;
  phase?: string;
  failed: number;
  degraded: number;
}

export interface RunResult {
  violations: Violation[];
  timeline: string[];
  /** Per bad change: the most nodes it reached in one introduction. */
  reach: Map<string, number>;
  revisions: RevisionSummary[];
  bound: number;
  passes: number;
}
