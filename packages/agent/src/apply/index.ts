/**
 * The apply pipeline, used from outside this folder only through this file (a lint rule keeps it
 * so): the dispatcher and its contract, the checkpoint store, the confirm window, the host drivers
 * adapter with the L3 VNI bring-up order, failure causes, fault points and the resync period.
 */
export * from './contract.js';
export { Pipeline } from './pipeline.js';
export { nextStep, type NextStep } from './decide.js';
export * from './checkpoint.js';
export {
  assessTick,
  confirmRound,
  CONFIRM_DEFAULTS,
  DEFAULT_CONFIRM,
  nextPause,
  runConfirmWindow,
  type ConfirmFailure,
  type ConfirmLoopDeps,
  type ConfirmOutcome,
  type ConfirmSettings,
  type ConfirmState,
  type ConfirmTick,
  type TickVerdict,
} from './confirm.js';
export { startHeartbeat } from './confirm-applied.js';
export { isQuietResync, nextResyncMs, RESYNC_BACKOFF } from './drift.js';
export * from './failure-cause.js';
export * from './fault.js';
export * from './host-drivers.js';
export * from './l3vni-order.js';
export type { StatusReport, StatusSink } from './report.js';
