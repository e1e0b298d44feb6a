export { FrrDriver, type FrrApplyResult, type FrrDriverOptions, type FrrSyncResult } from './change/driver.js';
export { rejectedLines } from './read/exec.js';
export { configFileHash, restoreFileBefore } from './change/file-restore.js';
export { splitEchoed } from './read/show.js';
export { FrrApplyError, FrrRenderError, FrrTemplateError, type FrrApplyStep } from './errors.js';
export { resolveInstance, type FrrInstanceOptions, type ResolvedInstance } from './read/instance.js';
export { buildModel, type FrrModel, type FrrNodeSettings } from './render/model.js';
export { renderFrrConfig } from './render/render.js';
export { redactPasswords, REDACTED } from './text/redact.js';
export type { PasswordLookup } from './render/peering-model.js';
export { DENY_ALL_SEQ, prefixListName, routeMapName, SECTION_NAMES, type SectionName } from './render/sections.js';
export { sessionStates, type FrrStatus, type SessionRef, type SessionState } from './read/status.js';
export { parseTemplate, VALUE_NAMES, type FrrTemplate } from './render/template.js';
export { parseVrfVni, queryL3Vnis, type FrrL3Vni } from './read/vni.js';
export {
  configDrift,
  describeDrift,
  DriftCheck,
  isEmptyDrift,
  parseReloadTest,
  type ConfigDrift,
} from './read/drift.js';
export { diffConfigs, parseConfig, type ConfigContext, type ParsedConfig } from './text/config-text.js';
export { fastPathPlan, touchedMismatches, type FastPathPlan } from './text/fast-path.js';
export { perDaemonJson, readBackFor, type ReadBack } from './read/read-back.js';
export { configFacts, type ConfigFacts } from './text/facts.js';
export { staleBgpInstances, vrfPreparation } from './change/prepare.js';
export { routeMapRemovals } from './change/reload-guard.js';
export {
  parseBgpVrfs,
  parseEvpnVniTypes,
  l3VniByVrf,
  runtimeMismatches,
  type RuntimeState,
} from './read/verify.js';
export { askDaemon, daemonConfigs, splitVtyAnswers, VtySession, vtySocketDir } from './read/vty-socket.js';
export { applyOverSockets, type SocketApply } from './change/vty-apply.js';
export { daemonSteps, showDaemons, type DaemonStep } from './change/vty-daemons.js';
export { editTopLevel, type TopLevelEdit } from './change/config-edit.js';
