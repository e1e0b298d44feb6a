/**
 * Drift repair, in one place. A spec already decided is either equal to the applied checkpoint
 * (resync: the host is brought back to it, netlink then FRR, judged on FRR's running config) or
 * rejected earlier (keep the last good config, keep saying why, and repair drift towards it). The
 * outcome is re-sent only when the NodeConfig in the API does not already show it: the object, not
 * memory, decides, so a re-created NodeConfig or a wiped status gets the report again.
 *
 * The resync period adapts (`nextResyncMs`): a resync that finds the host as applied (no netlink
 * operation, FRR not reloaded, no error) doubles the wait before the next one, up to RESYNC_BACKOFF
 * times the configured period; anything else (a repair, an error, a new revision) goes back to the
 * configured period. An idle node re-checks less often, and one that drifted is watched closely.
 */
import { describeCause } from '../errors.js';
import type { StatusReport, StatusSink } from './report.js';
import type { AppliedCheckpoint } from './checkpoint.js';
import { short, type DesiredConfig, type ReconcileOutcome } from './contract.js';
import type { PipelineState, Stepped } from './decide.js';
import { markHealthy, type ApplyPorts } from './ports.js';

/** What drift repair and the re-sent report need. */
export type DriftPorts = Pick<ApplyPorts, 'drivers' | 'metrics' | 'log' | 'status' | 'onFirstHealthy'>;

export interface DriftResult {
  operations: number;
  frrChanged: boolean;
  frrDrift?: string;
  error?: string;
}

/** Re-applies the applied spec; >0 operations or an FRR reload means the host had drifted. */
export async function repairDrift(
  ports: Pick<ApplyPorts, 'drivers' | 'metrics' | 'log'>,
  applied: AppliedCheckpoint | undefined,
): Promise<DriftResult> {
  const { drivers, metrics, log } = ports;
  const target = applied?.spec;
  // Without a checkpoint there is nothing to repair towards; never tear down a host on a resync.
  if (!target) return { operations: 0, frrChanged: false };
  try {
    const { operations } = await drivers.netlink.apply(target);
    // Judged on FRR's running config, not on the file: a hand-made vtysh change is found too.
    const { changed, drift } = await drivers.frr.sync(target);
    if (changed) metrics.frrDriftRepairs.inc();
    if (operations > 0 || changed) {
      metrics.driftRepairs.inc();
      log.warn(
        { revision: applied.revision, netlinkOperations: operations, frrReloaded: changed, frrDrift: drift },
        'host had drifted from the applied config; repaired',
      );
    } else {
      log.debug({ revision: applied.revision }, 'resync: host matches the applied config');
    }
    return { operations, frrChanged: changed, ...(drift ? { frrDrift: drift } : {}) };
  } catch (err) {
    metrics.driftErrors.inc();
    log.error({ err, revision: applied.revision }, 'drift check/repair failed; retrying at the next resync');
    return { operations: 0, frrChanged: false, error: describeCause(err) };
  }
}

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

function resend(status: StatusSink, desired: DesiredConfig, report: StatusReport): void {
  if (!alreadyReported(status, desired, report.configStatus as 'provisioned' | 'invalid'))
    status.report(reportAgain(status, desired, report));
}

/** Already tried and rolled back: keep the last good config, keep saying why. */
export async function keepRejected(
  ports: DriftPorts,
  state: PipelineState,
  desired: DesiredConfig,
): Promise<Stepped<ReconcileOutcome>> {
  const message = state.rejected?.message ?? 'rejected earlier';
  resend(ports.status, desired, {
    configStatus: 'invalid',
    revision: desired.spec.revision,
    ...(state.applied ? { lastAppliedRevision: state.applied.revision } : {}),
    reason: 'PreviouslyRejected',
    message,
    observedGeneration: desired.generation,
  });
  await repairDrift(ports, state.applied);
  return { state, outcome: { kind: 'rejected', revision: desired.spec.revision, message } };
}

/** Unchanged spec: drift check and repair; no status change unless the API shows a stale one. */
export async function resync(
  ports: DriftPorts,
  state: PipelineState,
  desired: DesiredConfig,
): Promise<Stepped<ReconcileOutcome>> {
  const revision = desired.spec.revision;
  const drift = await repairDrift(ports, state.applied);
  resend(ports.status, desired, {
    configStatus: 'provisioned',
    revision,
    lastAppliedRevision: revision,
    reason: 'Provisioned',
    message: `revision ${short(revision)} is applied`,
    observedGeneration: desired.generation,
  });
  return {
    state: drift.error ? state : await markHealthy(ports, state),
    outcome: {
      kind: 'unchanged',
      revision,
      driftOperations: drift.operations,
      frrChanged: drift.frrChanged,
      ...(drift.frrDrift ? { frrDrift: drift.frrDrift } : {}),
      ...(drift.error ? { error: drift.error } : {}),
    },
  };
}

/** The longest wait, as a multiple of `--resync-period`. */
export const RESYNC_BACKOFF = 4;

/** A resync that found the host as applied: no netlink operation, FRR not reloaded, no error. */
export const isQuietResync = (outcome: ReconcileOutcome): boolean =>
  outcome.kind === 'unchanged' && !outcome.error && outcome.driftOperations === 0 && !outcome.frrChanged;

export function nextResyncMs(currentMs: number, baseMs: number, outcome: ReconcileOutcome): number {
  return isQuietResync(outcome) ? Math.min(currentMs * 2, baseMs * RESYNC_BACKOFF) : baseMs;
}
