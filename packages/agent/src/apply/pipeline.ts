/**
 * The apply pipeline of DESIGN "Apply pipeline", a state machine over injected boundaries (host
 * drivers, checkpoint store, health checks, status sink); no I/O of its own, so its decisions are
 * unit-tested with in-memory drivers and exercised end to end with the real ones.
 *
 * `start()` recovers a cut-off apply (pending.json). `reconcile()`: an unchanged spec is drift
 * repair (resync.ts); a new one is baseline health, pending.json, `provisioning`, netlink then FRR,
 * health, the confirm window (confirm.ts), applied.json and `provisioned`; any failure restores and
 * reports `invalid` with its failureCause (restore-and-report.ts). A spec that failed under the same
 * `assigned-at` is not applied again, unless it was only interrupted (failure-cause.ts). Status
 * writes are fire-and-forget: an unreachable API server never causes a rollback by itself.
 */
import pino from 'pino';
import { SerialQueue } from '@nodenet/kube';
import { specHash, type AppliedCheckpoint, type PendingApply, type RejectedAttempt } from './checkpoint.js';
import { confirmApplied, DEFAULT_CONFIRM, startHeartbeat, type ConfirmSettings } from './confirm.js';
import { describeCause } from '../errors.js';
import { apiServerChecks } from './failure-cause.js';
import type { FaultHook, FaultPoint } from './fault.js';
import { judge, type CheckResult, type HealthVerdict } from '../health/checker.js';
import { repairDrift, type DriftResult } from './host-sync.js';
import { AgentMetrics } from '../metrics.js';
import {
  runStep,
  CONFIRM_KIND,
  CONFIRM_REASON,
  nextStep,
  short,
  STEP_LABEL,
  StepError,
  type Attempt,
  type Clock,
  type DesiredConfig,
  type Logger,
  type PipelineDeps,
  type ReconcileOutcome,
  type StartOutcome,
} from './contract.js';
import { keepRejected, resync, type ResyncContext } from './drift.js';
import {
  failureArgs,
  recoveryArgs,
  reportCheckpointProblems,
  restoreAndReport,
  type RestoreArgs,
} from './restore.js';
import { abortableSleep } from '../sleep.js';
import type { StatusReport } from '../status/status.js';

export * from './contract.js';

// ------------------------------------------------------------------ pipeline

export class Pipeline {
  private applied?: AppliedCheckpoint;
  private rejected?: RejectedAttempt;
  /** Set when a restore failed: the host may be half-applied, so the next call restores first. */
  private recoveryNeeded = false;
  private started = false;
  private startOutcome?: StartOutcome;
  private healthyOnce = false;
  private readonly queue = new SerialQueue();
  private readonly stopping = new AbortController();
  private readonly clock: Clock;
  private readonly metrics: AgentMetrics;
  private readonly log: Logger;
  private readonly fault: FaultHook;
  private readonly confirm: ConfirmSettings;
  private readonly api: ReturnType<typeof apiServerChecks>;

  constructor(private readonly deps: PipelineDeps) {
    this.clock = deps.clock ?? { now: () => new Date() };
    this.metrics = deps.metrics ?? new AgentMetrics();
    this.log = deps.logger ?? pino({ level: 'silent' });
    this.fault = deps.fault ?? (() => undefined);
    this.confirm = deps.confirm ?? DEFAULT_CONFIRM;
    this.api = apiServerChecks(deps, this.confirm, this.stopping.signal);
  }

  /** The last good config on the host, as the checkpoint records it. */
  get appliedRevision(): string | undefined {
    return this.applied?.revision;
  }

  /** Start-up: load the checkpoint and recover from an apply that was cut off. Call once, first. */
  start(): Promise<StartOutcome> {
    return this.queue.run(async () => (this.startOutcome ??= await this.doStart()));
  }

