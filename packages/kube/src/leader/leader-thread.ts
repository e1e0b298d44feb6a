/**
 * Leader election that seconds of synchronous work on the main thread cannot starve. A build at
 * the size budget is seconds of CPU; on one thread the renew timer waits behind it, and at load the
 * leader once outran its renew deadline in the middle of a build. Here the LeaderElector
 * (leader.ts, unchanged semantics) runs in a worker thread with its own API connection, and the
 * main thread reads the outcome from shared memory:
 * - `isLeader()` is true only while the thread leads, the main thread has handled the `started`
 *   callback, and the last renewal began within the renew deadline on the process-wide monotonic
 *   clock — so it turns false on time even while the thread's messages wait behind the main thread;
 * - the callbacks arrive as messages, in order, when the main thread is free;
 * - `stop()` asks the thread to release the Lease, then ends it.
 */
import { Worker } from 'node:worker_threads';
import type { LeaderCallbacks, LeaderElectionConfig } from './leader.js';
import { LEADING, RENEWED_AT, SHARED_SLOTS, monotonicNs, type LeaderThreadMessage } from './leader-shared.js';

/**
 * Run from the TypeScript sources (tests, from the repository), the thread loads them through tsx,
 * registered in the thread itself (a worker's `--import` does not reach its module loader).
 */
const fromSources = import.meta.url.endsWith('.ts');
const WORKER = new URL(fromSources ? './leader-worker.ts' : './leader-worker.js', import.meta.url);
const THROUGH_TSX = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(WORKER.href)}); });`;

export class LeaderElectorThread {
  private readonly state = new BigInt64Array(new SharedArrayBuffer(SHARED_SLOTS * 8));
  private readonly renewDeadlineNs: bigint;
  private worker: Worker | undefined;
  /** The main thread handled `started` (and no `stopped` since). */
  private announced = false;
  private finished: Promise<boolean> | undefined;
  private stopping = false;

  constructor(
    readonly config: LeaderElectionConfig,
    private readonly kubeconfigPath: string | undefined,
    private readonly callbacks: LeaderCallbacks = {},
  ) {
    this.renewDeadlineNs = BigInt(config.renewDeadlineMs ?? 10_000) * 1_000_000n;
  }

  get identity(): string {
    return this.config.identity;
  }

  /** True only while the lease is held and was renewed within the renew deadline. */
  isLeader(): boolean {
    return (
      this.announced &&
      Atomics.load(this.state, LEADING) === 1n &&
      monotonicNs() - Atomics.load(this.state, RENEWED_AT) < this.renewDeadlineNs
    );
  }

  /** Starts campaigning in the thread. */
  start(): void {
    if (this.worker) return;
    const workerData = { config: this.config, kubeconfigPath: this.kubeconfigPath, state: this.state.buffer };
    const worker = fromSources
      ? new Worker(THROUGH_TSX, { eval: true, workerData })
      : new Worker(WORKER, { workerData });
    this.worker = worker;
    let resolveDone!: (released: boolean) => void;
    this.finished = new Promise((r) => (resolveDone = r));
    worker.on('message', (m: LeaderThreadMessage) => {
      if (m.type === 'done') resolveDone(m.released);
      else this.handle(m);
    });
    worker.on('error', (err) => this.callbacks.onError?.(err));
    worker.on('exit', (code) => {
      Atomics.store(this.state, LEADING, 0n);
      if (this.announced) this.handle({ type: 'stopped', reason: `leader election thread exited (${code})` });
      resolveDone(false);
      // A thread that died on its own (not asked to stop) is started again: never a silent standby.
      if (this.stopping) return;
      this.worker = undefined;
      setTimeout(() => !this.stopping && this.start(), this.config.retryPeriodMs ?? 2_000).unref();
    });
  }

  /**
   * Stops campaigning; a leader releases the lease so another candidate can take over at once.
   * Resolves false when it led and the release failed (the lease then expires on its own).
   */
  async stop(): Promise<boolean> {
    this.stopping = true;
    const worker = this.worker;
    if (!worker || !this.finished) return true;
    worker.postMessage({ type: 'stop' });
    const released = await this.finished;
    await worker.terminate();
    return released;
  }

  private handle(m: Exclude<LeaderThreadMessage, { type: 'done' }>): void {
    switch (m.type) {
      case 'started':
        this.announced = true;
        this.callbacks.onStartedLeading?.();
        return;
      case 'stopped':
        if (!this.announced) return;
        this.announced = false;
        this.callbacks.onStoppedLeading?.(m.reason);
        return;
      case 'newLeader':
        this.callbacks.onNewLeader?.(m.holder);
        return;
      case 'error':
        this.callbacks.onError?.(new Error(m.text));
    }
  }
}
