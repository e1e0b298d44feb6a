/**
 * Leader election on a coordination.k8s.io/v1 Lease with client-go's semantics:
 * - a candidate takes the lease when it is free (empty holder) or when the record has not changed
 *   for `leaseDurationSeconds` as measured on the candidate's own clock since it last saw it change
 *   (clocks of different machines are never compared);
 * - the leader renews every `retryPeriod`; writes carry the resourceVersion, so of two candidates
 *   only one wins and the other gets a 409;
 * - a leader that has not renewed for `renewDeadline` (< lease duration) stops acting before the
 *   lease can look expired to anybody else; `isLeader()` turns false at that moment;
 * - on shutdown the leader releases the lease: empty holder, `leaseDurationSeconds: 1`.
 * Times are written as MicroTime (six fractional digits), which a real API server requires.
 */
import { V1MicroTime } from '@kubernetes/client-node';
import { isConflict, isNotFound } from '../client/errors.js';
import type { Lease, LeaseSpec, ResourceClient } from '../client/resources.js';
import { abortableSleep } from '../runtime/sleep.js';

export interface LeaderElectionConfig {
  namespace: string;
  name: string;
  identity: string;
  /** How long a lease is valid after its last change, as seen by others. Default 15 s. */
  leaseDurationMs?: number;
  /** A leader that could not renew for this long stops acting. Default 10 s. */
  renewDeadlineMs?: number;
  /** Interval between attempts to acquire or renew. Default 2 s. */
  retryPeriodMs?: number;
}

export interface LeaderCallbacks {
  onStartedLeading?: () => void;
  onStoppedLeading?: (reason: string) => void;
  onNewLeader?: (identity: string) => void;
  onError?: (err: unknown) => void;
  /** A write of the lease succeeded; `startedMs` is when the attempt began (the elector's clock). */
  onRenewed?: (startedMs: number) => void;
}

/** MicroTime as the API server expects it: RFC 3339 with exactly six fractional digits. */
export const microTime = (d: Date): string => new V1MicroTime(d.getTime()).toISOString();

export type LeaseDecision =
  | { action: 'create'; spec: LeaseSpec }
  | { action: 'update'; spec: LeaseSpec }
  | { action: 'wait'; holder: string; reason: string };

/**
 * The pure core of one acquire-or-renew attempt. `observedAtMs` is the local monotonic time at which
 * the current record was first seen in this form; `nowMs` the local monotonic time now.
 */
export function decideLease(args: {
  current: LeaseSpec | undefined;
  observedAtMs: number;
  nowMs: number;
  wallNow: Date;
  identity: string;
  leaseDurationSeconds: number;
}): LeaseDecision {
  const { current, identity } = args;
  const now = microTime(args.wallNow);
  const fresh: LeaseSpec = {
    holderIdentity: identity,
    leaseDurationSeconds: args.leaseDurationSeconds,
    acquireTime: now,
    renewTime: now,
    leaseTransitions: 0,
  };
  if (!current) return { action: 'create', spec: fresh };
  const holder = current.holderIdentity ?? '';
  const iAmHolder = holder === identity;
  if (holder !== '' && !iAmHolder) {
    const durationMs = (current.leaseDurationSeconds ?? args.leaseDurationSeconds) * 1000;
    if (args.observedAtMs + durationMs > args.nowMs) {
      return { action: 'wait', holder, reason: `lease held by ${holder} and not expired` };
    }
  }
  if (iAmHolder) {
    return {
      action: 'update',
      spec: {
        ...fresh,
        acquireTime: current.acquireTime ?? now,
        leaseTransitions: current.leaseTransitions ?? 0,
      },
    };
  }
  return { action: 'update', spec: { ...fresh, leaseTransitions: (current.leaseTransitions ?? 0) + 1 } };
}

export class LeaderElector {
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private observedRaw = '';
  private observedAtMs = 0;
  private observed: Lease | undefined;
  private lastRenewMs = -Infinity;
  private leading = false;
  private lastHolder = '';
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;

  constructor(
    private readonly leases: ResourceClient<Lease>,
    readonly config: LeaderElectionConfig,
    private readonly callbacks: LeaderCallbacks = {},
    private readonly monotonic: () => number = () => performance.now(),
  ) {
    this.leaseDurationMs = config.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = config.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = config.retryPeriodMs ?? 2_000;
    if (!(this.renewDeadlineMs < this.leaseDurationMs)) {
      throw new Error(
        `leader election: renewDeadline (${this.renewDeadlineMs} ms) must be shorter than leaseDuration (${this.leaseDurationMs} ms)`,
      );
    }
    if (!(this.retryPeriodMs < this.renewDeadlineMs)) {
      throw new Error(
        `leader election: retryPeriod (${this.retryPeriodMs} ms) must be shorter than renewDeadline (${this.renewDeadlineMs} ms)`,
      );
    }
  }

