/**
 * The fleet simulator (README.md): the real pure planner in a deterministic world of simulated
 * kubelets, agents and operators, on a virtual clock. The property tests and bench/fleet-histories.ts
 * play histories through it; the vitest reporting stays beside the tests.
 */
export { play } from './play.js';
export type { History, NodeSpec, RevisionSummary, RunResult } from './history.js';
export {
  ALL_NAMED,
  BASELINE,
  DEMO_STORY,
  FALSE_INVALIDATIONS,
  ISSUE_35_B,
  ISSUE_35_FOUND,
  ROLLBACK_HISTORIES,
  TABLE_HISTORIES,
} from './histories.js';
export { AGENT_CONFIG_HISTORIES } from './agent-config-histories.js';
export { LIVENESS_CONFIG_TIMEOUT_MS, LIVENESS_HISTORIES } from './histories-liveness.js';
export { CONTROL, describeHistory, historyArb, type GenOptions } from './arbitrary.js';
export type { InvariantId, Violation } from './ledger.js';
export { refusedKnobs, type PolicyKnobs } from './planner-adapter.js';
export type { Sabotage } from './planner-pass.js';