  /** Brings the host to `desired` (or keeps it there). Calls are serialized. */
  reconcile(desired: DesiredConfig): Promise<ReconcileOutcome> {
    return this.queue.run(() => this.doReconcile(desired));
  }

  /** SIGTERM: a running step finishes; a confirm window ends at once and the host is restored. */
  stop(): void {
    this.stopping.abort();
  }

  private async doStart(): Promise<StartOutcome> {
    const state = await this.deps.checkpoints.load();
    reportCheckpointProblems(state.problems, this.metrics, this.log);
    this.applied = state.applied;
    this.rejected = state.rejected;
    this.metrics.setAppliedRevision(this.applied?.revision);
    this.started = true;
    if (!state.pending) {
      this.log.info({ applied: this.applied?.revision }, 'checkpoint loaded');
      return { kind: 'clean', applied: this.applied?.revision };
    }
    const pending = state.pending;
    if (pending.specHash && this.applied && pending.specHash === this.applied.specHash) {
      // Died after writing applied.json but before removing pending.json: the apply had succeeded.
      await this.deps.checkpoints.clearPending();
      this.log.info({ revision: this.applied.revision }, 'previous apply completed; removed pending.json');
      return { kind: 'completed', applied: this.applied.revision };
    }
    return this.recover('restart', pending);
  }

  /** Restores the last good checkpoint after an apply cut off by a restart, or whose restore failed. */
  private async recover(
    cause: 'restart' | 'retry',
    pending: Attempt & { confirming?: boolean },
  ): Promise<StartOutcome> {
    const attempted = pending.revision;
    this.log.warn(
      { attempted, restoreTo: this.applied?.revision ?? 'nothing (no checkpoint)', cause },
      cause === 'restart'
        ? 'agent restarted during an apply: restoring the last good checkpoint'
        : 'retrying the restore that failed earlier',
    );
    if (cause === 'restart') this.metrics.failures.inc({ step: 'restart' });
    const end = await this.restoreAndReport(recoveryArgs(cause, pending));
    return {
      kind: 'recovered',
      attempted,
      restoredTo: this.applied?.revision,
      restored: end.restored,
      message: end.message,
    };
  }

  private async doReconcile(desired: DesiredConfig): Promise<ReconcileOutcome> {
    if (!this.started) await this.doStart();
    const hash = specHash(desired.spec);
    const step = () =>
      nextStep({
        recoveryNeeded: this.recoveryNeeded,
        desiredHash: hash,
        assignedAt: desired.assignedAt,
        appliedHash: this.applied?.specHash,
        rejected: this.rejected,
      });
    if (step() === 'recover-first') {
      const pending = await this.deps.checkpoints.readPending();
      await this.recover('retry', pending.kind === 'ok' ? pending.value : {});
      if (this.recoveryNeeded)
        return { kind: 'error', message: 'restore of the last good checkpoint is still failing' };
    }
    switch (step()) {
      case 'resync':
        return resync(this.resyncContext(), desired);
      case 'keep-rejected':
        return keepRejected(this.resyncContext(), desired, this.rejected?.message ?? 'rejected earlier');
      default:
        // An interrupted attempt is tried again only once the API server answers (not mid-outage).
        if (this.rejected?.specHash === hash && !(await this.api.answers()))
          return keepRejected(this.resyncContext(), desired, this.rejected.message);
        return this.apply(desired, hash);
    }
  }

  /** What resync.ts needs: the status sink, the checkpoint, drift repair, the first-healthy hook. */
  private resyncContext(): ResyncContext {
    return {
      status: this.deps.status,
      applied: this.applied,
      repairDrift: () => this.repairDrift(),
      markHealthy: () => this.markHealthy(),
      report: (r) => this.report(r),
    };
  }

  private repairDrift(): Promise<DriftResult> {
    return repairDrift(this.deps.drivers, this.applied, this.metrics, this.log);
  }

