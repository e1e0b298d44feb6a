/**
 * The pipeline's confirm step: report Confirming, run the window (confirm.ts) with the apply's
 * ports, and turn a lost check into the `confirm` StepError that makes the pipeline restore.
 */
import type { CheckResult } from '../health/index.js';
import { confirmRound, runConfirmWindow } from './confirm.js';
import type { StatusReport } from './report.js';
import { CONFIRM_KIND, CONFIRM_REASON, short, StepError } from './contract.js';
import type { ApplyPorts } from './ports.js';

/** What the confirm step of an apply needs. */
export type ConfirmPorts = Pick<
  ApplyPorts,
  'confirm' | 'runHealth' | 'apiServer' | 'monotonicMs' | 'sleep' | 'signal' | 'status' | 'log'
>;

/**
 * The confirm step of an apply: reports `Confirming`, keeps checking for the window, and resolves
 * when it is confirmed; otherwise throws a `confirm` StepError naming what was lost (the apply
 * then restores). `progress` is the apply's `provisioning` report.
 */
export async function confirmApplied(
  ports: ConfirmPorts,
  progress: Omit<StatusReport, 'reason' | 'message'>,
  baseline: CheckResult[],
): Promise<void> {
  const { confirm: settings, log } = ports;
  const revision = progress.revision;
  if (settings.windowMs <= 0) return;
  const window = `${Math.round(settings.windowMs / 1000)} s`;
  ports.status.report({
    ...progress,
    confirming: true,
    reason: 'Confirming',
    message: `revision ${short(revision)} applied and healthy; confirming for ${window} (checks every ${Math.round(settings.intervalMs / 1000)} s, reverts on its own if one fails)`,
  });
  log.info({ revision, windowMs: settings.windowMs }, 'confirm window started');
  const outcome = await runConfirmWindow({
    settings,
    baseline: baseline.filter((r) => r.name !== 'apiserver'),
    check: () => confirmRound(ports.runHealth, ports.apiServer),
    monotonicMs: ports.monotonicMs,
    sleep: ports.sleep,
    signal: ports.signal,
    onTick: (tick, verdict) => {
      log.debug({ atMs: Math.round(tick.atMs), api: tick.api, verdict: verdict.kind }, 'confirm round');
      if (
        verdict.kind === 'ok' &&
        verdict.state.unreachableSinceMs !== undefined &&
        tick.atMs >= settings.windowMs
      )
        log.info(
          { revision, atMs: Math.round(tick.atMs), api: tick.api?.detail },
          'confirm window extended: the API server does not answer (confirms once it does, reverts at the limit)',
        );
    },
  });
  if (outcome.kind === 'confirmed') return;
  const reason = outcome.kind === 'stopped' ? 'stopped' : outcome.reason;
  throw new StepError('confirm', outcome.message, {
    reason: CONFIRM_REASON[reason],
    kind: CONFIRM_KIND[reason],
  });
}

/** Calls `beat` every `everyMs` while an apply runs (0: never); returns the function that ends it. */
export function startHeartbeat(everyMs: number, beat: () => void): () => void {
  if (everyMs <= 0) return () => undefined;
  const timer = setInterval(beat, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
