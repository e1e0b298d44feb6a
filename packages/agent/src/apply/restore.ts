/**
 * The one ending of every failed or cut-off apply (docs/architecture.md, invariant 5): restore the
 * last good checkpoint (or remove everything managed without one), check health again, then — only
 * if the restore worked — write rejected.json BEFORE removing pending.json (a crash in between must
 * not re-apply the bad spec at start-up), and report `invalid` saying what was lost, what was
 * restored, and why (`failureCause`, failure-cause.ts). A failed restore reports `RestoreFailed`
 * without a `lastAppliedRevision` claim (the host may be half-applied) and keeps pending.json; the
 * next state says `recoveryNeeded`, so the pipeline restores first on its next call (or at a restart).
 *
 * Start-up lives here too: loading the checkpoint and recovering an apply a restart cut off.
 */
import type { FailureCause } from '@nodenet/api';
import { boundText } from '../bounded.js';
import { describeCause } from '../errors.js';
import { judge, type CheckResult } from '../health/index.js';
import type { AgentMetrics } from '../metrics.js';
import type { AppliedCheckpoint, RejectedAttempt } from './checkpoint.js';
import {
  short,
  STEP_LABEL,
  STEP_REASON,
  type Attempt,
  type DesiredConfig,
  type Logger,
  type StartOutcome,
  type StepError,
} from './contract.js';
import type { PipelineState, Stepped } from './decide.js';
import {
  apiAfterRestoreText,
  decideFailureCause,
  rejectedRecord,
  type ApiAfterRestore,
  type FailureKind,
} from './failure-cause.js';
import type { ApplyPorts } from './ports.js';

/** What a restore needs. */
export type RestorePorts = Pick<
  ApplyPorts,
  | 'drivers'
  | 'checkpoints'
  | 'metrics'
  | 'log'
  | 'clock'
  | 'runHealth'
  | 'status'
  | 'fault'
  | 'apiAfterRestore'
>;

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
}

export type RestoreResult = { ok: true } | { ok: false; error: string };

/**
 * Puts `applied` back on the host, or removes everything managed without a checkpoint. What cannot
 * be rendered or planned (broken agent settings or template) is restored as far as it can be
 * without: the devices the attempt added are removed, and FRR gets the file it ran before the
 * attempt (`frrFile`, its sha256) back; the error names only what is still not put back.
 */
export async function restoreHost(
  ports: Pick<ApplyPorts, 'drivers' | 'metrics' | 'log'>,
  applied: AppliedCheckpoint | undefined,
  cause: 'apply-failed' | 'restarted',
  frrFile?: string,
): Promise<RestoreResult> {
  const { drivers, metrics, log } = ports;
  const target = applied?.spec;
  const errors: string[] = [];
  // Both halves are attempted even if one fails: a half-restored host beats a half-applied one.
  try {
    if (target) await drivers.netlink.apply(target);
    else await drivers.netlink.removeAll();
  } catch (err) {
    errors.push(
      target
        ? `netlink: the devices of revision ${short(target.revision)} not put back (${describeCause(err)})${await removeAdded(ports, target)}`
        : `netlink: ${describeCause(err)}`,
    );
  }
  try {
    if (target) await drivers.frr.apply(target, { repair: true });
    else await drivers.frr.removeAll();
  } catch (err) {
    const frr = target && frrFile ? await frrFileBefore(ports, frrFile, describeCause(err)) : err;
    if (frr !== undefined) errors.push(`FRR: ${describeCause(frr)}`);
  }
  const ok = errors.length === 0;
  metrics.restores.inc({ cause, result: ok ? 'ok' : 'failed' });
  metrics.setAppliedRevision(applied?.revision);
  log.warn({ to: applied?.revision ?? 'nothing', ok, errors }, ok ? 'restore performed' : 'restore failed');
  return ok ? { ok } : { ok, error: errors.join('; ') };
}

/**
 * After an FRR restore that failed (the restored spec cannot be rendered or checked, e.g. a template
 * vtysh refuses): FRR gets the file it ran before the attempt back, which needs no rendering.
 * Returns undefined when that worked, else the error to report (both reasons).
 */
