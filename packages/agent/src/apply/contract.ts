/**
 * The apply pipeline's contract (see pipeline.ts): the boundaries it is given (host drivers, health,
 * clock), what it is asked and what it answers, and the reasons it reports. What a reconcile does
 * with a desired spec is decided in decide.ts.
 */
import type pino from 'pino';
import { shortHash, type NodeConfigSpec, type NodeConfigStatus } from '@nodenet/api';
import type { CheckpointStore } from './checkpoint.js';
import { describeCause } from '../errors.js';
import type { ConfirmFailure, ConfirmSettings } from './confirm.js';
import type { FailureKind } from './failure-cause.js';
import type { FaultHook } from './fault.js';
import type { CheckResult, HealthVerdict } from '../health/index.js';
import type { AgentMetrics } from '../metrics.js';
import type { StatusSink } from './report.js';

// ------------------------------------------------------------------ boundaries

/** Kernel side of the host: devices, addresses, VRF tables (docs/host-devices.md). */
export interface HostNetlink {
  /**
   * Makes the managed devices match `spec` exactly (create, change, delete), as one diff against
   * the host. Idempotent: applying the same spec twice does nothing the second time. Returns how
   * many kernel operations it performed (0 = the host already matched; >0 on a resync = drift).
   */
  apply(spec: NodeConfigSpec): Promise<{ operations: number; rendering?: unknown[] }>;
  /** Removes every device the agent manages (restore target when there is no checkpoint). */
  removeAll(): Promise<{ operations: number }>;
  /**
   * Removes the managed devices `spec` does not have, and nothing else: what a change made after
   * `spec` added. Needs the spec alone (no VTEP interface, no agent settings), so a restore whose
   * `apply` was refused still takes the change's new devices back. Returns their names.
   */
  removeAdded(spec: NodeConfigSpec): Promise<{ removed: string[] }>;
  /** The managed devices `spec` renders to with this binary, sorted by name (reads the host, changes nothing). */
  rendering?(spec: NodeConfigSpec): Promise<unknown[]>;
  /** Makes the managed devices match a rendering (a predecessor's, from the checkpoint): an upgrade's restore. */
  applyRendering?(devices: unknown[]): Promise<{ operations: number }>;
}

/** FRR side: frr.conf rendered from the spec, checked and reloaded. */
export interface HostFrr {
  /**
   * Renders frr.conf for `spec`, checks it (`vtysh -C`), reloads FRR when it differs from the running
   * config. `changed` is false when nothing had to be reloaded. On a failed reload the driver puts
   * the previous file back before it rejects. `repair: true` (used when restoring) reloads even when
   * the file already matches, because the running FRR may not after a failed apply.
   */
  apply(spec: NodeConfigSpec, options?: { repair?: boolean }): Promise<{ changed: boolean }>;
  /**
   * Drift repair: compares FRR's running config (not the file) with the one rendered for `spec` and
   * reloads when they differ, so a change made by hand through vtysh is undone. `drift` says what
   * differed, for the log and the DriftRepaired event.
   */
  sync(spec: NodeConfigSpec): Promise<{ changed: boolean; drift?: string }>;
  /**
   * Reloads the base template alone: no nodenet-generated sections. Like `apply` with `repair`, it
   * reloads even when the file already matches (the running FRR may not, after a failed apply).
   */
  removeAll(): Promise<{ changed: boolean }>;
  /** sha256 of the managed frr.conf now; undefined when there is none (kept in pending.json). */
  fileHash(): Promise<string | undefined>;
  /**
   * Makes FRR run the file whose sha256 is `before` (frr.conf when an attempt began) without
   * rendering anything: the part of a restore that still works when the agent cannot render the
   * restored spec (a template vtysh refuses). 'untouched': frr.conf is still that file;
   * 'restored': the file the last apply replaced was, and is back and reloaded. Throws otherwise.
   */
  restoreFile(before: string): Promise<'untouched' | 'restored'>;
  /**
   * Reads what `spec` names outside the NodeConfig (BGP password Secrets, checked against the
   * revision's hashes) before anything touches the host; throws naming the Secret when it cannot.
   * Absent: nothing to read.
   */
  prepare?(spec: NodeConfigSpec): Promise<void>;
  /** The frr.conf text `spec` renders to with this binary (pure). */
  render?(spec: NodeConfigSpec): string;
  /** The frr.conf on the host now (what the agent before this one wrote), or null. */
  onHost?(): Promise<string | null>;
  /** Check, write and reload a text (an upgrade's new rendering, or the restore of the previous one). */
  applyText?(text: string, options?: { repair?: boolean }): Promise<{ changed: boolean }>;
  /** Drift repair towards a text (after a failed upgrade: the previous rendering stays). */
  syncText?(text: string): Promise<{ changed: boolean; drift?: string }>;
}

export interface HostDrivers {
  netlink: HostNetlink;
  frr: HostFrr;
}

/** Runs the configured checks; `HealthChecker` implements it. Must not reject (a failed probe is a result). */
export interface HealthRunner {
  run(): Promise<CheckResult[]>;
  /** From now on, the checks `spec` carries (its AgentConfiguration's; SpecHealthChecks); absent: one set. */
  select?(spec: NodeConfigSpec | undefined): void;
}

