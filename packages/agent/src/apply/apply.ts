/**
 * The apply step: a new spec. Baseline health, pending.json, `provisioning`, netlink then FRR,
 * health against the baseline, the confirm window (confirm.ts), applied.json and `provisioned`.
 * Any failure restores the last good checkpoint and reports `invalid` (restore.ts). A revision that
 * changes nothing on this host (0 netlink operations, FRR file unchanged) skips the window.
 */
import { judge, type CheckResult, type HealthVerdict } from '../health/index.js';
import { describeCause } from '../errors.js';
import type { StatusReport } from './report.js';
import type { AppliedCheckpoint, PendingApply } from './checkpoint.js';
import { confirmApplied, startHeartbeat } from './confirm-applied.js';
import {
  runStep,
  short,
  STEP_LABEL,
  StepError,
  type DesiredConfig,
  type ReconcileOutcome,
} from './contract.js';
import type { PipelineState, Stepped } from './decide.js';
import { markHealthy, type ApplyPorts } from './ports.js';
import { failureArgs, restoreAndReport } from './restore.js';

type Progress = Omit<StatusReport, 'reason' | 'message'>;

/** Applies `desired` (whose spec hashes to `hash`); the next state names it as applied, or restored. */
export async function applySpec(
  ports: ApplyPorts,
  state: PipelineState,
  desired: DesiredConfig,
  hash: string,
): Promise<Stepped<ReconcileOutcome>> {
  const revision = desired.spec.revision;
  const endTimer = ports.metrics.applyDuration.startTimer();
  ports.log.info(
    { revision, previous: state.applied?.revision, assignedAt: desired.assignedAt },
    'applying new config',
  );
  try {
    // What the spec names outside the NodeConfig (BGP password Secrets) is read before the host is
    // touched: a Secret that cannot be read now is retried, not held against the revision.
    await ports.drivers.frr.prepare?.(desired.spec);
  } catch (err) {
    endTimer();
    ports.log.warn(
      { err: describeCause(err), revision },
      'cannot read what the config needs; retrying later',
    );
    return { state, outcome: { kind: 'error', message: `cannot start apply: ${describeCause(err)}` } };
  }
  // The checks of the config being applied, baseline included (a check it adds that fails already
  // is reported, not held against it); a failure selects the restored config's again (fail()).
  ports.selectHealth(desired.spec);
  const baseline = await ports.runHealth();
  // Read before anything changes: which FRR file a restore that cannot render may put back.
  const frrFile = await ports.drivers.frr.fileHash().catch(() => undefined);
  const pending = { ...pendingRecord(ports, state, desired, hash), ...(frrFile ? { frrFile } : {}) };
  try {
    await ports.checkpoints.savePending(pending);
  } catch (err) {
    // Without pending.json a crash mid-apply would go unnoticed: do not touch the host.
    endTimer();
    ports.log.error({ err, revision }, 'cannot write pending.json; not applying (retrying later)');
    return { state, outcome: { kind: 'error', message: `cannot start apply: ${describeCause(err)}` } };
  }
  ports.fault('after-pending');
  const progress: Progress = {
    configStatus: 'provisioning',
    revision,
    ...(state.applied ? { lastAppliedRevision: state.applied.revision } : {}),
    observedGeneration: desired.generation,
  };
  ports.status.report({ ...progress, reason: 'Applying', message: `applying revision ${short(revision)}` });
  const stopHeartbeat = startHeartbeat(ports.heartbeatMs, () => ports.status.heartbeat());
  let host: { saved: AppliedCheckpoint; verdict: HealthVerdict };
  try {
    host = await toHost(ports, { pending, progress, baseline, desired });
  } catch (err) {
    const failure =
      err instanceof StepError ? err : new StepError('checkpoint', describeCause(err), { cause: err });
    const next = await fail(ports, state, { desired, hash, failure, baseline, frrFile: pending.frrFile });
    stopHeartbeat();
    endTimer();
    return next;
  }
  stopHeartbeat();
  const next = await succeed(ports, { ...state, applied: host.saved }, { desired, verdict: host.verdict });
  endTimer();
  return { state: await markHealthy(ports, next.state), outcome: next.outcome };
}

function pendingRecord(
  ports: ApplyPorts,
  state: PipelineState,
  desired: DesiredConfig,
  hash: string,
): PendingApply {
  return {
    revision: desired.spec.revision,
    specHash: hash,
    startedAt: ports.clock.now().toISOString(),
    ...(desired.assignedAt ? { assignedAt: desired.assignedAt } : {}),
    ...(desired.generation !== undefined ? { generation: desired.generation } : {}),
    ...(state.applied ? { previousRevision: state.applied.revision } : {}),
  };
}

