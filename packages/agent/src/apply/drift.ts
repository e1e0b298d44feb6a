/**
 * A spec already decided: equal to the applied checkpoint (resync: drift repair), or rejected
 * earlier (keep the last good config, keep saying why). The outcome is re-sent only when the
 * NodeConfig in the API does not already show it. The object, not memory, decides: a re-created
 * NodeConfig or a wiped status gets the report again.
 */ import type { AppliedCheckpoint } from './checkpoint.js';
import type { DriftResult } from './host-sync.js';
import { short, type DesiredConfig, type ReconcileOutcome } from './contract.js';
import type { StatusReport, StatusSink } from '../status/status.js';

/**
 * Whether the NodeConfig already shows this outcome for this revision. A report still waiting in
 * the sink counts as shown (it is on its way; re-sending it would only repeat it).
 */
export function alreadyReported(
  status: StatusSink,
  desired: DesiredConfig,
  configStatus: 'provisioned' | 'invalid',
): boolean {
  const revision = desired.spec.revision;
  const last = status.lastReported();
  if (status.busy && last?.configStatus === configStatus && last.revision === revision) return true;
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
 * What to re-send: what this process last said about the same outcome (same status, revision and
 * generation), so the API keeps the informative message of the apply; otherwise `fallback`.
 */
export function reportAgain(
  status: StatusSink,
  desired: DesiredConfig,
  fallback: StatusReport,
): StatusReport {
  const last = status.lastReported();
  const same =
    last?.configStatus === fallback.configStatus &&
    last.revision === fallback.revision &&
    last.observedGeneration === desired.generation;
  return same ? last : fallback;
}

export interface ResyncContext {
  status: StatusSink;
  applied: AppliedCheckpoint | undefined;
  repairDrift: () => Promise<DriftResult>;
  markHealthy: () => Promise<void>;
  report: (report: StatusReport) => void;
}

function resend(ctx: ResyncContext, desired: DesiredConfig, report: StatusReport): void {
  if (!alreadyReported(ctx.status, desired, report.configStatus as 'provisioned' | 'invalid'))
    ctx.report(reportAgain(ctx.status, desired, report));
}

/** Already tried and rolled back: keep the last good config, keep saying why. */
export async function keepRejected(
  ctx: ResyncContext,
  desired: DesiredConfig,
  message: string,
): Promise<ReconcileOutcome> {
  resend(ctx, desired, {
    configStatus: 'invalid',
    revision: desired.spec.revision,
    ...(ctx.applied ? { lastAppliedRevision: ctx.applied.revision } : {}),
    reason: 'PreviouslyRejected',
    message,
    observedGeneration: desired.generation,
  });
  await ctx.repairDrift();
  return { kind: 'rejected', revision: desired.spec.revision, message };
}

/** Unchanged spec: drift check and repair; no status change unless the API shows a stale one. */
export async function resync(ctx: ResyncContext, desired: DesiredConfig): Promise<ReconcileOutcome> {
  const revision = desired.spec.revision;
  const drift = await ctx.repairDrift();
  resend(ctx, desired, {
    configStatus: 'provisioned',
    revision,
    lastAppliedRevision: revision,
    reason: 'Provisioned',
    message: `revision ${short(revision)} is applied`,
    observedGeneration: desired.generation,
  });
  if (!drift.error) await ctx.markHealthy();
  return {
    kind: 'unchanged',
    revision,
    driftOperations: drift.operations,
    frrChanged: drift.frrChanged,
    ...(drift.frrDrift ? { frrDrift: drift.frrDrift } : {}),
    ...(drift.error ? { error: drift.error } : {}),
  };
}
