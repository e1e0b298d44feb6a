/**
 * When the build step runs (pure, on this process's monotonic clock). Level-triggered: the build
 * is owed while anything it reads changed since its last complete run, or while the inputs differ
 * from every revision; a run that fails stays owed and is retried with a bounded backoff.
 *
 * One change, one revision: objects applied together (`kubectl apply -f` of a file or a folder)
 * arrive as a burst of events, so a build waits for a settled view: `quietMs` without a new input
 * event, but never longer than `maxDelayMs` after the first unbuilt one, so a steady trickle still
 * builds. Only changes of what the inputs say (added, deleted, a new generation) start or extend
 * the wait; revision changes are built at once, the inputs' status writes (ours) not at all.
 */
import { backoffDelay } from '@nodenet/kube';
import { RETRY_ANNOTATION, findCondition, type NetworkConfigRevision } from '@nodenet/api';
import { WAITING_FOR_UNAVAILABLE } from '../rollout/index.js';

export interface BuildTiming {
  /** Quiet period after the last input event. */
  quietMs: number;
  /** Longest wait after the first unbuilt input event. */
  maxDelayMs: number;
  /** First retry delay after a failed build; doubles up to `maxBackoffMs`. */
  backoffMs: number;
  maxBackoffMs: number;
}

export const DEFAULT_BUILD_TIMING: BuildTiming = {
  quietMs: 2000,
  maxDelayMs: 20_000,
  backoffMs: 500,
  maxBackoffMs: 30_000,
};

export interface InputIdentity {
  kind?: string;
  metadata: { name: string; generation?: number };
}

export type BuildVerdict = { run: true } | { run: false; waitMs?: number };

export class BuildSchedule {
  /** Something the build reads changed since the last complete run. */
  private owed = true;
  /** Monotonic times of the first and the last input event not yet built. */
  private firstEvent: number | undefined;
  private lastEvent: number | undefined;
  /** Counts input events, to tell whether one came in during a run. */
  private events = 0;
  private failures = 0;
  private retryAt = 0;

  constructor(private readonly timing: BuildTiming = DEFAULT_BUILD_TIMING) {}

  /** Per input (`Kind/name`), its generation and when this instance first saw it. */
  private readonly seen = new Map<string, { generation: number; seq: number }>();
  private seq = 0;

  /**
   * An informer event of an input: a new generation, an input added or deleted, starts or extends
   * the quiet period; a status write (ours) owes no build.
   */
  inputEvent(e: { type: string; object: InputIdentity }, mono: number): void {
    const key = `${e.object.kind ?? ''}/${e.object.metadata.name}`;
    const generation = e.object.metadata.generation ?? 0;
    if (e.type === 'delete') this.seen.delete(key);
    // The same generation: a status write, almost always the one the build just made (the cache
    // holds it already); building again would only find nothing to do. A write that failed keeps
    // the build owed by itself.
    else if (this.seen.get(key)?.generation === generation) return;
    else this.seen.set(key, { generation, seq: ++this.seq });
    this.inputChanged(mono);
  }

  /** Larger is newer: the order in which this instance saw the inputs' current generations. */
  recency(o: InputIdentity): number {
    return this.seen.get(`${o.kind ?? ''}/${o.metadata.name}`)?.seq ?? 0;
  }

  /** What the inputs say changed (an input added, deleted or given a new generation). */
  inputChanged(mono: number): void {
    this.owed = true;
    this.events++;
    this.firstEvent ??= mono;
    this.lastEvent = mono;
  }

  /** Something else the build reads changed (an input's status, a revision): build without waiting. */
  changed(): void {
    this.owed = true;
  }

  /** Build now, no wait (leadership gained, start-up): the view is a fresh list. */
  reset(): void {
    this.owed = true;
    this.firstEvent = undefined;
    this.lastEvent = undefined;
    this.failures = 0;
    this.retryAt = 0;
  }

  /** Whether to run the build in a pass at `mono`; `behind`: the inputs differ from every revision. */
  decide(mono: number, behind: boolean): BuildVerdict {
    if (!this.owed && !behind) return { run: false };
    if (mono < this.retryAt) return { run: false, waitMs: this.retryAt - mono };
    if (this.firstEvent !== undefined && this.lastEvent !== undefined) {
      const due = Math.min(this.lastEvent + this.timing.quietMs, this.firstEvent + this.timing.maxDelayMs);
      if (mono < due) return { run: false, waitMs: due - mono };
    }
    return { run: true };
  }

  /** A run starts: returns a token for `finished`. */
  started(): number {
    this.owed = false;
    const token = this.events;
    this.firstEvent = undefined;
    this.lastEvent = undefined;
    return token;
  }

  /** A run ended; `complete` false: a write failed, retry after the backoff. Returns that delay, if any. */
  finished(token: number, complete: boolean, mono: number): number | undefined {
    if (this.events !== token) this.owed = true; // an input event came in during the run
    if (complete) {
      this.failures = 0;
      this.retryAt = 0;
      return undefined;
    }
    this.owed = true;
    const delay = backoffDelay(
      { initialMs: this.timing.backoffMs, maxMs: this.timing.maxBackoffMs, factor: 2 },
      this.failures + 1,
    );
    this.failures = Math.min(this.failures + 1, 30);
    this.retryAt = mono + delay;
    return delay;
  }
}

/** What the build step reads from a revision (status counts excluded). */
export function revisionBuildKey(r: NetworkConfigRevision): string {
  // The high-water mark annotation is left out: it matters only when a revision is created, which
  // one of these facts changing (or an input) causes anyway.
  const retry = r.metadata.annotations?.[RETRY_ANNOTATION] ?? '';
  // Completion, the phase, waiting only for unavailable nodes and whether it ran well too: Applied
  // (outcome.ts), suspects' entries (issue 35).
  const waiting = findCondition(r.status?.conditions, 'Progressing')?.reason === WAITING_FOR_UNAVAILABLE;
  return `${r.metadata.name}|${r.spec.number}|${r.spec.hash}|${r.status?.isInvalid === true}|${retry}|${r.spec.retryOf ?? ''}|${r.status?.phase ?? ''}|${r.status?.completedAt ?? ''}|${r.status?.ranAt ?? ''}|${r.status?.failed ?? 0}|${waiting}`;
}
