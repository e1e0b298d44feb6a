/**
 * The one ending of every failed or cut-off apply (invariant 5): restore the last good checkpoint
 * (or remove everything managed without one), check health again, then — only if the restore
 * worked — write rejected.json BEFORE removing pending.json (a crash in between must not re-apply
 * the bad spec at start-up), and report `invalid` saying what was lost, what was restored, and why
 * (`failureCause`, failure-cause.ts). A failed restore reports `RestoreFailed` without a
 * `lastAppliedRevision` claim (the host may be half-applied) and keeps pending.json; the pipeline
 * then restores first on its next call (or at a restart).
 */
import { boundText } from '../bounded.js';
import type { AppliedCheckpoint, RejectedAttempt } from './checkpoint.js';
import type { FailureCause } from '@nodenet/api';
import {
  apiAfterRestoreText,
  decideFailureCause,
  rejectedRecord,
  type ApiAfterRestore,
  type FailureKind,
} from './failure-cause.js';
import type { FaultPoint } from './fault.js';
import { judge, type CheckResult } from '../health/checker.js';
import { restoreHost } from './host-sync.js';
import type { AgentMetrics } from '../metrics.js';
import {
  short,
  STEP_LABEL,
  STEP_REASON,
  type Attempt,
  type Clock,
  type DesiredConfig,
  type Logger,
  type PipelineDeps,
  type StepError,
} from './contract.js';
import type { StatusReport } from '../status/status.js';

/** What the restore needs from the pipeline. */
export interface RestoreContext {
  deps: Pick<PipelineDeps, 'drivers' | 'checkpoints'>;
  /** The last good checkpoint: what is restored. */
  applied: AppliedCheckpoint | undefined;
  metrics: AgentMetrics;
  log: Logger;
  clock: Clock;
  runHealth: () => Promise<CheckResult[]>;
  report: (report: StatusReport) => void;
  hook: (point: FaultPoint) => void;
  /** The rejected.json record before this restore (an interruption of the same attempt counts up). */
  rejected: RejectedAttempt | undefined;
  /** Probes the API server after a restore for a lost-API-server failure (`cut-off`); absent: no probe. */
  apiAfterRestore?: () => Promise<ApiAfterRestore>;
}

export interface RestoreArgs {
  attempt: Attempt;
  cause: 'apply-failed' | 'restarted';
  reason: string;
  /** What happened, first part of the message. */
  what: string;
  baseline?: CheckResult[];
  /** How the failure is judged for `failureCause`. */
  kind: FailureKind;
}

export interface RestoreEnd {
  restored: boolean;
  message: string;
  failureCause: FailureCause;
  /** The attempt now remembered as rejected (only after a restore that worked). */
  rejected?: RejectedAttempt;
}

export async function restoreAndReport(ctx: RestoreContext, args: RestoreArgs): Promise<RestoreEnd> {
  const { attempt } = args;
  const { applied, log } = ctx;
  const restore = await restoreHost(ctx.deps.drivers, applied, args.cause, ctx.metrics, log);
  const after = judge(await ctx.runHealth(), args.baseline);
  const restoredText = applied
    ? `restored revision ${short(applied.revision)}`
    : 'removed all managed configuration (no previous checkpoint)';
  const api = restore.ok && args.kind === 'cut-off' ? await ctx.apiAfterRestore?.() : undefined;
  const failureCause = decideFailureCause(args.kind, restore.ok, api);
  const message =
    `${args.what}; ` +
    (restore.ok
      ? `${restoredText}; health after restore: ${after.summary}` +
        (api ? `; ${apiAfterRestoreText(api)}` : '')
      : `restore FAILED (${restore.error}); the host may be partly configured, retrying`);
  let rejected: RejectedAttempt | undefined;
  if (restore.ok) {
    if (attempt.revision && attempt.specHash) {
      rejected = rejectedRecord(
        {
          revision: attempt.revision,
          specHash: attempt.specHash,
          message: boundText(message),
          at: ctx.clock.now().toISOString(),
          ...(attempt.assignedAt ? { assignedAt: attempt.assignedAt } : {}),
        },
        failureCause,
        ctx.rejected,
      );
      await ctx.deps.checkpoints
        .saveRejected(rejected)
        .catch((err: unknown) =>
          log.error({ err }, 'cannot write rejected.json (a restart may retry this revision once)'),
        );
    }
    ctx.hook('after-rejected');
    await ctx.deps.checkpoints
      .clearPending()
      .catch((err: unknown) => log.error({ err }, 'cannot remove pending.json'));
  }
  if (attempt.revision) {
    ctx.report({
      configStatus: 'invalid',
      revision: attempt.revision,
      // A failed restore makes no claim: the host may be half-applied (invariant 5).
      ...(applied && restore.ok ? { lastAppliedRevision: applied.revision } : {}),
      reason: args.reason,
      message,
      failureCause,
      ...(attempt.generation !== undefined ? { observedGeneration: attempt.generation } : {}),
    });
  }
  log.error(
    {
      attempted: attempt.revision,
      reason: args.reason,
      restored: restore.ok,
      failureCause,
      healthAfterRestore: after.summary,
    },
    message,
  );
  return { restored: restore.ok, message, failureCause, ...(rejected ? { rejected } : {}) };
}

/** Unusable checkpoint files found at start-up: counted and logged (they were moved aside). */
export function reportCheckpointProblems(
  problems: readonly { error: { path: string; reason: string; message: string }; movedTo?: string }[],
  metrics: AgentMetrics,
  log: Logger,
): void {
  for (const problem of problems) {
    const file = problem.error.path.split('/').pop() ?? problem.error.path;
    metrics.checkpointProblems.inc({ file });
    log.error(
      { path: problem.error.path, reason: problem.error.reason, movedTo: problem.movedTo },
      `checkpoint unusable, ignoring it: ${problem.error.message}` +
        (problem.movedTo ? `; moved to ${problem.movedTo} for inspection` : ''),
    );
  }
}

/**
 * The restore after an apply that was cut off (agent restart) or whose restore failed earlier. A
 * restart in the confirm window (the apply had passed its checks) is `Interrupted`; one earlier in
 * the apply may have been the change's doing (it crashed the agent or the node).
 */
export function recoveryArgs(
  cause: 'restart' | 'retry',
  pending: Attempt & { confirming?: boolean },
): RestoreArgs {
  const what = pending.revision
    ? `revision ${short(pending.revision)}`
    : 'an unknown revision (pending checkpoint unreadable)';
  const inWindow = cause === 'restart' && pending.confirming === true;
  return {
    attempt: pending,
    cause: cause === 'restart' ? 'restarted' : 'apply-failed',
    reason: cause === 'restart' ? STEP_REASON.restart : 'RestoreRetried',
    what:
      cause === 'restart'
        ? `agent restarted during ${inWindow ? 'the confirm window' : 'apply'} of ${what}`
        : `earlier apply of ${what} failed`,
    kind: inWindow ? 'interrupted' : 'change',
  };
}

/** The restore after a step of an apply failed (the confirm step's message says it all). */
export function failureArgs(
  desired: DesiredConfig,
  specHash: string,
  failure: StepError,
  baseline: CheckResult[],
): RestoreArgs {
  return {
    attempt: {
      revision: desired.spec.revision,
      specHash,
      assignedAt: desired.assignedAt,
      generation: desired.generation,
    },
    cause: 'apply-failed',
    reason: failure.reason,
    what:
      failure.step === 'confirm' ? failure.message : `${STEP_LABEL[failure.step]} failed: ${failure.message}`,
    baseline,
    kind: failure.kind,
  };
}
