export {};
export * from './frr/index.js';
export * from './netlink/index.js';
export * from './errors.js';
export * from './apply/checkpoint.js';
export * from './health/index.js';
export * from './status/status.js';
export * from './metrics.js';
export * from './apply/fault.js';
export * from './apply/pipeline.js';
export * from './apply/confirm.js';
export * from './apply/host-drivers.js';
export * from './apply/l3vni-order.js';
export * from './run/options.js';
export * from './run/agent-loop.js';
export { nextResyncMs, RESYNC_BACKOFF } from './apply/resync-backoff.js';
export * from './bounded.js';
export * from './apply/failure-cause.js';
export * from './run/shutdown.js';

// Internals the package's own tests exercise directly (pure logic, unit-tested).
export { writeFileDurably } from './durable-file.js';
export { decodeLinkInfo, encodeBridgePort, encodeLinkInfo, toBuffer } from './netlink/codec.js';
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
