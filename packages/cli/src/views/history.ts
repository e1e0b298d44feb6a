/** `kubectl nodenet history`: every revision, newest first, with its result (pure). */
import { findCondition, RETRY_ANNOTATION } from '@nodenet/api';
import { table } from './format.js';
import { isInvalid, revisionInForce, type ClusterState, type Revision } from '../cluster/state.js';

export type RevisionResult = 'Complete' | 'RollingOut' | 'Paused' | 'Invalid' | 'Aborted' | 'Superseded';

export interface HistoryRow {
  number: number;
  name: string;
  result: RevisionResult;
  /** The revision nodes are moved to now. */
  inForce: boolean;
  ready: number;
  failed: number;
  degraded: number;
  total: number;
  /** The most nodes ready on it at once: how many ran it (a superseded revision has none left on it). */
  ranOn: number;
  startedAt?: string;
  completedAt?: string;
  /** Why it is invalid (the Invalid condition's message). */
  reason?: string;
  retryRequested: boolean;
  /** The number of the invalid revision this one retries (same content, new number). */
  retryOf?: number;
  /** The number of the revision that retries this one. */
  retriedBy?: number;
}

export function historyRows(s: ClusterState): HistoryRow[] {
  const inForce = revisionInForce(s);
  const numberOf = (name: string | undefined): number | undefined =>
    s.revisions.find((x) => x.metadata.name === name)?.spec.number;
  return [...s.revisions].reverse().map((r) => {
    const retryOf = numberOf(r.spec.retryOf);
    const retriedBy = s.revisions.find((x) => x.spec.retryOf === r.metadata.name)?.spec.number;
    const st = r.status ?? {};
    const invalid = isInvalid(r);
    const invalidReason = findCondition(st.conditions, 'Invalid');
    return {
      number: r.spec.number,
      name: r.metadata.name,
      result: resultOf(r, inForce),
      inForce: inForce?.metadata.name === r.metadata.name,
      ready: st.ready ?? 0,
      failed: st.failed ?? st.failedNodes?.length ?? 0,
      degraded: st.degraded ?? st.degradedNodes?.length ?? 0,
      total: st.total ?? 0,
      ranOn: Math.max(st.ranOn ?? 0, st.ready ?? 0),
      ...(st.startedAt ? { startedAt: st.startedAt } : {}),
      ...(st.completedAt ? { completedAt: st.completedAt } : {}),
      ...(invalid && invalidReason ? { reason: invalidReason.message } : {}),
      retryRequested: r.metadata.annotations?.[RETRY_ANNOTATION] !== undefined,
      ...(retryOf !== undefined ? { retryOf } : {}),
      ...(retriedBy !== undefined ? { retriedBy } : {}),
    };
  });
}

/** A revision's result, from its status and the revision in force. */
function resultOf(r: Revision, inForce: Revision | undefined): RevisionResult {
  const conditions = r.status?.conditions;
  if (isInvalid(r)) {
    const aborted =
      r.spec.aborted ||
      findCondition(conditions, 'Aborted')?.status === 'True' ||
      findCondition(conditions, 'Invalid')?.reason === 'Aborted';
    return aborted ? 'Aborted' : 'Invalid';
  }
  if (inForce && inForce.spec.number > r.spec.number) return 'Superseded';
  if (findCondition(conditions, 'Complete')?.status === 'True') return 'Complete';
  return r.spec.paused ? 'Paused' : 'RollingOut';
}

const invalid = (r: HistoryRow): boolean => r.result === 'Invalid' || r.result === 'Aborted';

export function renderHistory(rows: HistoryRow[]): string {
  if (rows.length === 0) return 'No revisions yet.\n';
  return table(
    [
      'NUMBER',
      'NAME',
      'RESULT',
      'IN-FORCE',
      'READY',
      'FAILED',
      'DEGRADED',
      'TOTAL',
      'RAN-ON',
      'STARTED',
      'COMPLETED',
      'REASON',
    ],
    rows.map((r) => [
      String(r.number),
      r.name,
      r.result +
        (r.retriedBy !== undefined
          ? ` (retried as ${r.retriedBy})`
          : r.retryRequested
            ? ' (retry requested)'
            : ''),
      r.inForce ? 'yes' : '',
      // No node is moved to an invalid revision: only its failures count ("failed 1, total 0" read
      // as nonsense); JSON keeps the revision's own figures.
      invalid(r) ? '-' : String(r.ready),
      String(r.failed),
      String(r.degraded),
      invalid(r) ? '-' : String(r.total),
      String(r.ranOn),
      r.startedAt ?? '',
      r.completedAt ?? '',
      [r.retryOf !== undefined ? `retry of ${r.retryOf}` : '', r.reason ?? ''].filter(Boolean).join('; '),
    ]),
  );
}
