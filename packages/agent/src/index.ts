export {};
export * from './frr/index.js';
export * from './netlink/index.js';
export * from './errors.js';
export * from './health/index.js';
export * from './status/status.js';
export * from './metrics.js';
export * from './apply/index.js';
export * from './run/options.js';
export * from './run/agent-loop.js';
export * from './bounded.js';
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
