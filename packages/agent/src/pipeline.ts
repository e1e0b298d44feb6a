/**
 * The apply pipeline of DESIGN "Apply pipeline", as a state machine over injected boundaries: the
 * host drivers, the checkpoint store, the health checks and the status sink. It holds no I/O of its
 * own, so its decisions are unit-tested with small in-memory drivers and exercised end to end with
 * the real drivers.
 *
 * 1. `start()`: a pending.json means the last apply was cut off: restore applied.json to the host
 *    (or, without one, remove everything managed), re-check health, report the attempted revision
 *    `invalid` ("agent restarted during apply") and remember it as rejected.
 * 2. `reconcile()` with a spec equal to applied.json: drift check and repair, no status change
 *    (except re-sending `provisioned` when the API still shows something else, e.g. after the
 *    configurator rolled the node back to it, or a status write was lost in a crash).
 * 3. Otherwise: baseline health, write pending.json, report `provisioning`, apply netlink then FRR,
 *    health checks, then the confirm window (confirm.ts: checks and the API server every few
 *    seconds, status `Confirming`); success: write applied.json, remove pending.json (and
 *    rejected.json), report `provisioned`; any failure, within the window too: restore the previous
 *    checkpoint, re-check health, write rejected.json, remove pending.json, report `invalid` naming
 *    the failed step or the loss. While an apply runs, the status is refreshed as a heartbeat.
 *
 * A spec that failed (same content, same `assigned-at`) is not applied again: the configurator's
 * `retry` re-assigns the node, which makes a new attempt. Status writes are fire-and-forget here
 * (see status.ts): an unreachable API server never causes a rollback.
 */
import pino from 'pino';
import { specHash, type AppliedCheckpoint, type RejectedAttempt } from './checkpoint.js';
import { confirmRound, DEFAULT_CONFIRM, runConfirmWindow, type ConfirmSettings } from './confirm.js';
import { describeCause } from './errors.js';
import type { FaultHook, FaultPoint } from './fault.js';
import { judge, type CheckResult, type HealthVerdict } from './health/checker.js';
import { repairDrift, restoreHost, type DriftResult, type RestoreResult } from './host-sync.js';
import { AgentMetrics } from './metrics.js';
import {
  CONFIRM_REASON,
  nextStep,
  short,
  STEP_LABEL,
  STEP_REASON,
  StepError,
  type Attempt,
  type Clock,
  type DesiredConfig,
  type Logger,
  type PipelineDeps,
  type PipelineStep,
  type ReconcileOutcome,
  type StartOutcome,
} from './pipeline-contract.js';
import { abortableSleep } from './sleep.js';
import type { StatusReport } from './status.js';

export * from './pipeline-contract.js';

// ------------------------------------------------------------------ pipeline

export class Pipeline {
  private applied?: AppliedCheckpoint;
  private rejected?: RejectedAttempt;
  /** Set when a restore failed: the host may be half-applied, so the next call restores first. */
  private recoveryNeeded = false;
  private started = false;
  private healthyOnce = false;
  private running: Promise<unknown> = Promise.resolve();
  private readonly stopping = new AbortController();
  private readonly clock: Clock;
  private readonly metrics: AgentMetrics;
  private readonly log: Logger;
  private readonly fault: FaultHook;
  private readonly confirm: ConfirmSettings;

  constructor(private readonly deps: PipelineDeps) {
    this.clock = deps.clock ?? { now: () => new Date() };
    this.metrics = deps.metrics ?? new AgentMetrics();
    this.log = deps.logger ?? pino({ level: 'silent' });
    this.fault = deps.fault ?? (() => undefined);
    this.confirm = deps.confirm ?? DEFAULT_CONFIRM;
  }

  /** The last good config on the host, as the checkpoint records it. */
  get appliedRevision(): string | undefined {
    return this.applied?.revision;
  }

  /** Start-up: load the checkpoint and recover from an apply that was cut off. Call once, first. */
  start(): Promise<StartOutcome> {
    return this.serialize(() => this.doStart());
  }

  /** Brings the host to `desired` (or keeps it there). Calls are serialized. */
  reconcile(desired: DesiredConfig): Promise<ReconcileOutcome> {
    return this.serialize(() => this.doReconcile(desired));
  }

