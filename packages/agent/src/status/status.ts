/**
 * NodeConfig status: what the agent reports, how it becomes `status` with conditions, and the
 * writer that delivers it with retries.
 *
 * The pipeline never waits for a status write and never rolls back because one failed: `report()`
 * only records the newest report; a background loop writes it, retrying with capped exponential
 * backoff. A newer report supersedes one not yet written — only the latest state matters to the
 * configurator — so an API server outage costs retries, not a queue.
 */
import {
  findCondition,
  transition,
  type Condition,
  type NodeConfig,
  type NodeConfigStatus,
} from '@nodenet/api';
import { backoffDelay, type BackoffPolicy, abortableSleep } from '@nodenet/kube';
import { boundText } from '../bounded.js';
import type { LeaseOwner } from './lease.js';
import { RevisionNumbers } from './revision-numbers.js';
import type { StatusReport, StatusSink } from '../apply/index.js';

// The report and the sink are the pipeline's port (apply/report.ts); this module delivers them.
export type { StatusReport, StatusSink } from '../apply/index.js';

/** Writes a NodeConfig's status (e.g. a merge patch on the status subresource). Rejects on failure. */
export type StatusWrite = (status: NodeConfigStatus) => Promise<void>;

export const CONDITION_TYPES = ['Ready', 'Progressing', 'Confirming', 'Invalid'] as const;

/**
 * Builds the status object for a report. Conditions keep their `lastTransitionTime` when their
 * status did not change, as Kubernetes conventions require.
 */
export function buildStatus(report: StatusReport, now: Date, previous?: Condition[]): NodeConfigStatus {
  const at = now.toISOString();
  const message = boundText(report.message);
  const flags: Record<(typeof CONDITION_TYPES)[number], boolean> = {
    Ready: report.configStatus === 'provisioned',
    Progressing: report.configStatus === 'provisioning',
    Confirming: report.configStatus === 'provisioning' && report.confirming === true,
    Invalid: report.configStatus === 'invalid',
  };
  const conditions = CONDITION_TYPES.map((type): Condition => {
    const status = flags[type] ? 'True' : 'False';
    const { reason, observedGeneration } = report;
    const next = { type, status, reason, message } as const;
    return transition(
      findCondition(previous, type),
      observedGeneration === undefined ? next : { ...next, observedGeneration },
      at,
    );
  });
  const status: NodeConfigStatus = {
    configStatus: report.configStatus,
    lastUpdate: at,
    message,
    conditions,
  };
  if (report.lastAppliedRevision !== undefined) status.lastAppliedRevision = report.lastAppliedRevision;
  if (report.configStatus === 'invalid') status.failureCause = report.failureCause ?? 'ChangeFailed';
  return status;
}

export const DEFAULT_STATUS_BACKOFF: BackoffPolicy = { initialMs: 500, maxMs: 30_000, factor: 2 };

export interface StatusReporterOptions {
  write: StatusWrite;
  now?: () => Date;
  backoff?: BackoffPolicy;
  /** Injected for tests; resolves after `ms` or early when the reporter is stopped. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  onWriteError?: (error: unknown, attempt: number, retryInMs: number) => void;
  onWritten?: (status: NodeConfigStatus) => void;
  /**
   * The agent's liveness Lease (lease.ts). With it, heartbeats renew the Lease instead of
   * rewriting the status, and an `Applying` report is held until the next report or heartbeat:
   * the status is written once per transition (an apply that reaches its confirm window within a
   * heartbeat interval writes `provisioning` once, as `Confirming`).
   */
  liveness?: { renew(owner: LeaseOwner | undefined): void };
}

export class StatusReporter implements StatusSink {
  private latest?: StatusReport;
  private queued?: { report: StatusReport; status: NodeConfigStatus };
  /** An `Applying` report not written yet (see StatusReporterOptions.liveness). */
  private held?: { report: StatusReport; status: NodeConfigStatus };
  private owner?: LeaseOwner;
  private conditions?: Condition[];
  private loop?: Promise<void>;
  private wake?: () => void;
  private readonly stopping = new AbortController();
  private readonly now: () => Date;
  private readonly backoff: BackoffPolicy;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  private readonly numbers = new RevisionNumbers();

  constructor(private readonly options: StatusReporterOptions) {
    this.now = options.now ?? (() => new Date());
    this.backoff = options.backoff ?? DEFAULT_STATUS_BACKOFF;
    this.sleep = options.sleep ?? abortableSleep;
  }

  /** Seeds the conditions from the status read from the API, so transition times survive restarts. */
  seed(status: NodeConfigStatus | undefined): void {
    if (status?.conditions && !this.conditions) this.conditions = status.conditions;
  }

  /**
   * What the agent's NodeConfig says now: seeds the conditions (see seed) and learns the revision
   * numbers its reports name (revision-numbers.ts).
   */
  observe(nc: NodeConfig): void {
    if (nc.metadata.uid) this.owner = { name: nc.metadata.name, uid: nc.metadata.uid };
    this.seed(nc.status);
    this.numbers.observe(nc);
  }

  report(report: StatusReport): void {
    this.latest = report;
    const status = {
      ...buildStatus(report, this.now(), this.conditions),
      ...this.numbers.numbersFor(report),
    };
    this.conditions = status.conditions;
    if (this.options.liveness && report.configStatus === 'provisioning' && report.confirming !== true) {
      this.held = { report, status };
      return;
    }
    this.held = undefined;
    this.enqueue({ report, status });
  }

  private enqueue(item: { report: StatusReport; status: NodeConfigStatus }): void {
    this.queued = item;
    this.wake?.();
    this.loop ??= this.run().finally(() => {
      this.loop = undefined;
    });
  }

  lastReported(): StatusReport | undefined {
    return this.latest;
  }

  heartbeat(): void {
    if (!this.latest || this.queued || this.stopping.signal.aborted) return;
    const { liveness } = this.options;
    if (!liveness) return this.report(this.latest);
    // A held `Applying` report says more than a renewal: it is this beat.
    if (this.held) {
      const held = this.held;
      this.held = undefined;
      return this.enqueue(held);
    }
    liveness.renew(this.owner);
  }

  /** True while a report waits to be written (or is held). */
  get busy(): boolean {
    return this.queued !== undefined || this.held !== undefined;
  }

  /** Resolves once everything reported so far is written (or the reporter is stopped). */
  async flush(): Promise<void> {
    while (this.loop) await this.loop;
  }

  stop(): void {
    this.stopping.abort();
    this.wake?.();
  }

  private async run(): Promise<void> {
    let attempt = 0;
    while (this.queued && !this.stopping.signal.aborted) {
      const item = this.queued;
      try {
        await this.options.write(item.status);
        if (this.queued === item) this.queued = undefined;
        attempt = 0;
        this.options.onWritten?.(item.status);
      } catch (error) {
        attempt++;
        const delay = backoffDelay(this.backoff, attempt);
        this.options.onWriteError?.(error, attempt, delay);
        // A newer report wakes the loop early: it is written at once rather than after the delay.
        const woken = new Promise<void>((resolve) => (this.wake = resolve));
        await Promise.race([this.sleep(delay, this.stopping.signal), woken]);
        this.wake = undefined;
        if (this.queued !== item) attempt = 0;
      }
    }
  }
}
