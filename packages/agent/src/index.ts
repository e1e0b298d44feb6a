export {};
export * from './frr/index.js';
export * from './netlink/index.js';
export * from './errors.js';
export * from './health/index.js';
export * from './status/status.js';
export { AgentLease, type AgentLeaseOptions, type LeaseOwner } from './status/lease.js';
export * from './metrics.js';
export * from './apply/index.js';
export * from './run/options.js';
export * from './run/agent-loop.js';
export * from './bounded.js';
export * from './run/shutdown.js';

// Internals the package's own tests exercise directly (pure logic, unit-tested).
export { writeFileDurably } from './durable-file.js';
export {
  PasswordBook,
  PasswordUnavailableError,
  PASSWORDS_FILE,
  type SecretReader,
} from './secrets/password-book.js';
export { decodeLinkInfo, encodeBridgePort, encodeLinkInfo, toBuffer } from './netlink/index.js';
export * from './observed/index.js';
export { NodeObservation, type NodeObservationOptions } from './status/node-observation.js';
export {
  decideNodenetReady,
  nextNodeState,
  NodeConditionWriter,
  type ConditionDecision,
  type NodeConditionWriterOptions,
  type NodeState,
} from './status/node-condition.js';
// The host plan (`kubectl nodenet diff --host` imports it through its own entry, src/host-plan/index.ts).
export {
  atLeast,
  countsText,
  DISRUPTION_CLASSES,
  fleetHostPlan,
  frrChangeClass,
  frrStepText,
  hostPlan,
  hostPlanLines,
  netlinkStepText,
  operationClass,
  PREVIEW_SETTINGS,
  SECTIONS_TEMPLATE_TEXT,
  sectionsTemplate,
  worstClass,
  type ClassCounts,
  type DisruptionClass,
  type FleetPlan,
  type FleetPlanInput,
  type FrrApplyPath,
  type FrrStep,
  type HostPlan,
  type HostPlanInput,
  type HostPlanSettings,
  type HostSpec,
  type NetlinkAction,
  type NetlinkStep,
  type NodeSpecPair,
  type PlanGroup,
  type ProtectedAddress,
} from './host-plan/index.js';