  /** Step 3: a new spec. */
  private async apply(desired: DesiredConfig, hash: string): Promise<ReconcileOutcome> {
    const spec = desired.spec;
    const revision = spec.revision;
    const previous = this.applied;
    const startedAt = this.clock.now();
    const endTimer = this.metrics.applyDuration.startTimer();
    this.log.info(
      { revision, previous: previous?.revision, assignedAt: desired.assignedAt },
      'applying new config',
    );

    const baseline = await this.runHealth();
    const pending: PendingApply = {
      revision,
      specHash: hash,
      startedAt: startedAt.toISOString(),
      ...(desired.assignedAt ? { assignedAt: desired.assignedAt } : {}),
      ...(desired.generation !== undefined ? { generation: desired.generation } : {}),
      ...(previous ? { previousRevision: previous.revision } : {}),
    };
    try {
      await this.deps.checkpoints.savePending(pending);
    } catch (err) {
      // Without pending.json a crash mid-apply would go unnoticed: do not touch the host.
      endTimer();
      this.log.error({ err, revision }, 'cannot write pending.json; not applying (retrying later)');
      return { kind: 'error', message: `cannot start apply: ${describeCause(err)}` };
    }
    this.hook('after-pending');
    const progress = {
      configStatus: 'provisioning',
      revision,
      ...(previous ? { lastAppliedRevision: previous.revision } : {}),
      observedGeneration: desired.generation,
    } as const;
    this.report({ ...progress, reason: 'Applying', message: `applying revision ${short(revision)}` });
    const stopHeartbeat = startHeartbeat(this.deps.heartbeatMs ?? 10_000, () => this.deps.status.heartbeat());

    let verdict: HealthVerdict;
    try {
      const { operations } = await runStep('netlink', () => this.deps.drivers.netlink.apply(spec));
      this.hook('after-netlink');
      const { changed } = await runStep('frr', () => this.deps.drivers.frr.apply(spec));
      this.hook('after-frr');
      verdict = judge(await this.runHealth(), baseline);
      if (!verdict.ok) {
        // Only the API server lost: judged by what the restore fixes (failure-cause.ts).
        const cutOff = verdict.newFailures.every((r) => r.name === 'apiserver');
        throw new StepError('health', verdict.summary, { kind: cutOff ? 'cut-off' : 'change' });
      }
      this.hook('after-health');
      // A revision that changes nothing on this host (0 netlink operations, FRR file unchanged) has
      // nothing the window could catch: it is reported at once (issue #26, unchanged nodes move free).
      if (operations > 0 || changed) {
        if (this.confirm.windowMs > 0) await this.markConfirming(pending);
        await this.confirmWindow(progress, baseline);
      } else this.log.info({ revision }, 'host unchanged by this revision; no confirm window');
      const saved = await runStep('checkpoint', () => this.deps.checkpoints.saveApplied(spec));
      this.applied = saved;
      this.hook('after-applied');
    } catch (err) {
      const failure =
        err instanceof StepError ? err : new StepError('checkpoint', describeCause(err), { cause: err });
      const outcome = await this.fail(desired, hash, failure, previous, baseline);
      stopHeartbeat();
      endTimer();
      return outcome;
    }
    stopHeartbeat();

    // Success. pending.json goes only now: a crash before this line is recovered at start-up.
    await this.deps.checkpoints
      .clearPending()
      .catch((err: unknown) => this.log.error({ err }, 'cannot remove pending.json'));
    if (this.rejected) {
      this.rejected = undefined;
      await this.deps.checkpoints.clearRejected().catch(() => undefined);
    }
    this.metrics.applies.inc({ result: 'provisioned' });
    this.metrics.setAppliedRevision(revision);
    endTimer();
    const message = `revision ${short(revision)} applied; health: ${verdict.summary}`;
    this.report({
      configStatus: 'provisioned',
      revision,
      lastAppliedRevision: revision,
      reason: 'Provisioned',
      message,
      observedGeneration: desired.generation,
    });
    this.log.info({ revision, preexisting: verdict.preexisting.map((r) => r.name) }, message);
    await this.markHealthy();
    return { kind: 'provisioned', revision, health: verdict };
  }

