// read/: asking FRR: vtysh and the daemons' sockets, show commands, read-back, drift, runtime state.
export {
  DriftCheck,
  configDrift,
  describeDrift,
  isEmptyDrift,
  parseReloadTest,
  type ConfigDrift,
} from './drift.js';
export { cleanMessage, failed, frrMessage, rejectedLines, run, type RunResult } from './exec.js';
export {
  reloadArgv,
  resolveInstance,
  type FrrInstanceOptions,
  type ResolvedInstance,
  vtyshArgv,
} from './instance.js';
export { perDaemonJson, readBackFor, type ReadBack } from './read-back.js';
export { readRuntimeState } from './runtime.js';
export { showMany, splitEchoed, type ShowAnswer } from './show.js';
export { readStatus, sessionStates, type FrrStatus, type SessionRef, type SessionState } from './status.js';
export {
  l3VniByVrf,
  parseBgpVrfs,
  parseEvpnVniTypes,
  runtimeMismatches,
  type RuntimeState,
} from './verify.js';
export { parseVrfVni, queryL3Vnis, type FrrL3Vni } from './vni.js';
export { VtySession, askDaemon, daemonConfigs, splitVtyAnswers, vtySocketDir } from './vty-socket.js';