/** Netlink, FRR, health, the confirm window, applied.json; throws a StepError naming the step that failed. */
async function toHost(
  ports: ApplyPorts,
  attempt: { pending: PendingApply; progress: Progress; baseline: CheckResult[]; desired: DesiredConfig },
): Promise<{ saved: AppliedCheckpoint; verdict: HealthVerdict }> {
  const { pending, progress, baseline } = attempt;
  const { spec } = attempt.desired;
  const { operations, rendering } = await runStep('netlink', () => ports.drivers.netlink.apply(spec));
  ports.fault('after-netlink');
  const { changed } = await runStep('frr', () => ports.drivers.frr.apply(spec));
  ports.fault('after-frr');
  const verdict = judge(await ports.runHealth(), baseline);
  if (!verdict.ok) {
    // Only the API server lost: judged by what the restore fixes (failure-cause.ts).
    const cutOff = verdict.newFailures.every((r) => r.name === 'apiserver');
    throw new StepError('health', verdict.summary, { kind: cutOff ? 'cut-off' : 'change' });
  }
  ports.fault('after-health');
  // A revision that changes nothing on this host has nothing the window could catch: it is
  // reported at once (unchanged nodes move free during a rollout).
  if (operations > 0 || changed) {
    if (ports.confirm.windowMs > 0) await markConfirming(ports, pending);
    await confirmApplied(ports, progress, baseline);
  } else ports.log.info({ revision: spec.revision }, 'host unchanged by this revision; no confirm window');
  // What this binary put on the host: a later binary that renders it differently confirms the difference (upgrade.ts).
  const frrText = ports.drivers.frr.render?.(spec);
  const saved = await runStep('checkpoint', () =>
    ports.checkpoints.saveApplied(
      spec,
      frrText !== undefined && rendering ? { frr: frrText, netlink: rendering } : undefined,
    ),
  );
  ports.fault('after-applied');
  return { saved, verdict };
}

/** pending.json says the checks passed: a restart from now on is an interruption, not a failure. */
function markConfirming(ports: ApplyPorts, pending: PendingApply): Promise<void> {
  const marked = { ...pending, confirming: true };
  return ports.checkpoints.savePending(marked).catch((err) => ports.log.warn({ err }, 'pending.json'));
}

/** The apply held: pending.json goes only now (a crash before this is recovered at start-up). */
async function succeed(
  ports: ApplyPorts,
  state: PipelineState,
  held: { desired: DesiredConfig; verdict: HealthVerdict },
): Promise<Stepped<ReconcileOutcome>> {
  const { desired, verdict } = held;
  const revision = desired.spec.revision;
  await ports.checkpoints
    .clearPending()
    .catch((err: unknown) => ports.log.error({ err }, 'cannot remove pending.json'));
  let next = state;
  if (state.rejected) {
    next = { ...state, rejected: undefined };
    await ports.checkpoints.clearRejected().catch(() => undefined);
  }
  ports.metrics.applies.inc({ result: 'provisioned' });
  ports.metrics.setAppliedRevision(revision);
  const message = `revision ${short(revision)} applied; health: ${verdict.summary}`;
  ports.status.report({
    configStatus: 'provisioned',
    revision,
    lastAppliedRevision: revision,
    reason: 'Provisioned',
    message,
    observedGeneration: desired.generation,
  });
  ports.log.info({ revision, preexisting: verdict.preexisting.map((r) => r.name) }, message);
  return { state: next, outcome: { kind: 'provisioned', revision, health: verdict } };
}

/** A step failed: restore the checkpoint the apply started from, and report why. */
async function fail(
  ports: ApplyPorts,
  state: PipelineState,
  attempt: {
    desired: DesiredConfig;
    hash: string;
    failure: StepError;
    baseline: CheckResult[];
    frrFile?: string;
  },
): Promise<Stepped<ReconcileOutcome>> {
  const { desired, failure } = attempt;
  const revision = desired.spec.revision;
  ports.metrics.failures.inc({ step: failure.step });
  ports.metrics.applies.inc({ result: 'invalid' });
  ports.log.error(
    { revision, step: failure.step, err: failure.cause ?? failure.message },
    `${STEP_LABEL[failure.step]} failed; restoring`,
  );
  ports.selectHealth(state.applied?.spec);
  const end = await restoreAndReport(
    ports,
    state,
    failureArgs(
      desired,
      { specHash: attempt.hash, ...(attempt.frrFile ? { frrFile: attempt.frrFile } : {}) },
      failure,
      attempt.baseline,
    ),
  );
  return {
    state: end.state,
    outcome: {
      kind: 'invalid',
      revision,
      step: failure.step,
      message: end.outcome.message,
      restored: end.outcome.restored,
    },
  };
}
