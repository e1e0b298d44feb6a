// change/: writing FRR: the fast path over vty sockets, frr-reload.py, its guard, files, the driver.
export { editTopLevel, type TopLevelEdit } from './config-edit.js';
export { FrrDriver, type FrrApplyResult, type FrrDriverOptions, type FrrSyncResult } from './driver.js';
export { configFileHash, restoreFileBefore } from './file-restore.js';
export { readIfExists } from './files.js';
export { staleBgpInstances, vrfPreparation } from './prepare.js';
export { routeMapRemovals } from './reload-guard.js';
export { applyOverSockets, type SocketApply } from './vty-apply.js';
export { daemonSteps, showDaemons, type DaemonStep } from './vty-daemons.js';
