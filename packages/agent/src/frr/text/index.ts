// text/: a configuration text as data: parse, difference, fast-path plan, facts, redaction (pure).
export {
  contextKey,
  describeChange,
  diffConfigs,
  isSkippedLine,
  opensTopLevelContext,
  parseConfig,
  type ConfigChange,
  type ConfigContext,
  type ConfigDiff,
  type ParsedConfig,
} from './config-text.js';
export { configFacts, type ConfigFacts } from './facts.js';
export { fastPathPlan, fastPathPlanOf, touchedMismatches, type FastPathPlan } from './fast-path.js';
export { REDACTED, redactPasswords } from './redact.js';
