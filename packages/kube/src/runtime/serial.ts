/**
 * Runs async functions one at a time, in call order: each starts when the previous one settled, and a
 * failure is returned to its own caller without stopping the ones queued after it.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.tail.then(fn, fn);
    this.tail = next.catch(() => undefined);
    return next;
  }
}
