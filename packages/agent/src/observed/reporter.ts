/**
 * Keeps `NodeConfig.status.observed` current: reads FRR every `intervalMs` (and at once when poked,
 * e.g. after a reconcile), writes only when the state changed and at most once per `intervalMs` on
 * the monotonic clock (decide.ts). A failed write is retried at the next permitted time; it never
 * touches the apply pipeline. While nothing changes the reads slow down (bounded, see
 * `maxIntervalMs`): an idle node's FRR is asked a few times a minute, not six. The patch names `status.observed` only, so it never overwrites what
 * the status reporter (status/status.ts) writes, and vice versa.
 */
import { abortableSleep } from '@nodenet/kube';
import type { ObservedState } from '@nodenet/api';
import { decideObservedWrite, sameObserved, stabilizeSince, type ObservedWriteDecision } from './decide.js';

export interface ObservedReporterOptions {
  /** One read of FRR's state (never throws: what could not be read is in `error`). */
  read: () => Promise<ObservedState>;
  /** Writes `status.observed` (the patch of decide.ts's `observedPatch`). Rejects on failure. */
  write: (observed: ObservedState) => Promise<void>;
  /** Poll period, and the least time between two writes. */
  intervalMs: number;
  /**
   * While reads show nothing new, the poll period doubles up to this bound (default 4 × intervalMs);
   * a change or a write brings it back to `intervalMs`.
   */
  maxIntervalMs?: number;
  /** Monotonic milliseconds, e.g. `() => performance.now()`. */
  monotonicMs: () => number;
  /** Injected for tests; resolves after `ms` or early when aborted. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Every read, written or not (the Node condition looks at whether FRR answered). */
  onRead?: (observed: ObservedState) => void;
  onWritten?: (observed: ObservedState) => void;
  onWriteError?: (error: unknown) => void;
}

export class ObservedReporter {
  /** What the API shows as far as this process knows. */
  private written?: ObservedState;
  private lastWriteAtMs?: number;
  private latestRead?: ObservedState;
  private loop?: Promise<void>;
  private wake?: AbortController;
  private readonly stopping = new AbortController();
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;

  constructor(private readonly options: ObservedReporterOptions) {
    this.sleep = options.sleep ?? abortableSleep;
  }

  /** The last state read from FRR. */
  get latest(): ObservedState | undefined {
    return this.latestRead;
  }

  /**
   * What the NodeConfig in the API shows now (from the informer). A NodeConfig re-created or with
   * its status wiped no longer shows what was written: the next read writes it again.
   */
  seenInApi(observed: ObservedState | undefined): void {
    this.written = observed;
  }

  /** One round: read, decide, maybe write. Returns the decision (for logs and tests). */
  async tick(): Promise<ObservedWriteDecision> {
    const read = await this.options.read();
    const candidate = stabilizeSince(this.written ?? this.latestRead, read);
    this.latestRead = candidate;
    this.options.onRead?.(candidate);
    const decision = decideObservedWrite({
      written: this.written,
      candidate,
      lastWriteAtMs: this.lastWriteAtMs,
      nowMs: this.options.monotonicMs(),
      minIntervalMs: this.options.intervalMs,
    });
    if (decision.kind !== 'write') return decision;
    // Counted from the attempt: a failing API server is retried at the same pace, not faster.
    this.lastWriteAtMs = this.options.monotonicMs();
    try {
      await this.options.write(candidate);
      this.written = candidate;
      this.options.onWritten?.(candidate);
    } catch (err) {
      this.options.onWriteError?.(err);
    }
    return decision;
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Read now instead of at the next period (the write is still rate-limited). */
  poke(): void {
    this.wake?.abort();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    this.wake?.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    const base = this.options.intervalMs;
    const max = Math.max(base, this.options.maxIntervalMs ?? 4 * base);
    let idleMs = base;
    while (!this.stopping.signal.aborted) {
      this.wake = new AbortController();
      const woken = this.wake.signal;
      const before = this.latestRead;
      const decision = await this.tick().catch((err: unknown) => {
        this.options.onWriteError?.(err);
        return { kind: 'unchanged' } as const;
      });
      if (this.stopping.signal.aborted) break;
      const quiet = decision.kind === 'unchanged' && sameObserved(before, this.latestRead);
      idleMs = quiet ? Math.min(idleMs * 2, max) : base;
      const waitMs = decision.kind === 'wait' ? decision.inMs : quiet ? idleMs : base;
      // A poke during the round counts: it asked for a read after what it saw.
      // A poke reads at once; whether that read shows something new decides the pace after it.
      if (!woken.aborted) await this.sleep(waitMs, AbortSignal.any([woken, this.stopping.signal]));
    }
  }
}
