export * from './model.js';
export * from './errors.js';
export {
  allocateVrfTables,
  rememberedTables,
  checkUnderlayMtu,
  desiredModel,
  vxlanOverhead,
  type DesiredInput,
  type TableAllocationInput,
} from './desired.js';
export { specDeviceNames } from './device-names.js';
export { diff, KERNEL_PORT_DEFAULTS, recreateReason } from './diff.js';
export { holdL3Vnis, l3Vnis, type L3VniGate } from './l3vni.js';
export {
  assertNoConflicts,
  matchesExactly,
  resolveOwnership,
  type Ownership,
  type OwnershipInput,
} from './ownership.js';
export { readHost, type HostSnapshot } from './read.js';
export { changesSnapshot, type Notification } from './notification.js';
export { applyOperations, type ApplyContext } from './apply.js';
export { assertKernelSupport, missingKinds, probeKind, KERNEL_OPTION, type ProbedKind } from './support.js';
export {
  createNetlinkDriver,
  EMPTY_SPEC,
  type NetlinkApplyResult,
  type NetlinkDriver,
  type NetlinkDriverOptions,
  type NetlinkPlan,
  type NetlinkSpec,
} from './driver.js';
export { decodeLinkInfo, encodeBridgePort, encodeLinkInfo, toBuffer } from './codec.js';
