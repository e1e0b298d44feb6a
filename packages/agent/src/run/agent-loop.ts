/**
 * The running agent: watches its own NodeConfig, feeds it to the pipeline (on every change and every
 * resync period, for drift repair), writes status through the retrying reporter and removes the
 * start-up taints after the first success. Everything Kubernetes-facing goes through
 * `@nodenet/kube`; the pipeline itself never sees the API.
 */
import { API_VERSION, ASSIGNED_AT_ANNOTATION, shortHash, type NodeConfig } from '@nodenet/api';
import {
  Coalescer,
  Informer,
  isNotFound,
  type Clients,
  type EventRecorder,
  type Node,
  type Probe,
} from '@nodenet/kube';
import { describeCause } from '../errors.js';
import type { AgentMetrics } from '../metrics.js';
import {
  nextResyncMs,
  STEP_REASON,
  type Logger,
  type Pipeline,
  type ReconcileOutcome,
  type StartOutcome,
} from '../apply/index.js';
import type { StatusReporter } from '../status/status.js';

/** Field selector for exactly one object name. Exact match: `node-1` never selects `node-10`. */
export const nameFieldSelector = (name: string): string => `metadata.name=${name}`;

export interface AgentLoopOptions {
  nodeName: string;
  clients: Clients;
  pipeline: Pipeline;
  status: StatusReporter;
  metrics: AgentMetrics;
  logger: Logger;
  /** Resync period while something changes; it doubles while resyncs find nothing (apply/drift.ts). */
  resyncMs: number;
  /** Events on the NodeConfig (applied, rolled back, drift repaired); best effort. */
  events?: EventRecorder;
  /** Every start-up and reconcile outcome, with the NodeConfig as the cache shows it now. */
  onOutcome?: (outcome: ReconcileOutcome | StartOutcome, nc?: NodeConfig) => void;
  /** A reconcile running longer than this makes /healthz fail (the loop is stuck). */
  stuckAfterMs?: number;
  now?: () => number;
}

/**
 * Serializes reconciles and coalesces triggers (`Coalescer`): while one runs, any number of new
 * triggers lead to exactly one more run with the newest object.
 */
export class AgentLoop {
  private readonly informer: Informer<NodeConfig>;
  private resyncTimer?: NodeJS.Timeout;
  private resyncDelayMs: number;
  private readonly runs: Coalescer;
  /** What asked for the next run (the first trigger since the last run began), for the log. */
  private cause?: string;
  private stopping?: Promise<void>;
  private runningSince?: number;
  private started = false;
  private recovered = false;
  private firstOutcome?: ReconcileOutcome['kind'];
  private startError?: string;
  private stopped = false;
  private readonly now: () => number;

  constructor(private readonly opts: AgentLoopOptions) {
    this.now = opts.now ?? Date.now;
    this.resyncDelayMs = opts.resyncMs;
    this.runs = new Coalescer(() => this.reconcileOnce(), 0);
    this.informer = new Informer(opts.clients.nodeConfig, {
      fieldSelector: nameFieldSelector(opts.nodeName),
      watchTimeoutSeconds: 300,
    });
  }

  /**
   * Recovers from a cut-off apply (pending.json: restore, report) before anything else, even when
   * the API server is unreachable or the agent turns out misconfigured. Retried until it works.
   * Once done, later calls return at once.
   */
  async recover(): Promise<void> {
    if (this.recovered) return;
    const { pipeline, logger } = this.opts;
    for (let attempt = 1; !this.stopped; attempt++) {
      try {
        const outcome = await pipeline.start();
        logger.info({ outcome }, 'start-up checks done');
        this.recordStart(outcome);
        break;
      } catch (err) {
        // e.g. the state dir cannot be created: keep serving /healthz with the reason, retry.
        this.startError = describeCause(err);
        logger.error({ err, attempt }, 'start-up failed; retrying');
        await new Promise((r) => setTimeout(r, Math.min(30_000, 1000 * 2 ** Math.min(attempt, 5))));
      }
    }
    this.startError = undefined;
    this.recovered = true;
  }

