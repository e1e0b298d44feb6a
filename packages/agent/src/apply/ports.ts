/**
 * The one bundle of ports every step of the pipeline takes: the boundaries of `PipelineDeps` with
 * their defaults filled in, plus the stop signal. Built once per pipeline; a step reads what it
 * needs from it and never calls back into the pipeline.
 */
import type { NodeConfigSpec } from '@nodenet/api';
import { abortableSleep } from '@nodenet/kube';
import pino from 'pino';
import { describeCause } from '../errors.js';
import type { CheckResult } from '../health/index.js';
import { AgentMetrics } from '../metrics.js';
import type { StatusSink } from './report.js';
import type { CheckpointStore } from './checkpoint.js';
import { DEFAULT_CONFIRM, type ConfirmSettings } from './confirm.js';
import type { Clock, HostDrivers, Logger, PipelineDeps } from './contract.js';
import type { PipelineState } from './decide.js';
import { apiServerChecks, type ApiAfterRestore } from './failure-cause.js';
import type { FaultHook } from './fault.js';

export interface ApplyPorts {
  drivers: HostDrivers;
  checkpoints: CheckpointStore;
  status: StatusSink;
  clock: Clock;
  metrics: AgentMetrics;
  log: Logger;
  /** Test-only fault points (fault.ts); a no-op otherwise. */
  fault: FaultHook;
  confirm: ConfirmSettings;
  /** The health checks; never rejects (a runner that throws is one failed result). */
  runHealth: () => Promise<CheckResult[]>;
  /** The health checks of `spec` from now on (the one being applied, or the one restored). */
  selectHealth: (spec: NodeConfigSpec | undefined) => void;
  /** The API server on a fresh connection (confirm window); absent: the `apiserver` check stands in. */
  apiServer?: () => Promise<void>;
  /** Whether the API server answers now; true when there is no probe. */
  apiAnswers: () => Promise<boolean>;
  /** Bounded probing after a restore of a lost-API-server failure; absent: no probe. */
  apiAfterRestore?: () => Promise<ApiAfterRestore>;
  heartbeatMs: number;
  monotonicMs: () => number;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Aborted by `Pipeline.stop()`: a confirm window ends at once (the host is restored). */
  signal: AbortSignal;
  onFirstHealthy?: () => Promise<void>;
}

export function resolvePorts(deps: PipelineDeps, signal: AbortSignal): ApplyPorts {
  const confirm = deps.confirm ?? DEFAULT_CONFIRM;
  const api = apiServerChecks(deps, confirm, signal);
  const health = deps.health;
  return {
    drivers: deps.drivers,
    checkpoints: deps.checkpoints,
    status: deps.status,
    clock: deps.clock ?? { now: () => new Date() },
    metrics: deps.metrics ?? new AgentMetrics(),
    log: deps.logger ?? pino({ level: 'silent' }),
    fault: deps.fault ?? (() => undefined),
    confirm,
    selectHealth: (spec) => health.select?.(spec),
    runHealth: async () => {
      try {
        return await health.run();
      } catch (err) {
        return [{ name: 'health-runner', ok: false, detail: describeCause(err) }];
      }
    },
    ...(deps.apiServer ? { apiServer: deps.apiServer } : {}),
    apiAnswers: api.answers,
    ...(api.afterRestore ? { apiAfterRestore: api.afterRestore } : {}),
    heartbeatMs: deps.heartbeatMs ?? 10_000,
    monotonicMs: deps.monotonicMs ?? (() => performance.now()),
    sleep: deps.sleep ?? abortableSleep,
    signal,
    ...(deps.onFirstHealthy ? { onFirstHealthy: deps.onFirstHealthy } : {}),
  };
}

/** After the host first holds a healthy config: the first-healthy hook, until it succeeds once. */
export async function markHealthy(
  ports: Pick<ApplyPorts, 'onFirstHealthy' | 'log'>,
  state: PipelineState,
): Promise<PipelineState> {
  if (state.healthyOnce || !ports.onFirstHealthy) return state;
  try {
    await ports.onFirstHealthy();
    return { ...state, healthyOnce: true };
  } catch (err) {
    ports.log.warn(
      { err },
      'first-healthy hook (start-up taint removal) failed; retrying at the next reconcile',
    );
    return state;
  }
}
