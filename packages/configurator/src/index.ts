export * from './policy/policy.js';
export * from './run/selector-flag.js';
export * from './rollout/index.js';
export * from './build/index.js';
export * from './run/metrics.js';
export * from './controller.js';
export * from './nodes/node-specs.js';
export * from './run/readiness.js';
export * from './policy/fleet-policy.js';
export * from './run/options.js';
export * from './run/flags.js';
export * from './run/run-configurator.js';

// Internals the package's own tests exercise directly (pure logic, unit-tested).
export { type ExecContext, controlEvents, executePlan } from './execute.js';
export { RowLabelGate, ROW_LABEL_SETTLE_MS } from './nodes/row-label-gate.js';
export { nodeConfigFor } from './nodes/node-config.js';
export { NODE_CONFIG_PAGE, nodeConfigSummary } from './nodes/node-config-summary.js';
export { IN_FLIGHT_SPEC_BYTES, assignConcurrency } from './nodes/write-budget.js';
export { STATUS_COUNT_INTERVAL_MS, StatusPace, decideStatusWrite } from './pace/status-pace.js';
export { ASSIGNED_EVENT_WINDOW_MS, AssignedEvents, assignedMessage } from './pace/assigned-events.js';
export { WritePace } from './pace/write-pace.js';
export * from './nodes/refused-assignments.js';
