/**
 * Coalesces "look again" requests into one run at a time: a request during a run causes exactly one
 * more run afterwards, and the earliest requested time wins.
 *
 * Events (a request without a delay) are gathered while they keep coming: the run starts once they
 * have been quiet for `gapMs`, and never later than `windowMs` after the first of them. A burst (the
 * reports of a wave of nodes, one `kubectl apply` of a folder) shares one run, and a lone event is
 * served after the short gap instead of the whole window: a rollout's every step used to wait the
 * window. Delays are clamped: setTimeout fires at once for anything above 2^31-1 ms, which would turn
 * a far deadline into a busy loop.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** How long gathered events wait: quiet gap and longest window. */
export interface GatherTiming {
  windowMs: number;
  gapMs: number;
}

/**
 * When the run for gathered events is due (pure): `gapMs` after the latest event, but no later than
 * `windowMs` after the first one still waiting.
 */
export function gatheredRunAt(t: GatherTiming, firstEventAt: number, now: number): number {
  return Math.min(firstEventAt + t.windowMs, now + Math.min(t.gapMs, t.windowMs));
}

/** The quiet gap when none is given: short enough to be unnoticed, long enough to take in a burst. */
const DEFAULT_GAP_MS = 5;

export class Coalescer {
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  /** The pending timer was set for gathered events (a later event may move it, within the window). */
  private timerGathers = false;
  /** The first event still waiting for its run. */
  private firstEventAt: number | undefined;
  private running: Promise<void> | undefined;
  private rerun = false;
  private enabled = false;
  private readonly timing: GatherTiming;

  constructor(
    private readonly run: () => Promise<void>,
    windowMs: number,
    gapMs = DEFAULT_GAP_MS,
  ) {
    this.timing = { windowMs, gapMs };
  }

  /** Runs may start from now on (requests before are dropped). */
  enable(): void {
    this.enabled = true;
  }

  /**
   * Asks for a run: without a delay, as an event (gathered with the events around it); with one,
   * within `delayMs`.
   */
  schedule(delayMs?: number): void {
    if (!this.enabled) return;
    const now = performance.now();
    if (delayMs === undefined) {
      this.firstEventAt ??= now;
      const at = gatheredRunAt(this.timing, this.firstEventAt, now);
      // An event moves a gathering timer (later while the burst goes on, never past the window);
      // an explicit timer that is due earlier stays.
      if (this.timer && !this.timerGathers && this.timerAt <= at) return;
      this.setTimer(at, true);
      return;
    }
    const delay = Math.min(Math.max(0, Number.isFinite(delayMs) ? delayMs : MAX_TIMER_MS), MAX_TIMER_MS);
    const at = now + delay;
    if (this.timer && this.timerAt <= at) return;
    this.setTimer(at, false);
  }

  private setTimer(at: number, gathers: boolean): void {
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timerGathers = gathers;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.timerAt = Infinity;
        this.firstEventAt = undefined;
        this.kick();
      },
      Math.min(Math.max(0, at - performance.now()), MAX_TIMER_MS),
    );
  }

  private kick(): void {
    if (this.running) {
      this.rerun = true;
      return;
    }
    this.running = this.run().finally(() => {
      this.running = undefined;
      if (this.rerun) {
        // The requests that arrived during the run have waited for it already (that is what set
        // `rerun`): run again at once instead of gathering again.
        this.rerun = false;
        this.schedule(0);
      }
    });
  }

  /** No more runs; resolves when the current one has finished. */
  async stop(): Promise<void> {
    this.enabled = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