async function frrFileBefore(
  ports: Pick<ApplyPorts, 'drivers' | 'log'>,
  before: string,
  why: string,
): Promise<Error | undefined> {
  try {
    const done = await ports.drivers.frr.restoreFile(before);
    ports.log.warn(
      { frrFile: done, why },
      done === 'restored'
        ? 'restore: FRR config of the restored revision not rendered; put back the file FRR ran before the change'
        : 'restore: FRR config of the restored revision not rendered; the change had not written the FRR file',
    );
    return undefined;
  } catch (err) {
    return new Error(`${why}; the file FRR ran before the change not put back either: ${describeCause(err)}`);
  }
}

/**
 * After a netlink restore that failed (refused before any change, e.g. a missing VTEP interface, or
 * broken off): still removes the devices the failed change added, which needs the target spec
 * alone. Returns what to add to the error: what was removed, or why not even that worked.
 */
async function removeAdded(
  ports: Pick<ApplyPorts, 'drivers' | 'log'>,
  target: AppliedCheckpoint['spec'],
): Promise<string> {
  try {
    const { removed } = await ports.drivers.netlink.removeAdded(target);
    ports.log.warn({ removed }, 'restore: removed the devices the change added');
    return removed.length > 0
      ? `; removed what the change added (${removed.join(', ')})`
      : '; the change added no device';
  } catch (err) {
    return `; could not remove what the change added either: ${describeCause(err)}`;
  }
}

/**
 * Restores `state.applied` and reports the attempt `invalid`. The next state remembers the attempt
 * as rejected after a restore that worked, and needs a recovery after one that failed.
 */
