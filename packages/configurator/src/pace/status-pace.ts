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
import { canonicalJson, type Condition, type NetworkConfigRevisionStatus } from '@nodenet/api';
import type { StatusUpdate } from '../rollout/index.js';

/** How long the node counts of a revision's status may lag behind. */
export const STATUS_COUNT_INTERVAL_MS = 1000;

export type StatusWriteDecision =
  { action: 'skip' } | { action: 'write'; change: 'record' | 'counts' } | { action: 'wait'; dueInMs: number };

/**
 * A status with node counts: a revision's, or the RolloutPolicy's summary of the desired one
 * (policy/fleet-policy.ts), which changes with it.
 */
export type CountedStatus = Pick<
  NetworkConfigRevisionStatus,
  'total' | 'queued' | 'ongoing' | 'ready' | 'unchanged' | 'ranOn'
> & { conditions?: Condition[] };

/** What a status says apart from its node counts: conditions without their messages. */
function recordKey(s: CountedStatus): string {
  const {
    total: _t,
    queued: _q,
    ongoing: _o,
    ready: _r,
    unchanged: _u,
    ranOn: _ran,
    conditions,
    ...rest
  } = s;
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
  written: CountedStatus | undefined;
  next: CountedStatus;
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
    return updates.filter((u) => this.dueOne(u.revision, written(u.revision), u.status, mono));
  }

  /**
   * Whether to write one more status of this pass (the RolloutPolicy's), under `key`; call after
   * `due` (which starts the pass's reckoning of what waits).
   */
  dueOne(key: string, written: CountedStatus | undefined, next: CountedStatus, mono: number): boolean {
    const d = decideStatusWrite({
      written,
      next,
      lastWriteAt: this.lastWrite.get(key),
      mono,
      intervalMs: this.intervalMs,
    });
    if (d.action === 'wait') this.firstDue = Math.min(this.firstDue ?? Infinity, mono + d.dueInMs);
    if (d.action !== 'write') return false;
    this.lastWrite.set(key, mono);
    return true;
  }

  /** How long until the first deferred count write is due (undefined: none waits). */
  nextDueInMs(mono: number): number | undefined {
    return this.firstDue === undefined ? undefined : Math.max(0, this.firstDue - mono);
  }
}
