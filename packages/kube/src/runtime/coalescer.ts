/**
 * Coalesces "look again" requests into one run at a time: requests within the window share a run, a
 * request during a run causes exactly one more run afterwards, and the earliest requested time wins.
 * Delays are clamped: setTimeout fires at once for anything above 2^31-1 ms, which would turn a far
 * deadline into a busy loop.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export class Coalescer {
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private running: Promise<void> | undefined;
  private rerun = false;
  private enabled = false;

  constructor(
    private readonly run: () => Promise<void>,
    private readonly windowMs: number,
    private readonly maxDelayMs = MAX_TIMER_MS,
  ) {}

  /** Runs may start from now on (requests before are dropped). */
  enable(): void {
    this.enabled = true;
  }

  /** Asks for a run within `delayMs` (the coalescing window by default). */
  schedule(delayMs = this.windowMs): void {
    if (!this.enabled) return;
    const delay = Math.min(
      Math.max(0, Number.isFinite(delayMs) ? delayMs : this.maxDelayMs),
      this.maxDelayMs,
      MAX_TIMER_MS,
    );
    const at = performance.now() + delay;
    if (this.timer && this.timerAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.kick();
    }, delay);
  }

  private kick(): void {
    if (this.running) {
      this.rerun = true;
      return;
    }
    this.running = this.run().finally(() => {
      this.running = undefined;
      if (this.rerun) {
        // The window of the requests that arrived during the run has already elapsed (that is what
        // set `rerun`): run again at once instead of waiting another window.
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
