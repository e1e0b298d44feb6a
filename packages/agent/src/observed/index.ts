export {
  buildObserved,
  OBSERVED_COMMANDS,
  ObservedParseError,
  parseBgpSessions,
  parseFrrVersion,
  parseVnis,
  sinceOf,
  vniSummary,
  type ShowOutputs,
} from './parse.js';
export {
  decideObservedWrite,
  observedPatch,
  sameObserved,
  SINCE_TOLERANCE_MS,
  stabilizeSince,
  type ObservedWriteDecision,
} from './decide.js';
export { ObservedReporter, type ObservedReporterOptions } from './reporter.js';
export { frrObservedReader } from './read.js';