  get identity(): string {
    return this.config.identity;
  }

  /** True only while this candidate holds the lease and renewed it within the renew deadline. */
  isLeader(): boolean {
    return this.leading && this.monotonic() - this.lastRenewMs < this.renewDeadlineMs;
  }

  /** Starts campaigning in the background. */
  start(): void {
    if (!this.loop) this.loop = this.run();
  }

  /**
   * Stops campaigning; a leader releases the lease so another candidate can take over at once.
   * Resolves false when it led and the release failed (the lease then expires on its own).
   */
  async stop(): Promise<boolean> {
    this.abort.abort();
    await this.loop;
    if (!this.leading) return true;
    this.leading = false;
    const released = await this.release();
    this.callbacks.onStoppedLeading?.('shutdown');
    return released;
  }

  private async run(): Promise<void> {
    const signal = this.abort.signal;
    while (!signal.aborted) {
      // Acquire: retry every retryPeriod until the lease is ours.
      while (!signal.aborted && !(await this.tryAcquireOrRenew())) {
        await abortableSleep(jitter(this.retryPeriodMs), signal);
      }
      if (signal.aborted) return;
      this.leading = true;
      this.callbacks.onStartedLeading?.();
      // Renew until a renewal could not be made within the renew deadline.
      while (!signal.aborted) {
        await abortableSleep(this.retryPeriodMs, signal);
        if (signal.aborted) return;
        let renewed = false;
        while (!signal.aborted && this.monotonic() - this.lastRenewMs < this.renewDeadlineMs) {
          if (await this.tryAcquireOrRenew()) {
            renewed = true;
            break;
          }
          if (this.observedHolder() !== this.identity) break; // someone else holds it now
          await abortableSleep(Math.min(this.retryPeriodMs, this.renewDeadlineMs / 4), signal);
        }
        if (signal.aborted) return;
        if (!renewed) {
          this.leading = false;
          this.callbacks.onStoppedLeading?.(
            this.observedHolder() !== this.identity
              ? `lease taken by ${this.observedHolder() || '(nobody)'}`
              : `could not renew within ${this.renewDeadlineMs} ms`,
          );
          break;
        }
      }
    }
  }

  private observedHolder(): string {
    return this.observed?.spec?.holderIdentity ?? '';
  }

  /** One attempt; true when the lease is held by this candidate afterwards. */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const { namespace, name, identity } = this.config;
    // The moment the attempt starts: a renewal written now is at least this fresh for everybody.
    const startedMs = this.monotonic();
    try {
      let current: Lease | undefined;
      try {
        current = await this.leases.get(name, namespace);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      if (current) this.observe(current);
      const decision = decideLease({
        current: current?.spec,
        observedAtMs: this.observedAtMs,
        nowMs: this.monotonic(),
        wallNow: new Date(),
        identity,
        leaseDurationSeconds: Math.ceil(this.leaseDurationMs / 1000),
      });
      if (decision.action === 'wait') return false;
      let written: Lease;
      if (decision.action === 'create') {
        written = await this.leases.create({ metadata: { name, namespace }, spec: decision.spec });
      } else {
        written = await this.leases.update({ ...current!, metadata: current!.metadata, spec: decision.spec });
      }
      this.observe(written);
      this.lastRenewMs = startedMs;
      this.callbacks.onRenewed?.(startedMs);
      return true;
    } catch (err) {
      // 409: another candidate wrote first; it won this round.
      if (!isConflict(err)) this.callbacks.onError?.(err);
      return false;
    }
  }

  private observe(lease: Lease): void {
    const raw = JSON.stringify(lease.spec ?? {});
    if (raw !== this.observedRaw) {
      this.observedRaw = raw;
      this.observedAtMs = this.monotonic();
    }
    this.observed = lease;
    const holder = lease.spec?.holderIdentity ?? '';
    if (holder && holder !== this.lastHolder) {
      this.lastHolder = holder;
      this.callbacks.onNewLeader?.(holder);
    }
  }

  private async release(): Promise<boolean> {
    const { namespace, name } = this.config;
    try {
      const current = await this.leases.get(name, namespace);
      if ((current.spec?.holderIdentity ?? '') !== this.identity) return true;
      const now = microTime(new Date());
      await this.leases.update({
        ...current,
        spec: {
          holderIdentity: '',
          leaseDurationSeconds: 1,
          acquireTime: now,
          renewTime: now,
          leaseTransitions: current.spec?.leaseTransitions ?? 0,
        },
      });
      return true;
    } catch (err) {
      this.callbacks.onError?.(err);
      return false;
    }
  }
}

const jitter = (ms: number): number => ms * (1 + Math.random() * 0.2);
