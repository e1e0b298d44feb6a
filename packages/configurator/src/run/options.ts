/**
 * Command-line options of `nodenet-configurator`: the commander program (with the `--help` text)
 * and the pure validation that turns raw option values into `ConfiguratorOptions`. A bad value
 * fails with an `OptionError` naming the flag and the value.
 */
import { OptionError } from '@nodenet/api';
import {
  formatDuration,
  parseDuration,
  parseListenAddress,
  parseLogLevel,
  type ListenAddress,
} from '@nodenet/kube';
import {
  DEFAULT_POLICY,
  TIMEOUT_LOWER_BOUNDS_MS,
  atLeast,
  parseNonNegativeInt,
  parsePositiveInt,
  knobCeilings,
  parseUpdateLimit,
  type Policy,
} from '../policy/policy.js';
import { parseSelectorFlag } from './selector-flag.js';
import { siteUnderlay, type RawUnderlayOptions, type SiteUnderlay } from './underlay-flags.js';
import { DEFAULT_BUDGET, DEFAULT_BUILD_TIMING, type BuildTiming, type SizeBudget } from '../build/index.js';

export interface LeaderElectionOptions {
  /** Namespace and name of the Lease. */
  namespace: string;
  name: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

export interface ConfiguratorOptions {
  kubeconfig?: string;
  policy: Policy;
  leaderElection: LeaderElectionOptions;
  /** Leader election identity; undefined: hostname + random suffix, chosen at start. */
  identity?: string;
  metricsAddr: ListenAddress;
  healthAddr: ListenAddress;
  logLevel: string;
  coalesceMs: number;
  eventsNamespace: string;
  /** The one namespace of BGP password Secrets, the agents' (issue 41); default DEFAULTS.passwordNamespace. */
  passwordNamespace?: string;
  /** Namespace of the agents' liveness Leases (docs/agent-status.md, "Liveness"). */
  agentLeaseNamespace?: string;
  /** Deadline of the shutdown on SIGTERM; default DEFAULT_SHUTDOWN_TIMEOUT_MS. */
  shutdownTimeoutMs?: number;
  /** When revisions are built (build-schedule.ts); defaults when absent. */
  buildTiming?: Partial<BuildTiming>;
  /** What a revision must stay within (budget.ts); DEFAULT_BUDGET when absent. */
  budget?: SizeBudget;
  /** The site's underlay settings for the peering guards (issue #37); the node addresses come from Nodes. */
  underlay?: SiteUnderlay;
}

/**
 * Each flag's default, written once: `--help` shows it and commander fills it in. Where a typed
 * default exists (DEFAULT_POLICY, DEFAULT_BUILD_TIMING, DEFAULT_BUDGET) the flag's text is made from it.
 */
export const DEFAULTS = {
  updateLimit: '1',
  maxFailures: String(DEFAULT_POLICY.maxFailures),
  preconfigTimeout: formatDuration(DEFAULT_POLICY.preconfigTimeoutMs),
  configTimeout: formatDuration(DEFAULT_POLICY.configTimeoutMs),
  notReadyTimeout: formatDuration(DEFAULT_POLICY.notReadyTimeoutMs),
  minSuccessTime: formatDuration(DEFAULT_POLICY.minSuccessTimeMs),
  nodeSelector: '',
  waveBarrier: false,
  revisionHistoryLimit: String(DEFAULT_POLICY.revisionHistoryLimit),
  buildQuietPeriod: formatDuration(DEFAULT_BUILD_TIMING.quietMs),
  buildMaxDelay: formatDuration(DEFAULT_BUILD_TIMING.maxDelayMs),
  maxRevisionBytes: String(DEFAULT_BUDGET.maxConfigBytes),
  maxFrrLines: String(DEFAULT_BUDGET.maxFrrLines),
  leaderElectionNamespace: 'nodenet-system',
  leaderElectionId: 'nodenet-configurator',
  leaderElectionLeaseDuration: '15s',
  leaderElectionRenewDeadline: '10s',
  leaderElectionRetryPeriod: '2s',
  metricsAddr: ':8080',
  healthAddr: ':8081',
  logLevel: 'info',
  coalesceWindow: '50ms',
  eventsNamespace: 'default',
  passwordNamespace: 'nodenet-bgp-passwords',
  agentLeaseNamespace: 'nodenet-system',
  // Well inside Kubernetes' default 30 s termination grace period.
  shutdownTimeout: '10s',
} satisfies Omit<RawOptions, 'kubeconfig' | 'waveLabel' | 'identity' | keyof RawUnderlayOptions>;

/** Deadline of the shutdown on SIGTERM when none is given. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = parseDuration('--shutdown-timeout', DEFAULTS.shutdownTimeout);

export interface RawOptions extends RawUnderlayOptions {
  kubeconfig?: string;
  updateLimit: string;
  maxFailures: string;
  updateLimitCeiling?: string;
  maxFailuresCeiling?: string;
  preconfigTimeout: string;
  configTimeout: string;
  notReadyTimeout: string;
  minSuccessTime: string;
  nodeSelector: string;
  waveLabel?: string;
  waveBarrier?: boolean;
  revisionHistoryLimit: string;
  buildQuietPeriod: string;
  buildMaxDelay: string;
  maxRevisionBytes: string;
  maxFrrLines: string;
  leaderElectionNamespace: string;
  leaderElectionId: string;
  leaderElectionLeaseDuration: string;
  leaderElectionRenewDeadline: string;
  leaderElectionRetryPeriod: string;
  metricsAddr: string;
  healthAddr: string;
  logLevel: string;
  coalesceWindow: string;
  eventsNamespace: string;
  passwordNamespace: string;
  agentLeaseNamespace: string;
  identity?: string;
  shutdownTimeout: string;
}

export function policyFromOptions(raw: RawOptions): Policy {
  const selector = parseSelectorFlag(raw.nodeSelector);
  return {
    ...DEFAULT_POLICY,
    updateLimit: parseUpdateLimit(raw.updateLimit),
    maxFailures: parseNonNegativeInt(raw.maxFailures, '--max-failures'),
    preconfigTimeoutMs: bounded(raw.preconfigTimeout, '--preconfig-timeout', 'preconfigTimeoutMs'),
    configTimeoutMs: bounded(raw.configTimeout, '--config-timeout', 'configTimeoutMs'),
    notReadyTimeoutMs: bounded(raw.notReadyTimeout, '--not-ready-timeout', 'notReadyTimeoutMs'),
    minSuccessTimeMs: bounded(raw.minSuccessTime, '--min-success-time', 'minSuccessTimeMs'),
    revisionHistoryLimit: parsePositiveInt(raw.revisionHistoryLimit, '--revision-history-limit'),
    ...(selector ? { nodeSelector: selector } : {}),
    ...(raw.waveLabel ? { waveLabel: raw.waveLabel } : {}),
    ...(raw.waveBarrier === true ? { waveBarrier: true } : {}),
    ...knobCeilings(raw),
  };
}

const bounded = (text: string, flag: string, key: keyof typeof TIMEOUT_LOWER_BOUNDS_MS): number =>
  atLeast(parseDuration(flag, text), TIMEOUT_LOWER_BOUNDS_MS[key], flag, text);

export function resolveOptions(raw: RawOptions): ConfiguratorOptions {
  const nonEmpty = (flag: string, value: string): string => {
    if (value.trim() === '') throw new OptionError(flag, value, 'must not be empty');
    return value;
  };
  const logLevel = parseLogLevel('--log-level', raw.logLevel);
  const leaderElection: LeaderElectionOptions = {
    namespace: nonEmpty('--leader-election-namespace', raw.leaderElectionNamespace),
    name: nonEmpty('--leader-election-id', raw.leaderElectionId),
    leaseDurationMs: parseDuration('--leader-election-lease-duration', raw.leaderElectionLeaseDuration),
    renewDeadlineMs: parseDuration('--leader-election-renew-deadline', raw.leaderElectionRenewDeadline),
    retryPeriodMs: parseDuration('--leader-election-retry-period', raw.leaderElectionRetryPeriod),
  };
  // A leader that may renew as late as the others may take over would let two instances act at once.
  if (leaderElection.renewDeadlineMs >= leaderElection.leaseDurationMs)
    throw new OptionError(
      '--leader-election-renew-deadline',
      raw.leaderElectionRenewDeadline,
      `must be shorter than --leader-election-lease-duration ${raw.leaderElectionLeaseDuration}`,
    );
  if (leaderElection.retryPeriodMs <= 0 || leaderElection.retryPeriodMs >= leaderElection.renewDeadlineMs)
    throw new OptionError(
      '--leader-election-retry-period',
      raw.leaderElectionRetryPeriod,
      `must be above 0 and shorter than --leader-election-renew-deadline ${raw.leaderElectionRenewDeadline}`,
    );
  return {
    ...(raw.kubeconfig !== undefined ? { kubeconfig: raw.kubeconfig } : {}),
    policy: policyFromOptions(raw),
    leaderElection,
    ...(raw.identity !== undefined ? { identity: nonEmpty('--identity', raw.identity) } : {}),
    metricsAddr: parseListenAddress('--metrics-addr', raw.metricsAddr),
    healthAddr: parseListenAddress('--health-addr', raw.healthAddr),
    logLevel,
    coalesceMs: parseDuration('--coalesce-window', raw.coalesceWindow),
    eventsNamespace: nonEmpty('--events-namespace', raw.eventsNamespace),
    passwordNamespace: nonEmpty('--password-namespace', raw.passwordNamespace),
    agentLeaseNamespace: nonEmpty('--agent-lease-namespace', raw.agentLeaseNamespace),
    shutdownTimeoutMs: positiveDuration('--shutdown-timeout', raw.shutdownTimeout),
    buildTiming: buildTimingFromOptions(raw),
    budget: {
      maxConfigBytes: parsePositiveInt(raw.maxRevisionBytes, '--max-revision-bytes'),
      maxFrrLines: parsePositiveInt(raw.maxFrrLines, '--max-frr-lines'),
    },
    underlay: siteUnderlay(raw),
  };
}

function positiveDuration(flag: string, value: string): number {
  const ms = parseDuration(flag, value);
  if (ms <= 0) throw new OptionError(flag, value, 'must be above 0');
  return ms;
}

function buildTimingFromOptions(raw: RawOptions): BuildTiming {
  const quietMs = parseDuration('--build-quiet-period', raw.buildQuietPeriod);
  const maxDelayMs = parseDuration('--build-max-delay', raw.buildMaxDelay);
  if (maxDelayMs < quietMs)
    throw new OptionError(
      '--build-max-delay',
      raw.buildMaxDelay,
      `must be at least --build-quiet-period ${raw.buildQuietPeriod}`,
    );
  if (maxDelayMs > 600_000)
    throw new OptionError('--build-max-delay', raw.buildMaxDelay, 'must be at most 10m');
  return { ...DEFAULT_BUILD_TIMING, quietMs, maxDelayMs };
}
