export {};
export * from './frr/index.js';
export * from './netlink/index.js';
export * from './errors.js';
export * from './checkpoint.js';
export * from './health/index.js';
export * from './status.js';
export * from './metrics.js';
export * from './fault.js';
export * from './pipeline.js';
export * from './confirm.js';
export * from './drivers.js';
export * from './l3vni-order.js';
export * from './options.js';
export * from './agent.js';
export { nextResyncMs, RESYNC_BACKOFF } from './resync-backoff.js';
export * from './bounded.js';
export * from './failure-cause.js';
export * from './shutdown.js';

// Internals the package's own tests exercise directly (pure logic, unit-tested).
export { writeFileDurably } from './durable-file.js';
export { decodeLinkInfo, encodeBridgePort, encodeLinkInfo, toBuffer } from './netlink/codec.js';
export * from './observed/index.js';
export { NodeObservation, type NodeObservationOptions } from './node-observation.js';
export {
  decideNodenetReady,
  nextNodeState,
  NodeConditionWriter,
  type ConditionDecision,
  type NodeConditionWriterOptions,
  type NodeState,
} from './node-condition.js';
