/**
 * What an `invalid` report says about why (status.failureCause, docs/agent-status.md), so the
 * configurator can tell a bad change from a bad moment (issue #24 items 3, 4 and 6):
 *
 * - `ChangeFailed`: the change failed its checks, or cut the node off (counts against the revision).
 * - `Interrupted`: the agent was stopped, or the control plane was down, while the node's own checks
 *   passed (the configurator re-assigns the node, bounded, instead of counting it).
 * - `RestoreFailed`: the restore failed too; no `lastAppliedRevision` claim.
 *
 * A lost API server is ambiguous: the change may have cut the node off, or the control plane may be
 * down. The restore tells them apart: when the API server answers soon after the restore, the change
 * was what cut the node off; when it still does not answer, the outage was not the change's doing.
 */
import { abortableSleep } from '@nodenet/kube';
import type { FailureCause } from '@nodenet/api';
import type { RejectedAttempt } from './checkpoint.js';
import type { ConfirmSettings } from './confirm.js';

/** How a failure is judged: by itself, or (a lost API server) by what the restore fixes. */
export type FailureKind = 'change' | 'interrupted' | 'cut-off';

/** The API server after a restore: did it answer, and when (ms after the restore ended). */
export interface ApiAfterRestore {
  answered: boolean;
  afterMs: number;
  detail: string;
}

export function decideFailureCause(
  kind: FailureKind,
  restored: boolean,
  api?: ApiAfterRestore,
): FailureCause {
  if (!restored) return 'RestoreFailed';
  if (kind === 'interrupted') return 'Interrupted';
  if (kind === 'cut-off') return api && !api.answered ? 'Interrupted' : 'ChangeFailed';
  return 'ChangeFailed';
}

/** The part of the message that says what the restore showed about a lost API server. */
export function apiAfterRestoreText(api: ApiAfterRestore): string {
  const s = Math.round(api.afterMs / 1000);
  return api.answered
    ? `the API server answered ${s} s after the restore: the change cut the node off`
    : `the API server still did not answer ${s} s after the restore (${api.detail}): an outage, not the change`;
}

/**
 * How soon after a restore the API server must answer for the loss to be the change's doing ("right
 * after"): half the unreachable limit, at least 3 s (a route comes back, a session re-establishes),
 * at most 15 s. The shorter this is, the fewer control-plane outages that happen to end just after
 * a restore are taken for a cut-off (which would count against a good revision); a cut-off that
 * takes longer to heal is re-assigned as Interrupted, a bounded number of times.
 */
export const afterRestoreWaitMs = (confirm: Pick<ConfirmSettings, 'unreachableLimitMs'>): number =>
  Math.min(Math.max(confirm.unreachableLimitMs / 2, 3000), 15_000);

/** What a restore needs to probe the API server after it. */
export interface ProbeAfterRestoreDeps {
  apiServer: () => Promise<void>;
  monotonicMs: () => number;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Aborted at shutdown: one probe, then the answer so far. */
  signal: AbortSignal;
  waitMs: number;
  intervalMs: number;
}

/** Probes until the API server answers or `waitMs` passed (bounded: at most waitMs / intervalMs + 1 probes). */
export async function probeAfterRestore(deps: ProbeAfterRestoreDeps): Promise<ApiAfterRestore> {
  const start = deps.monotonicMs();
  let detail = 'no probe';
  for (;;) {
    try {
      await deps.apiServer();
      return { answered: true, afterMs: deps.monotonicMs() - start, detail: 'answered' };
    } catch (err) {
      detail = err instanceof Error ? err.message : String(err);
    }
    const elapsed = deps.monotonicMs() - start;
    if (elapsed >= deps.waitMs || deps.signal.aborted) return { answered: false, afterMs: elapsed, detail };
    await deps.sleep(Math.min(deps.intervalMs, deps.waitMs - elapsed), deps.signal);
  }
}

/**
 * The pipeline's two uses of the API-server probe outside the window: does it answer now (before an
 * interrupted attempt is tried again: not in the middle of an outage), and the bounded probing
 * after a restore. Without a probe, the API server counts as answering and nothing is probed.
 */
export function apiServerChecks(
  deps: {
    apiServer?: () => Promise<void>;
    monotonicMs?: () => number;
    sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  },
  confirm: ConfirmSettings,
  signal: AbortSignal,
): { answers: () => Promise<boolean>; afterRestore?: () => Promise<ApiAfterRestore> } {
  const { apiServer, monotonicMs = () => performance.now(), sleep = abortableSleep } = deps;
  if (!apiServer) return { answers: () => Promise.resolve(true) };
  return {
    answers: () =>
      apiServer().then(
        () => true,
        () => false,
      ),
    afterRestore: () =>
      probeAfterRestore({
        apiServer,
        monotonicMs,
        sleep,
        signal,
        waitMs: afterRestoreWaitMs(confirm),
        intervalMs: Math.min(confirm.intervalMs, 1000),
      }),
  };
}

/**
 * How many times in a row the agent itself tries an interrupted attempt again (same spec, same
 * assignment) before it waits for the configurator to re-assign the node.
 */
export const MAX_INTERRUPTED_RETRIES = 3;

/** The rejected.json record for an attempt that ended with `cause`. */
export function rejectedRecord(
  attempt: Omit<RejectedAttempt, 'failureCause' | 'interruptions'>,
  cause: FailureCause,
  previous: RejectedAttempt | undefined,
): RejectedAttempt {
  if (cause !== 'Interrupted') return { ...attempt, failureCause: cause };
  const same =
    previous?.failureCause === 'Interrupted' &&
    previous.specHash === attempt.specHash &&
    previous.assignedAt === attempt.assignedAt;
  return { ...attempt, failureCause: cause, interruptions: same ? (previous.interruptions ?? 1) + 1 : 1 };
}

/**
 * Whether a rejected attempt is retried under the same assignment: an interrupted one is (the
 * interruption was not the change's fault — in a rollback, restoring put the invalid revision back),
 * up to MAX_INTERRUPTED_RETRIES times in a row; any other waits for a re-assignment.
 */
export const retriesOnItsOwn = (rejected: Pick<RejectedAttempt, 'failureCause' | 'interruptions'>): boolean =>
  rejected.failureCause === 'Interrupted' && (rejected.interruptions ?? 1) < MAX_INTERRUPTED_RETRIES;
