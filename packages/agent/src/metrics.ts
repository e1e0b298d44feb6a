/**
 * Prometheus metrics of the agent. Each agent process owns one registry (not prom-client's global
 * default) so tests and several pipelines in one process do not share counters.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Period of the event-loop delay sampling behind nodejs_eventloop_lag_* (see the constructor). */
const EVENT_LOOP_SAMPLE_MS = 1000;

export class AgentMetrics {
  readonly registry = new Registry();

  /** Applies of a changed spec, by result: provisioned | invalid. */
  readonly applies = new Counter({
    name: 'nodenet_agent_applies_total',
    help: 'Applies of a new NodeConfig spec, by result (provisioned, invalid).',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  /** Failed applies, by the step that failed: netlink | frr | health | checkpoint | restart. */
  readonly failures = new Counter({
    name: 'nodenet_agent_apply_failures_total',
    help: 'Failed applies by the pipeline step that failed (netlink, frr, health, checkpoint, restart).',
    labelNames: ['step'] as const,
    registers: [this.registry],
  });

  /** Restores of the previous checkpoint (or removal of everything managed), by cause and result. */
  readonly restores = new Counter({
    name: 'nodenet_agent_restores_total',
    help: 'Restores of the last good checkpoint, by cause (apply-failed, restarted) and result (ok, failed).',
    labelNames: ['cause', 'result'] as const,
    registers: [this.registry],
  });

  readonly applyDuration = new Histogram({
    name: 'nodenet_agent_apply_duration_seconds',
    help: 'Duration of an apply from pending checkpoint to final status, including health checks and any restore.',
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [this.registry],
  });

  readonly driftRepairs = new Counter({
    name: 'nodenet_agent_drift_repairs_total',
    help: 'Resyncs of an unchanged spec that found the host drifted and repaired it.',
    registers: [this.registry],
  });

  readonly frrDriftRepairs = new Counter({
    name: 'nodenet_agent_frr_drift_repairs_total',
    help: "Resyncs that found FRR's running config differing from the rendered one (e.g. a change made by hand in vtysh) and reloaded it.",
    registers: [this.registry],
  });

  readonly driftErrors = new Counter({
    name: 'nodenet_agent_drift_repair_errors_total',
    help: 'Resyncs whose drift check or repair failed (retried at the next resync).',
    registers: [this.registry],
  });

  readonly statusWriteFailures = new Counter({
    name: 'nodenet_agent_status_write_failures_total',
    help: 'Failed NodeConfig status writes (each is retried with backoff).',
    registers: [this.registry],
  });

  readonly checkpointProblems = new Counter({
    name: 'nodenet_agent_checkpoint_corrupt_total',
    help: 'Checkpoint files found unusable and moved aside, by file.',
    labelNames: ['file'] as const,
    registers: [this.registry],
  });

  /** 1 for the revision currently applied on the host. */
  readonly appliedRevision = new Gauge({
    name: 'nodenet_agent_applied_revision_info',
    help: 'The revision whose configuration is applied on the host (value 1).',
    labelNames: ['revision'] as const,
    registers: [this.registry],
  });

  constructor(options: { processMetrics?: boolean } = {}) {
    // prom-client samples the event loop delay with a 10 ms timer by default: 100 wake-ups a
    // second, ~0.3 s of CPU a minute, most of an idle agent's cost (issue 26). A 1 s timer still
    // shows a stalled loop; the agent's loop is idle nearly always.
    if (options.processMetrics) {
      collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    }
  }

  setAppliedRevision(revision: string | undefined): void {
    this.appliedRevision.reset();
    if (revision) this.appliedRevision.set({ revision }, 1);
  }
}
