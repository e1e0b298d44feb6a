/**
 * The work queue of the built-in controllers: follow-up work (GC, namespace cleanup, CRD conditions)
 * runs on a later turn of the event loop, as the real controllers do it asynchronously.
 */
import { ApiError } from '../../objects/errors.js';

export class ControllerQueue {
  private readonly queue: (() => void)[] = [];
  private drainScheduled = false;
  private stopped = false;

  enqueue(work: () => void): void {
    if (this.stopped) return;
    this.queue.push(work);
    if (!this.drainScheduled) {
      this.drainScheduled = true;
      setImmediate(() => this.drain());
    }
  }

  /** Resolves once the queue is empty. */
  async settle(): Promise<void> {
    while (this.queue.length || this.drainScheduled) await new Promise((r) => setImmediate(r));
  }

  stop(): void {
    this.stopped = true;
    this.queue.length = 0;
  }

  private drain(): void {
    this.drainScheduled = false;
    let n = 0;
    while (this.queue.length && !this.stopped) {
      const work = this.queue.shift();
      try {
        work?.();
      } catch (e) {
        // A controller step losing a race (object changed or vanished meanwhile) is retried by the
        // next event touching the object, as with the real controllers; nothing to report here.
        if (!(e instanceof ApiError)) console.error('devcluster controller error:', e);
      }
      // yield to I/O now and then so a large cascade does not stall requests
      if (++n >= 500 && this.queue.length) {
        this.drainScheduled = true;
        setImmediate(() => this.drain());
        return;
      }
    }
  }
}