  async start(): Promise<void> {
    const { logger } = this.opts;
    await this.recover();
    if (this.stopped) return;
    this.started = true;
    this.runs.enable();
    this.informer.on((event) => {
      // Defence in depth: if a server ignored the field selector, never act on another node's object.
      if (event.object.metadata.name !== this.opts.nodeName) return;
      if (event.type === 'delete') {
        // Deleting the NodeConfig must not tear down the node's network: keep the last good config.
        logger.warn(
          { node: this.opts.nodeName },
          'NodeConfig deleted; keeping the current host configuration',
        );
        return;
      }
      this.trigger(event.type);
    });
    this.informer.onError((err) =>
      logger.warn({ err: describeCause(err) }, 'NodeConfig watch error; retrying'),
    );
    this.informer.start();
    const resync = (): void => {
      this.trigger('resync');
      this.resyncTimer = setTimeout(resync, this.resyncDelayMs);
      this.resyncTimer.unref();
    };
    this.resyncTimer = setTimeout(resync, this.resyncDelayMs);
    this.resyncTimer.unref();
  }

  /** No new reconcile from now on; one under way goes on (`idle()` waits for it). */
  stop(): void {
    this.stopped = true;
    this.informer.stop();
    if (this.resyncTimer) clearTimeout(this.resyncTimer);
    this.stopping = this.runs.stop();
  }

  /** After `stop()`: resolves when the reconcile under way (if any) has finished. */
  idle(): Promise<void> {
    return this.stopping ?? Promise.resolve();
  }

  trigger(cause: string): void {
    if (!this.started || this.stopped) return;
    this.cause ??= cause;
    this.runs.schedule(0);
  }

  private async reconcileOnce(): Promise<void> {
    const cause = this.cause ?? 'coalesced';
    this.cause = undefined;
    const nc = this.informer.get(this.opts.nodeName);
    if (!nc) {
      this.opts.logger.debug({ cause }, 'no NodeConfig for this node yet');
      return;
    }
    this.runningSince = this.now();
    try {
      this.opts.status.observe(nc);
      const outcome = await this.opts.pipeline.reconcile({
        spec: nc.spec,
        assignedAt: nc.metadata.annotations?.[ASSIGNED_AT_ANNOTATION],
        generation: nc.metadata.generation,
        observedStatus: nc.status,
      });
      this.firstOutcome ??= outcome.kind;
      this.resyncDelayMs = nextResyncMs(this.resyncDelayMs, this.opts.resyncMs, outcome);
      this.recordOutcome(outcome);
      this.opts.onOutcome?.(outcome, this.informer.get(this.opts.nodeName));
      this.opts.logger.debug({ cause, outcome: outcome.kind }, 'reconciled');
    } catch (err) {
      this.opts.logger.error({ err, cause }, 'reconcile failed unexpectedly; retrying at the next trigger');
    } finally {
      this.runningSince = undefined;
    }
  }

  private event(type: 'Normal' | 'Warning', reason: string, message: string): void {
    const events = this.opts.events;
    if (!events) return;
    const ref = { apiVersion: API_VERSION, kind: 'NodeConfig', metadata: { name: this.opts.nodeName } };
    void events.record(this.informer.get(this.opts.nodeName) ?? ref, type, reason, message);
  }

  private recordStart(outcome: StartOutcome): void {
    this.opts.onOutcome?.(outcome);
    if (outcome.kind === 'recovered') this.event('Warning', STEP_REASON.restart, outcome.message);
  }

