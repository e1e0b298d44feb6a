export * from './policy.js';
export * from './selector-flag.js';
export * from './rollout/index.js';
export * from './revisions.js';
export * from './metrics.js';
export * from './controller.js';
export * from './node-specs.js';
export * from './readiness.js';
export * from './fleet-policy.js';
export * from './options.js';
export * from './run.js';

// Internals the package's own tests exercise directly (pure logic, unit-tested).
export { type ExecContext, controlEvents, executePlan } from './execute.js';
export { RowLabelGate, ROW_LABEL_SETTLE_MS } from './row-label-gate.js';
export { nodeConfigFor } from './node-config.js';
export { nodeConfigSummary } from './node-config-summary.js';
export { IN_FLIGHT_SPEC_BYTES, assignConcurrency } from './write-budget.js';
export { appliedCondition, carried } from './outcome.js';
export * from './budget.js';
export * from './build-schedule.js';
export { writePeeringStatuses, type PeeringStatusContext } from './peering-status.js';