export interface Clock {
  now(): Date;
}

export type Logger = Pick<pino.Logger, 'debug' | 'info' | 'warn' | 'error'>;

export interface PipelineDeps {
  drivers: HostDrivers;
  checkpoints: CheckpointStore;
  health: HealthRunner;
  status: StatusSink;
  clock?: Clock;
  metrics?: AgentMetrics;
  logger?: Logger;
  /** Test-only fault injection (see fault.ts). */
  fault?: FaultHook;
  /** Called after the host first holds a healthy config (removes the start-up taints). Retried until it succeeds. */
  onFirstHealthy?: () => Promise<void>;
  /** The confirm window; default DEFAULT_CONFIRM. `windowMs: 0` reports `provisioned` right after the checks. */
  confirm?: ConfirmSettings;
  /**
   * The API server on a fresh connection, checked every round of the confirm window. Rejects when
   * it cannot be reached (a refused connection counts as reachable: the path works).
   */
  apiServer?: () => Promise<void>;
  /** Status heartbeat period while an apply or its window runs; default 10 s; 0 disables. */
  heartbeatMs?: number;
  /** Monotonic milliseconds (default `performance.now()`); the window is measured on it. */
  monotonicMs?: () => number;
  /** Sleep between rounds of the window (injected by tests). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

// ------------------------------------------------------------------ inputs and outcomes

/** What the watch hands the pipeline: the NodeConfig as currently stored. */
export interface DesiredConfig {
  spec: NodeConfigSpec;
  /** The configurator's `network.nodenet.io/assigned-at` annotation; a new value is a new attempt. */
  assignedAt?: string;
  generation?: number;
  /** The status currently stored on the NodeConfig, if known. */
  observedStatus?: NodeConfigStatus;
}

export type PipelineStep = 'netlink' | 'frr' | 'health' | 'confirm' | 'checkpoint';

export type ReconcileOutcome =
  | { kind: 'provisioned'; revision: string; health: HealthVerdict }
  | { kind: 'invalid'; revision: string; step: PipelineStep; message: string; restored: boolean }
  | {
      kind: 'unchanged';
      revision: string;
      driftOperations: number;
      frrChanged: boolean;
      /** What FRR ran differently from the rendered config, when it was repaired. */
      frrDrift?: string;
      error?: string;
    }
  | { kind: 'rejected'; revision: string; message: string }
  /** The apply could not start (pending.json not writable): the host is untouched, retry later. */
  | { kind: 'error'; message: string };

export type StartOutcome =
  | { kind: 'clean'; applied?: string }
  /** pending.json found and the host restored. */
  | { kind: 'recovered'; attempted?: string; restoredTo?: string; restored: boolean; message: string }
  /** pending.json found, but the apply had completed (applied.json already holds its spec). */
  | { kind: 'completed'; applied: string };

/** CamelCase status/event reason for a failed step. */
export const STEP_REASON: Record<PipelineStep | 'restart', string> = {
  netlink: 'NetlinkApplyFailed',
  frr: 'FrrApplyFailed',
  health: 'HealthCheckFailed',
  confirm: 'ConfirmWindowFailed',
  checkpoint: 'CheckpointWriteFailed',
  restart: 'AgentRestartedDuringApply',
};

/** How each failed confirm window is judged (failure-cause.ts). */
export const CONFIRM_KIND: Record<ConfirmFailure | 'stopped', FailureKind> = {
  HealthCheckFailed: 'change',
  ApiServerUnreachable: 'cut-off',
  stopped: 'interrupted',
};

/** Reasons of a failed confirm window, by what was lost. */
export const CONFIRM_REASON: Record<ConfirmFailure | 'stopped', string> = {
  HealthCheckFailed: 'ConfirmHealthCheckFailed',
  ApiServerUnreachable: 'ConfirmApiServerUnreachable',
  stopped: 'AgentStoppedDuringConfirm',
};

export const STEP_LABEL: Record<PipelineStep, string> = {
  netlink: 'netlink apply',
  frr: 'FRR apply',
  health: 'health check',
  confirm: 'confirm window',
  checkpoint: 'checkpoint write',
};

/** The attempt a restore ends: what was tried, for the report and rejected.json. */
export interface Attempt {
  revision?: string;
  specHash?: string;
  assignedAt?: string;
  generation?: number;
  /** sha256 of frr.conf when the attempt began (HostFrr.restoreFile); absent: unknown or no file. */
  frrFile?: string;
}

/** First 10 hex digits, as in revision names. */
export const short = (revision: string | undefined): string => (revision ? shortHash(revision) : 'unknown');

/** Runs one step of an apply; its error becomes a StepError naming the step. */
export async function runStep<T>(step: PipelineStep, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new StepError(step, describeCause(err), { cause: err });
  }
}

export class StepError extends Error {
  constructor(
    readonly step: PipelineStep,
    message: string,
    options?: { cause?: unknown; reason?: string; kind?: FailureKind },
  ) {
    super(message, options);
    this.reason = options?.reason ?? STEP_REASON[step];
    this.kind = options?.kind ?? 'change';
  }
  readonly reason: string;
  /** How the failure is judged for status.failureCause (failure-cause.ts). */
  readonly kind: FailureKind;
}