  /**
   * Shutdown (SIGTERM): a running netlink/FRR step finishes; a confirm window under way ends at once
   * and the previous checkpoint is restored before the apply returns. Await the caller's idle().
   */
  stop(): void {
    this.stopping.abort();
  }

  private serialize<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.running.then(fn, fn);
    this.running = next.catch(() => undefined);
    return next;
  }

  private async doStart(): Promise<StartOutcome> {
    const state = await this.deps.checkpoints.load();
    for (const problem of state.problems) {
      const file = problem.error.path.split('/').pop() ?? problem.error.path;
      this.metrics.checkpointProblems.inc({ file });
      this.log.error(
        { path: problem.error.path, reason: problem.error.reason, movedTo: problem.movedTo },
        `checkpoint unusable, ignoring it: ${problem.error.message}` +
          (problem.movedTo ? `; moved to ${problem.movedTo} for inspection` : ''),
      );
    }
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
      this.log.info(
        { revision: this.applied.revision },
        'previous apply had completed; removed stale pending.json',
      );
      return { kind: 'completed', applied: this.applied.revision };
    }
    return this.recover('restart', pending);
  }

  /**
   * Restores the last good checkpoint after an apply that was cut off (agent restart, also during
   * the confirm window) or whose restore failed earlier, then reports the attempted revision invalid.
   */
  private async recover(cause: 'restart' | 'retry', pending: Attempt): Promise<StartOutcome> {
    const attempted = pending.revision;
    this.log.warn(
      { attempted, restoreTo: this.applied?.revision ?? 'nothing (no checkpoint)', cause },
      cause === 'restart'
        ? 'agent restarted during an apply: restoring the last good checkpoint'
        : 'retrying the restore that failed earlier',
    );
    const what = attempted
      ? `revision ${short(attempted)}`
      : 'an unknown revision (pending checkpoint unreadable)';
    if (cause === 'restart') this.metrics.failures.inc({ step: 'restart' });
    const end = await this.restoreAndReport({
      attempt: pending,
      cause: cause === 'restart' ? 'restarted' : 'apply-failed',
      reason: cause === 'restart' ? STEP_REASON.restart : 'RestoreRetried',
      what:
        cause === 'restart' ? `agent restarted during apply of ${what}` : `earlier apply of ${what} failed`,
    });
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
        return this.resync(desired);
      case 'keep-rejected':
        return this.keepRejected(desired);
      default:
        return this.apply(desired, hash);
    }
  }

  /** Already tried and rolled back: keep the last good config, keep saying why. */
  private async keepRejected(desired: DesiredConfig): Promise<ReconcileOutcome> {
    const message = this.rejected?.message ?? 'rejected earlier';
    if (!this.alreadyReported(desired, 'invalid')) {
      this.reportAgain(desired, {
        configStatus: 'invalid',
        revision: desired.spec.revision,
        ...(this.applied ? { lastAppliedRevision: this.applied.revision } : {}),
        reason: 'PreviouslyRejected',
        message,
        observedGeneration: desired.generation,
      });
    }
    await this.repairDrift();
    return { kind: 'rejected', revision: desired.spec.revision, message };
  }

  /** Step 2: unchanged spec. Drift check and repair; no status change unless the API shows a stale one. */
  private async resync(desired: DesiredConfig): Promise<ReconcileOutcome> {
    const revision = desired.spec.revision;
    const drift = await this.repairDrift();
    if (!this.alreadyReported(desired, 'provisioned')) {
      this.reportAgain(desired, {
        configStatus: 'provisioned',
        revision,
        lastAppliedRevision: revision,
        reason: 'Provisioned',
        message: `revision ${short(revision)} is applied`,
        observedGeneration: desired.generation,
      });
    }
    if (!drift.error) await this.markHealthy();
    return {
      kind: 'unchanged',
      revision,
      driftOperations: drift.operations,
      frrChanged: drift.frrChanged,
      ...(drift.frrDrift ? { frrDrift: drift.frrDrift } : {}),
      ...(drift.error ? { error: drift.error } : {}),
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
    try {
      await this.deps.checkpoints.savePending({
        revision,
        specHash: hash,
        startedAt: startedAt.toISOString(),
        ...(desired.assignedAt ? { assignedAt: desired.assignedAt } : {}),
        ...(desired.generation !== undefined ? { generation: desired.generation } : {}),
        ...(previous ? { previousRevision: previous.revision } : {}),
      });
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
    const stopHeartbeat = this.startHeartbeat();

    let verdict: HealthVerdict;
    try {
      await this.step('netlink', () => this.deps.drivers.netlink.apply(spec));
      this.hook('after-netlink');
      await this.step('frr', () => this.deps.drivers.frr.apply(spec));
      this.hook('after-frr');
      verdict = judge(await this.runHealth(), baseline);
      if (!verdict.ok) throw new StepError('health', verdict.summary);
      this.hook('after-health');
      await this.confirmWindow(progress, baseline);
      const saved = await this.step('checkpoint', () => this.deps.checkpoints.saveApplied(spec));
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
    const settings = this.confirm;
    if (settings.windowMs <= 0) return;
    const window = `${Math.round(settings.windowMs / 1000)} s`;
    this.report({
      ...progress,
      confirming: true,
      reason: 'Confirming',
      message: `revision ${short(progress.revision)} applied and healthy; confirming for ${window} (checks every ${Math.round(settings.intervalMs / 1000)} s, reverts on its own if one fails)`,
    });
    this.log.info({ revision: progress.revision, windowMs: settings.windowMs }, 'confirm window started');
    const outcome = await runConfirmWindow({
      settings,
      baseline: baseline.filter((r) => r.name !== 'apiserver'),
      check: () => confirmRound(() => this.runHealth(), this.deps.apiServer),
      monotonicMs: this.deps.monotonicMs ?? (() => performance.now()),
      sleep: this.deps.sleep ?? abortableSleep,
      signal: this.stopping.signal,
      onTick: (tick, verdict) =>
        this.log.debug(
          { atMs: Math.round(tick.atMs), api: tick.api, verdict: verdict.kind },
          'confirm round',
        ),
    });
    if (outcome.kind === 'confirmed') return;
    const reason = CONFIRM_REASON[outcome.kind === 'stopped' ? 'stopped' : outcome.reason];
    throw new StepError('confirm', outcome.message, { reason });
  }

  /** Refreshes the status every `heartbeatMs` while an apply runs; returns the function that ends it. */
  private startHeartbeat(): () => void {
    const every = this.deps.heartbeatMs ?? 10_000;
    if (every <= 0) return () => undefined;
    const timer = setInterval(() => this.deps.status.heartbeat(), every);
    timer.unref();
    return () => clearInterval(timer);
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
    const end = await this.restoreAndReport({
      attempt: { revision, specHash: hash, assignedAt: desired.assignedAt, generation: desired.generation },
      cause: 'apply-failed',
      reason: failure.reason,
      what:
        failure.step === 'confirm'
          ? failure.message
          : `${STEP_LABEL[failure.step]} failed: ${failure.message}`,
      baseline,
    });
    return { kind: 'invalid', revision, step: failure.step, message: end.message, restored: end.restored };
  }

  /**
   * The one ending of every failed or cut-off apply (invariant 5): restore the last good checkpoint
   * (or remove everything managed without one), check health again, then — only if the restore
   * worked — write rejected.json BEFORE removing pending.json (a crash in between must not re-apply
   * the bad spec at start-up), and report `invalid` saying what was lost and what was restored.
   * A failed restore keeps pending.json and sets `recoveryNeeded`: the next call (or a restart)
   * restores first.
   */
  private async restoreAndReport(args: {
    attempt: Attempt;
    cause: 'apply-failed' | 'restarted';
    reason: string;
    /** What happened, first part of the message. */
    what: string;
    baseline?: CheckResult[];
  }): Promise<{ restored: boolean; message: string }> {
    const { attempt } = args;
    const restore = await this.restoreHost(args.cause);
    const after = judge(await this.runHealth(), args.baseline);
    const restoredText = this.applied
      ? `restored revision ${short(this.applied.revision)}`
      : 'removed all managed configuration (no previous checkpoint)';
    const message =
      `${args.what}; ` +
      (restore.ok
        ? `${restoredText}; health after restore: ${after.summary}`
        : `restore FAILED (${restore.error}); the host may be partly configured, retrying`);
    if (restore.ok) {
      this.recoveryNeeded = false;
      if (attempt.revision && attempt.specHash)
        await this.rememberRejected({
          revision: attempt.revision,
          specHash: attempt.specHash,
          assignedAt: attempt.assignedAt,
          message,
        });
      this.hook('after-rejected');
      await this.deps.checkpoints
        .clearPending()
        .catch((err: unknown) => this.log.error({ err }, 'cannot remove pending.json'));
    } else {
      this.recoveryNeeded = true; // pending.json stays: a restart also restores first
    }
    if (attempt.revision) {
      this.report({
        configStatus: 'invalid',
        revision: attempt.revision,
        ...(this.applied ? { lastAppliedRevision: this.applied.revision } : {}),
        reason: args.reason,
        message,
        ...(attempt.generation !== undefined ? { observedGeneration: attempt.generation } : {}),
      });
    }
    this.log.error(
      {
        attempted: attempt.revision,
        reason: args.reason,
        restored: restore.ok,
        healthAfterRestore: after.summary,
      },
      message,
    );
    return { restored: restore.ok, message };
  }

  /** Puts the last good checkpoint back on the host, or removes everything managed without one. */
  private restoreHost(cause: 'apply-failed' | 'restarted'): Promise<RestoreResult> {
    return restoreHost(this.deps.drivers, this.applied, cause, this.metrics, this.log);
  }

  private async rememberRejected(
    attempt: Omit<RejectedAttempt, 'at' | 'assignedAt'> & { assignedAt?: string },
  ): Promise<void> {
    const record: RejectedAttempt = {
      revision: attempt.revision,
      specHash: attempt.specHash,
      message: attempt.message,
      at: this.clock.now().toISOString(),
      ...(attempt.assignedAt ? { assignedAt: attempt.assignedAt } : {}),
    };
    this.rejected = record;
    await this.deps.checkpoints
      .saveRejected(record)
      .catch((err: unknown) =>
        this.log.error({ err }, 'cannot write rejected.json (a restart may retry this revision once)'),
      );
  }

  private async step<T>(step: PipelineStep, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw new StepError(step, describeCause(err), { cause: err });
    }
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

  /**
   * Whether the NodeConfig in the API already shows this outcome for this revision. The object, not
   * memory, decides: a re-created NodeConfig or a wiped status gets the report again. A report still
   * waiting in the sink counts as shown (it is on its way; re-sending it would only repeat it).
   */
  private alreadyReported(desired: DesiredConfig, configStatus: 'provisioned' | 'invalid'): boolean {
    const revision = desired.spec.revision;
    const last = this.deps.status.lastReported();
    if (this.deps.status.busy && last?.configStatus === configStatus && last.revision === revision)
      return true;
    const observed = desired.observedStatus;
    if (!observed || observed.configStatus !== configStatus) return false;
    if (configStatus === 'provisioned') return observed.lastAppliedRevision === revision;
    // `invalid` carries no attempted revision; the Invalid condition's observedGeneration ties it to this spec.
    const invalid = observed.conditions?.find((c) => c.type === 'Invalid' && c.status === 'True');
    return (
      invalid !== undefined &&
      desired.generation !== undefined &&
      invalid.observedGeneration === desired.generation
    );
  }

  /**
   * Re-sends what this process last said about the same outcome (same status, revision and
   * generation), so the API keeps the informative message of the apply; otherwise `fallback`.
   */
  private reportAgain(desired: DesiredConfig, fallback: StatusReport): void {
    const last = this.deps.status.lastReported();
    const same =
      last?.configStatus === fallback.configStatus &&
      last.revision === fallback.revision &&
      last.observedGeneration === desired.generation;
    this.report(same ? last : fallback);
  }

  private report(report: StatusReport): void {
    this.deps.status.report(report);
  }

  private hook(point: FaultPoint): void {
    this.fault(point);
  }
}
