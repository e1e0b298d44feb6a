/**
 * The apply pipeline's dispatcher: a state machine over injected boundaries (host drivers,
 * checkpoint store, health checks, status sink; ports.ts) with no I/O of its own, so its decisions
 * are unit-tested with in-memory drivers and exercised end to end with the real ones.
 *
 * It holds the state (decide.ts) between calls, serializes them, and runs the step `decide` names;
 * each step takes the ports and the state and returns the next state with its outcome:
 * `startUp` and `retryRestore` (restore.ts), `resync` and `keepRejected` (drift.ts), `applySpec`
 * (apply.ts, with the confirm window of confirm.ts). A spec that failed under the same `assigned-at`
 * is not applied again, unless it was only interrupted (failure-cause.ts). Status writes are
 * fire-and-forget: an unreachable API server never causes a rollback by itself.
 */
import { SerialQueue } from '@nodenet/kube';
import { applySpec } from './apply.js';
import { specHash } from './checkpoint.js';
import type { DesiredConfig, PipelineDeps, ReconcileOutcome, StartOutcome } from './contract.js';
import { decide, INITIAL_STATE, type PipelineState, type Stepped } from './decide.js';
import { keepRejected, resync } from './drift.js';
import { resolvePorts, type ApplyPorts } from './ports.js';
import { retryRestore, startUp } from './restore.js';
import { holdPrevious, upgradeOnce } from './upgrade.js';

export class Pipeline {
  private state: PipelineState = INITIAL_STATE;
  private startOutcome?: StartOutcome;
  private readonly queue = new SerialQueue();
  private readonly stopping = new AbortController();
  private readonly ports: ApplyPorts;

  constructor(deps: PipelineDeps) {
    this.ports = resolvePorts(deps, this.stopping.signal);
  }

  /** Why the agent is not ready: an agent upgrade that failed its window (upgrade.ts), else undefined. */
  get notReady(): string | undefined {
    return this.state.upgradeFailed?.message;
  }

  /** The last good config on the host, as the checkpoint records it. */
  get appliedRevision(): string | undefined {
    return this.state.applied?.revision;
  }

  /** Start-up: load the checkpoint and recover from an apply that was cut off. Call once, first. */
  start(): Promise<StartOutcome> {
    return this.queue.run(async () => (this.startOutcome ??= await this.startNow()));
  }

  /** Brings the host to `desired` (or keeps it there). Calls are serialized. */
  reconcile(desired: DesiredConfig): Promise<ReconcileOutcome> {
    return this.queue.run(() => this.reconcileNow(desired));
  }

  /** SIGTERM: a running step finishes; a confirm window ends at once and the host is restored. */
  stop(): void {
    this.stopping.abort();
  }

  private async startNow(): Promise<StartOutcome> {
    const outcome = this.take(await startUp(this.ports, this.state));
    this.ports.selectHealth(this.state.applied?.spec);
    return outcome;
  }

  private async reconcileNow(desired: DesiredConfig): Promise<ReconcileOutcome> {
    if (!this.state.started) await this.startNow();
    return this.take(await this.run(this.state, desired, specHash(desired.spec)));
  }

  /** Runs the step `decide` names for `desired` in `state`; a restore retried first is one more turn. */
  private async run(
    state: PipelineState,
    desired: DesiredConfig,
    hash: string,
  ): Promise<Stepped<ReconcileOutcome>> {
    const { ports } = this;
    const step = decide(state, { hash, assignedAt: desired.assignedAt });
    switch (step) {
      case 'recover-first': {
        const restored = await retryRestore(ports, state);
        return restored.recoveryNeeded
          ? {
              state: restored,
              outcome: { kind: 'error', message: 'restore of the last good checkpoint is still failing' },
            }
          : this.run(restored, desired, hash);
      }
      case 'resync': {
        const upgraded = await upgradeOnce(ports, state, desired);
        if (upgraded.outcome) return upgraded;
        const now = upgraded.state;
        return now.upgradeFailed
          ? holdPrevious(ports, { ...now, upgradeFailed: now.upgradeFailed }, desired)
          : resync(ports, now, desired);
      }
      case 'keep-rejected':
        return keepRejected(ports, state, desired);
      case 'retry-interrupted':
        // An interrupted attempt is tried again only once the API server answers (not mid-outage).
        return (await ports.apiAnswers())
          ? applySpec(ports, state, desired, hash)
          : keepRejected(ports, state, desired);
      case 'apply':
        // A new revision is rendered by this binary and confirmed as such: no upgrade left to check.
        return applySpec(ports, { ...state, upgradeChecked: true, upgradeFailed: undefined }, desired, hash);
    }
  }

  private take<O>(stepped: Stepped<O>): O {
    this.state = stepped.state;
    return stepped.outcome;
  }
}