  /** Keeps checking for the confirm window; throws a `confirm` StepError naming what was lost. */
  private async confirmWindow(
    progress: Omit<StatusReport, 'reason' | 'message'>,
    baseline: CheckResult[],
  ): Promise<void> {
    const failed = await confirmApplied(
      {
        settings: this.confirm,
        runHealth: () => this.runHealth(),
        ...(this.deps.apiServer ? { apiServer: this.deps.apiServer } : {}),
        monotonicMs: this.deps.monotonicMs ?? (() => performance.now()),
        sleep: this.deps.sleep ?? abortableSleep,
        signal: this.stopping.signal,
        reportConfirming: (message) =>
          this.report({
            ...progress,
            confirming: true,
            reason: 'Confirming',
            message: `revision ${short(progress.revision)} ${message}`,
          }),
        log: this.log,
      },
      progress.revision,
      baseline,
    );
    if (failed)
      throw new StepError('confirm', failed.message, {
        reason: CONFIRM_REASON[failed.reason],
        kind: CONFIRM_KIND[failed.reason],
      });
  }

  /** pending.json says the checks passed: a restart from now on is an interruption, not a failure. */
  private markConfirming(pending: PendingApply): Promise<void> {
    const marked = { ...pending, confirming: true };
    return this.deps.checkpoints.savePending(marked).catch((err) => this.log.warn({ err }, 'pending.json'));
  }

  private async fail(
    desired: DesiredConfig,
    hash: string,
    failure: StepError,
    previous: AppliedCheckpoint | undefined,
    baseline: CheckResult[],
  ): Promise<ReconcileOutcome> {
    const revision = desired.spec.revision;
    this.metrics.failures.inc({ step: failure.step });
    this.metrics.applies.inc({ result: 'invalid' });
    this.log.error(
      { revision, step: failure.step, err: failure.cause ?? failure.message },
      `${STEP_LABEL[failure.step]} failed; restoring`,
    );
    // The checkpoint in memory may already name the new spec if only pending.json removal failed; restore `previous`.
    this.applied = previous;
    const end = await this.restoreAndReport(failureArgs(desired, hash, failure, baseline));
    return { kind: 'invalid', revision, step: failure.step, message: end.message, restored: end.restored };
  }

  /** The one ending of every failed or cut-off apply (restore-and-report.ts). */
  private async restoreAndReport(args: RestoreArgs): Promise<{ restored: boolean; message: string }> {
    const end = await restoreAndReport(
      {
        deps: this.deps,
        applied: this.applied,
        metrics: this.metrics,
        log: this.log,
        clock: this.clock,
        runHealth: () => this.runHealth(),
        report: (r) => this.report(r),
        hook: (p) => this.hook(p),
        rejected: this.rejected,
        ...(this.api.afterRestore ? { apiAfterRestore: this.api.afterRestore } : {}),
      },
      args,
    );
    // A failed restore keeps pending.json: the next call (or a restart) restores first.
    this.recoveryNeeded = !end.restored;
    if (end.rejected) this.rejected = end.rejected;
    return end;
  }

  private async runHealth(): Promise<CheckResult[]> {
    try {
      return await this.deps.health.run();
    } catch (err) {
      return [{ name: 'health-runner', ok: false, detail: describeCause(err) }];
    }
  }

  private async markHealthy(): Promise<void> {
    if (this.healthyOnce || !this.deps.onFirstHealthy) return;
    try {
      await this.deps.onFirstHealthy();
      this.healthyOnce = true;
    } catch (err) {
      this.log.warn(
        { err },
        'first-healthy hook (start-up taint removal) failed; retrying at the next reconcile',
      );
    }
  }

  private report(report: StatusReport): void {
    this.deps.status.report(report);
  }

  private hook(point: FaultPoint): void {
    this.fault(point);
  }
}