export async function restoreAndReport(
  ports: RestorePorts,
  state: PipelineState,
  args: RestoreArgs,
): Promise<Stepped<RestoreEnd>> {
  const { attempt } = args;
  const { applied } = state;
  const restore = await restoreHost(ports, applied, args.cause, attempt.frrFile);
  const after = judge(await ports.runHealth(), args.baseline);
  const api = restore.ok && args.kind === 'cut-off' ? await ports.apiAfterRestore?.() : undefined;
  const failureCause = decideFailureCause(args.kind, restore.ok, api);
  const message = `${args.what}; ${restoreText(applied, restore, after.summary, api)}`;
  const rejected = restore.ok
    ? await rememberRejected(ports, state, { attempt, failureCause, message })
    : undefined;
  if (attempt.revision) {
    ports.status.report({
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
  ports.log.error(
    {
      attempted: attempt.revision,
      reason: args.reason,
      restored: restore.ok,
      failureCause,
      healthAfterRestore: after.summary,
    },
    message,
  );
  return {
    // A failed restore keeps pending.json: the next call (or a restart) restores first.
    state: { ...state, recoveryNeeded: !restore.ok, ...(rejected ? { rejected } : {}) },
    outcome: { restored: restore.ok, message, failureCause },
  };
}

/** The part of the message after what happened: what was restored and what health says now. */
function restoreText(
  applied: AppliedCheckpoint | undefined,
  restore: RestoreResult,
  healthAfter: string,
  api: ApiAfterRestore | undefined,
): string {
  if (!restore.ok) return `restore FAILED (${restore.error}); the host may be partly configured, retrying`;
  const restored = applied
    ? `restored revision ${short(applied.revision)}`
    : 'removed all managed configuration (no previous checkpoint)';
  return `${restored}; health after restore: ${healthAfter}` + (api ? `; ${apiAfterRestoreText(api)}` : '');
}

/**
 * After a restore that worked: rejected.json for the attempt (when it is known), then pending.json
 * removed — in this order, so a crash in between cannot apply the attempt again at start-up.
 */
async function rememberRejected(
  ports: RestorePorts,
  state: PipelineState,
  ending: { attempt: Attempt; failureCause: FailureCause; message: string },
): Promise<RejectedAttempt | undefined> {
  const { checkpoints, log } = ports;
  const { attempt, failureCause, message } = ending;
  let rejected: RejectedAttempt | undefined;
  if (attempt.revision && attempt.specHash) {
    rejected = rejectedRecord(
      {
        revision: attempt.revision,
        specHash: attempt.specHash,
        message: boundText(message),
        at: ports.clock.now().toISOString(),
        ...(attempt.assignedAt ? { assignedAt: attempt.assignedAt } : {}),
      },
      failureCause,
      state.rejected,
    );
    await checkpoints
      .saveRejected(rejected)
      .catch((err: unknown) =>
        log.error({ err }, 'cannot write rejected.json (a restart may retry this revision once)'),
      );
  }
  ports.fault('after-rejected');
  await checkpoints.clearPending().catch((err: unknown) => log.error({ err }, 'cannot remove pending.json'));
  return rejected;
}

/** Start-up: loads the checkpoint and recovers from an apply that was cut off (pending.json). */
export async function startUp(ports: RestorePorts, state: PipelineState): Promise<Stepped<StartOutcome>> {
  const { checkpoints, log } = ports;
  const loaded = await checkpoints.load();
  reportCheckpointProblems(loaded.problems, ports.metrics, log);
  const next: PipelineState = { ...state, started: true, applied: loaded.applied, rejected: loaded.rejected };
  ports.metrics.setAppliedRevision(next.applied?.revision);
  if (!loaded.pending) {
    log.info({ applied: next.applied?.revision }, 'checkpoint loaded');
    return { state: next, outcome: { kind: 'clean', applied: next.applied?.revision } };
  }
  const pending = loaded.pending;
  if (pending.specHash && next.applied && pending.specHash === next.applied.specHash) {
    // Died after writing applied.json but before removing pending.json: the apply had succeeded.
    await checkpoints.clearPending();
    log.info({ revision: next.applied.revision }, 'previous apply completed; removed pending.json');
    return { state: next, outcome: { kind: 'completed', applied: next.applied.revision } };
  }
  return recover(ports, next, 'restart', pending);
}

/** Before a reconcile, when a restore failed earlier: restore again (pending.json names the attempt). */
export async function retryRestore(ports: RestorePorts, state: PipelineState): Promise<PipelineState> {
  const pending = await ports.checkpoints.readPending();
  return (await recover(ports, state, 'retry', pending.kind === 'ok' ? pending.value : {})).state;
}

/** Restores the last good checkpoint after an apply cut off by a restart, or whose restore failed. */
async function recover(
  ports: RestorePorts,
  state: PipelineState,
  cause: 'restart' | 'retry',
  pending: Attempt & { confirming?: boolean },
): Promise<Stepped<StartOutcome>> {
  const attempted = pending.revision;
  ports.log.warn(
    { attempted, restoreTo: state.applied?.revision ?? 'nothing (no checkpoint)', cause },
    cause === 'restart'
      ? 'agent restarted during an apply: restoring the last good checkpoint'
      : 'retrying the restore that failed earlier',
  );
  if (cause === 'restart') ports.metrics.failures.inc({ step: 'restart' });
  const end = await restoreAndReport(ports, state, recoveryArgs(cause, pending));
  return {
    state: end.state,
    outcome: {
      kind: 'recovered',
      attempted,
      restoredTo: end.state.applied?.revision,
      restored: end.outcome.restored,
      message: end.outcome.message,
    },
  };
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
  { specHash, frrFile }: { specHash: string; frrFile?: string },
  failure: StepError,
  baseline: CheckResult[],
): RestoreArgs {
  return {
    attempt: {
      revision: desired.spec.revision,
      specHash,
      assignedAt: desired.assignedAt,
      generation: desired.generation,
      ...(frrFile ? { frrFile } : {}),
    },
    cause: 'apply-failed',
    reason: failure.reason,
    what:
      failure.step === 'confirm' ? failure.message : `${STEP_LABEL[failure.step]} failed: ${failure.message}`,
    baseline,
    kind: failure.kind,
  };
}
