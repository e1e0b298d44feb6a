/**
 * When a revision's status is written. The planner derives every revision's status each pass
 * (rollout/revision-status.ts); while nodes move, the desired revision and the one they leave change
 * only their counts from one pass to the next, and writing each of those made a status write per
 * revision per pass. Here a change of the record (conditions, phase, failed or degraded nodes,
 * completion, anything but the node counts and the messages that quote them) is written at once, and
 * a change of the counts alone at most once per revision per `intervalMs` on the configurator's
 * monotonic clock: at once when the last write is that long ago, else when it will be. The pass that
 * comes then (the controller asks for it, nextDueInMs) derives the status again and writes what it
 * says then, so the counts an operator reads are never more than `intervalMs` behind and the last
 * ones always land.
 */
import { canonicalJson, type NetworkConfigRevisionStatus } from '@nodenet/api';
import type { StatusUpdate } from '../rollout/index.js';

/** How long the node counts of a revision's status may lag behind. */
export const STATUS_COUNT_INTERVAL_MS = 1000;

export type StatusWriteDecision =
  { action: 'skip' } | { action: 'write'; change: 'record' | 'counts' } | { action: 'wait'; dueInMs: number };

/** What a revision's status says apart from its node counts: conditions without their messages. */
function recordKey(s: NetworkConfigRevisionStatus): string {
  const { total: _t, queued: _q, ongoing: _o, ready: _r, unchanged: _u, conditions, ...rest } = s;
  const conds = (conditions ?? []).map((c) => ({
    type: c.type,
    status: c.status,
    reason: c.reason,
    lastTransitionTime: c.lastTransitionTime,
    ...(c.observedGeneration !== undefined ? { observedGeneration: c.observedGeneration } : {}),
  }));
  return canonicalJson({ ...rest, conditions: conds });
}

/**
 * Whether to write `next` over the status last written (`written`), at monotonic time `mono`, given
 * when this configurator last wrote it (`lastWriteAt`, undefined: not in this process or long ago).
 * Pure: the caller keeps the times.
 */
export function decideStatusWrite(args: {
  written: NetworkConfigRevisionStatus | undefined;
  next: NetworkConfigRevisionStatus;
  lastWriteAt: number | undefined;
  mono: number;
  intervalMs?: number;
}): StatusWriteDecision {
  const written = args.written ?? {};
  if (canonicalJson(written) === canonicalJson(args.next)) return { action: 'skip' };
  if (recordKey(written) !== recordKey(args.next)) return { action: 'write', change: 'record' };
  const interval = args.intervalMs ?? STATUS_COUNT_INTERVAL_MS;
  const since = args.lastWriteAt === undefined ? Infinity : args.mono - args.lastWriteAt;
  return since >= interval
    ? { action: 'write', change: 'counts' }
    : { action: 'wait', dueInMs: interval - since };
}

/** The times of this configurator's status writes, per revision; bounded by the revisions written within one interval. */
export class StatusPace {
  private lastWrite = new Map<string, number>();
  private firstDue: number | undefined;

  constructor(private readonly intervalMs = STATUS_COUNT_INTERVAL_MS) {}

  /**
   * The status updates of this pass to write at `mono` (each counts as written then); the others
   * wait (see nextDueInMs). `written` is the status the revision carries now.
   */
  due(
    updates: readonly StatusUpdate[],
    written: (revision: string) => NetworkConfigRevisionStatus | undefined,
    mono: number,
  ): StatusUpdate[] {
    for (const [name, at] of this.lastWrite) if (mono - at >= this.intervalMs) this.lastWrite.delete(name);
    this.firstDue = undefined;
    const out: StatusUpdate[] = [];
    for (const u of updates) {
      const d = decideStatusWrite({
        written: written(u.revision),
        next: u.status,
        lastWriteAt: this.lastWrite.get(u.revision),
        mono,
        intervalMs: this.intervalMs,
      });
      if (d.action === 'write') {
        this.lastWrite.set(u.revision, mono);
        out.push(u);
      } else if (d.action === 'wait') this.firstDue = Math.min(this.firstDue ?? Infinity, mono + d.dueInMs);
    }
    return out;
  }

  /** How long until the first deferred count write is due (undefined: none waits). */
  nextDueInMs(mono: number): number | undefined {
    return this.firstDue === undefined ? undefined : Math.max(0, this.firstDue - mono);
  }
}