  private recordOutcome(outcome: ReconcileOutcome): void {
    switch (outcome.kind) {
      case 'provisioned':
        this.event(
          'Normal',
          'Provisioned',
          `revision ${shortHash(outcome.revision)} applied; health: ${outcome.health.summary}`,
        );
        break;
      case 'invalid':
        this.event('Warning', STEP_REASON[outcome.step], outcome.message);
        break;
      case 'unchanged':
        if (outcome.error) this.event('Warning', 'DriftRepairFailed', outcome.error);
        else if (outcome.driftOperations > 0 || outcome.frrChanged) {
          this.event(
            'Normal',
            'DriftRepaired',
            `host had drifted from revision ${shortHash(outcome.revision)}: ${outcome.driftOperations} netlink operation(s)` +
              (outcome.frrChanged ? ', FRR reloaded' : '') +
              (outcome.frrDrift ? ` (FRR differed: ${outcome.frrDrift})` : ''),
          );
        }
        break;
      case 'error':
        this.event('Warning', 'ApplyNotStarted', outcome.message);
        break;
      case 'rejected':
        // A revision rejected earlier: its event was recorded then (as `invalid`).
        break;
    }
  }

  /** Liveness: fails only when a reconcile is stuck (a restart would help) or start-up keeps failing. */
  healthz(): Probe {
    if (this.startError) return { ok: false, detail: `start-up failing: ${this.startError}` };
    const limit = this.opts.stuckAfterMs ?? 15 * 60_000;
    if (this.runningSince !== undefined && this.now() - this.runningSince > limit) {
      return { ok: false, detail: `reconcile running for more than ${Math.round(limit / 1000)} s` };
    }
    return { ok: true, detail: 'alive' };
  }

  /** Readiness: start-up recovery done, NodeConfig cache synced, first reconcile finished. */
  readyz(): Probe {
    if (!this.started) return { ok: false, detail: 'start-up recovery not finished' };
    // A failed agent upgrade keeps the agent not ready: a DaemonSet rolling update stops here.
    const upgradeFailed = this.opts.pipeline.notReady;
    if (upgradeFailed) return { ok: false, detail: upgradeFailed };
    if (!this.informer.hasSynced) return { ok: false, detail: 'NodeConfig watch not synced' };
    if (!this.firstOutcome) {
      return {
        ok: false,
        detail: this.informer.size === 0 ? 'no NodeConfig for this node yet' : 'first reconcile running',
      };
    }
    return { ok: true, detail: `last outcome of first reconcile: ${this.firstOutcome}` };
  }
}

/**
 * Writes NodeConfig status with a merge patch on the status subresource. A field the report leaves
 * out is removed (`null`): a `RestoreFailed` report makes no `lastAppliedRevision` claim, a report
 * that is not `invalid` carries no `failureCause`, and a revision number the agent does not know is
 * not left from an earlier report.
 */
export function nodeConfigStatusWriter(clients: Clients, nodeName: string) {
  return async (status: NonNullable<NodeConfig['status']>): Promise<void> => {
    const patch = {
      status: {
        ...status,
        lastAppliedRevision: status.lastAppliedRevision ?? null,
        failureCause: status.failureCause ?? null,
        revisionNumber: status.revisionNumber ?? null,
        appliedRevisionNumber: status.appliedRevisionNumber ?? null,
      },
    };
    await clients.nodeConfig.patchStatus(nodeName, patch, undefined, { fieldManager: 'nodenet-agent' });
  };
}

/**
 * Removes the given taint keys from the Node. A JSON patch tests the resourceVersion, so a taint
 * another controller added meanwhile is never dropped; a conflict is retried by the caller.
 */
export async function removeStartupTaints(
  clients: Clients,
  nodeName: string,
  keys: string[],
  log: Logger,
): Promise<void> {
  if (keys.length === 0) return;
  let node: Node;
  try {
    node = await clients.node.get(nodeName);
  } catch (err) {
    if (isNotFound(err)) {
      log.warn({ node: nodeName }, 'Node object not found; no start-up taints to remove');
      return;
    }
    throw err;
  }
  const taints = node.spec?.taints ?? [];
  const remaining = taints.filter((t) => !keys.includes(t.key));
  if (remaining.length === taints.length) return;
  await clients.node.jsonPatch(nodeName, [
    { op: 'test', path: '/metadata/resourceVersion', value: node.metadata.resourceVersion },
    { op: 'replace', path: '/spec/taints', value: remaining },
  ]);
  log.info(
    { removed: taints.filter((t) => keys.includes(t.key)).map((t) => t.key) },
    'removed start-up taints from the Node',
  );
}
