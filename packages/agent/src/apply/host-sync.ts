/**
 * Bringing the host back to the last good checkpoint: the drift repair of a resync (DESIGN "Apply
 * pipeline" step 2) and the restore after a failed or cut-off apply (invariant 5). Both act through
 * the drivers only, and log and count what they did.
 */
import type { AppliedCheckpoint } from './checkpoint.js';
import { describeCause } from '../errors.js';
import type { AgentMetrics } from '../metrics.js';
import type { HostDrivers, Logger } from './contract.js';

export interface DriftResult {
  operations: number;
  frrChanged: boolean;
  frrDrift?: string;
  error?: string;
}

export type RestoreResult = { ok: true } | { ok: false; error: string };

/** Re-applies the applied spec; >0 operations or an FRR reload means the host had drifted. */
export async function repairDrift(
  drivers: HostDrivers,
  applied: AppliedCheckpoint | undefined,
  metrics: AgentMetrics,
  log: Logger,
): Promise<DriftResult> {
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

/** Puts `applied` back on the host, or removes everything managed without a checkpoint. */
export async function restoreHost(
  drivers: HostDrivers,
  applied: AppliedCheckpoint | undefined,
  cause: 'apply-failed' | 'restarted',
  metrics: AgentMetrics,
  log: Logger,
): Promise<RestoreResult> {
  const target = applied?.spec;
  const errors: string[] = [];
  // Both halves are attempted even if one fails: a half-restored host beats a half-applied one.
  try {
    if (target) await drivers.netlink.apply(target);
    else await drivers.netlink.removeAll();
  } catch (err) {
    errors.push(`netlink: ${describeCause(err)}`);
  }
  try {
    if (target) await drivers.frr.apply(target, { repair: true });
    else await drivers.frr.removeAll();
  } catch (err) {
    errors.push(`FRR: ${describeCause(err)}`);
  }
  const ok = errors.length === 0;
  metrics.restores.inc({ cause, result: ok ? 'ok' : 'failed' });
  metrics.setAppliedRevision(applied?.revision);
  log.warn({ to: applied?.revision ?? 'nothing', ok, errors }, ok ? 'restore performed' : 'restore failed');
  return ok ? { ok } : { ok, error: errors.join('; ') };
}
