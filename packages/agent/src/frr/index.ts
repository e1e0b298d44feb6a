export { FrrDriver, type FrrApplyResult, type FrrDriverOptions, type FrrSyncResult } from './driver.js';
export { rejectedLines } from './exec.js';
export { configFileHash, restoreFileBefore } from './file-restore.js';
export { splitEchoed } from './show.js';
export { FrrApplyError, FrrRenderError, FrrTemplateError, type FrrApplyStep } from './errors.js';
export { resolveInstance, type FrrInstanceOptions, type ResolvedInstance } from './instance.js';
export { buildModel, type FrrModel, type FrrNodeSettings } from './model.js';
export { renderFrrConfig } from './render.js';
export { redactPasswords, REDACTED } from './redact.js';
export type { PasswordLookup } from './peering-model.js';
export { DENY_ALL_SEQ, prefixListName, routeMapName, SECTION_NAMES, type SectionName } from './sections.js';
export { sessionStates, type FrrStatus, type SessionRef, type SessionState } from './status.js';
export { parseTemplate, VALUE_NAMES, type FrrTemplate } from './template.js';
export { parseVrfVni, queryL3Vnis, type FrrL3Vni } from './vni.js';
export {
  configDrift,
  describeDrift,
  DriftCheck,
  isEmptyDrift,
  parseReloadTest,
  type ConfigDrift,
} from './drift.js';
export { diffConfigs, parseConfig, type ConfigContext, type ParsedConfig } from './config-text.js';
export { fastPathPlan, touchedMismatches, type FastPathPlan } from './fast-path.js';
export { perDaemonJson, readBackFor, type ReadBack } from './read-back.js';
export { configFacts, type ConfigFacts } from './facts.js';
export { staleBgpInstances, vrfPreparation } from './prepare.js';
export { routeMapRemovals } from './reload-guard.js';
export {
  parseBgpVrfs,
  parseEvpnVniTypes,
  l3VniByVrf,
  runtimeMismatches,
  type RuntimeState,
} from './verify.js';
export { askDaemon, daemonConfigs, splitVtyAnswers, VtySession, vtySocketDir } from './vty-socket.js';
export { applyOverSockets, type SocketApply } from './vty-apply.js';
export { daemonSteps, showDaemons, type DaemonStep } from './vty-daemons.js';
export { editTopLevel, type TopLevelEdit } from './config-edit.js';
