/**
 * The controller: informers feed a coalescing scheduler; each pass builds a revision when the inputs
 * changed, asks the planner what to do and carries it out. Only the leader acts; a standby keeps
 * its caches warm so that it can take over at once.
 */
import {
  ASSIGNED_AT_ANNOTATION,
  REVISION_NUMBER_LABEL,
  type InputObject,
  type Inputs,
  type NetworkConfigRevision,
  type NodeConfig,
} from '@nodenet/api';
import {
  EventRecorder,
  Informer,
  KubeApiError,
  isAlreadyExists,
  isConflict,
  isNotFound,
  isNodeReady,
  type Clients,
  type Node,
  type ResourceClient,
} from '@nodenet/kube';
import type { Logger } from 'pino';
import { rfc3339Millis } from './conditions.js';
import type { Metrics } from './metrics.js';
import { plan, type Action, type NodeInfo, type Plan } from './planner.js';
import type { Policy } from './policy.js';
import { buildRevision } from './revisions.js';
import { NodeSpecCache } from './node-specs.js';

export const COMPONENT = 'nodenet-configurator';
/** Which configurator instance made an assignment (for audits and the two-leader test). */
export const ASSIGNED_BY_ANNOTATION = 'network.nodenet.io/assigned-by';

export interface ControllerOptions {
  clients: Clients;
  policy: Policy;
  log: Logger;
  metrics: Metrics;
  identity: string;
  /** Whether this instance may act right now (leader election). Default: always. */
  isLeader?: () => boolean;
  /** Events are coalesced into one pass over this window. Default 50 ms. */
  coalesceMs?: number;
  /** Namespace for Events about cluster-scoped objects. Default `default`. */
  eventNamespace?: string;
  /** Informer resync period. Default 5 min. */
  resyncMs?: number;
  /** Parallel writes per pass. Default 64. */
  writeConcurrency?: number;
}

type Informers = {
  vrf: Informer<Inputs['vrf'][number]>;
  layer2: Informer<Inputs['layer2'][number]>;
  routingTable: Informer<Inputs['routingTable'][number]>;
  revision: Informer<NetworkConfigRevision>;
  nodeConfig: Informer<NodeConfig>;
  node: Informer<Node>;
};

export class Controller {
  readonly informers: Informers;
  private readonly events: EventRecorder;
  private readonly log: Logger;
  private readonly isLeader: () => boolean;
  private readonly coalesceMs: number;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private running: Promise<void> | undefined;
  private rerun = false;
  private stopped = true;
  private inputsDirty = true;
  private lastBuildNote = '';
  private errorBackoffMs = 250;
  private lastPlan: Plan | undefined;
  private synced = false;
  private readonly specs = new NodeSpecCache();

  constructor(private readonly opts: ControllerOptions) {
    const c = opts.clients;
    const resync = opts.resyncMs ?? 300_000;
    this.informers = {
      vrf: new Informer(c.vrf, { resyncMs: resync }),
      layer2: new Informer(c.layer2, { resyncMs: resync }),
      routingTable: new Informer(c.routingTable, { resyncMs: resync }),
      revision: new Informer(c.revision, { resyncMs: resync }),
      nodeConfig: new Informer(c.nodeConfig, { resyncMs: resync }),
      node: new Informer(c.node, { resyncMs: resync }),
    };
    this.log = opts.log;
    this.isLeader = opts.isLeader ?? (() => true);
    this.coalesceMs = opts.coalesceMs ?? 50;
    this.events = new EventRecorder(c.event, {
      component: COMPONENT,
      instance: opts.identity,
      namespace: opts.eventNamespace ?? 'default',
      onError: (err, ev) => this.log.warn({ err: String(err), reason: ev.reason }, 'could not record event'),
    });
    c.client.onRequest((info) => {
      opts.metrics.apiRequests.inc({ verb: info.verb });
      if (info.statusCode === undefined || info.statusCode >= 400) {
        if (info.verb !== 'watch')
          opts.metrics.apiErrors.inc({ verb: info.verb, code: String(info.statusCode ?? 0) });
      }
    });
    for (const [name, inf] of Object.entries(this.informers) as unknown as [
      keyof Informers,
      Informer<never>,
    ][]) {
      inf.on((e) => {
        if (e.type === 'resync') return this.schedule();
        if (name === 'vrf' || name === 'layer2' || name === 'routingTable') this.inputsDirty = true;
        // A revision matters to the build step only through its number, hash and invalid mark; the
        // status counts this controller writes on every pass must not trigger a rebuild of all inputs.
        if (
          name === 'revision' &&
          !(e.type === 'update' && e.old && revisionBuildKey(e.old as never) === revisionBuildKey(e.object))
        )
          this.inputsDirty = true;
        this.schedule();
      });
      inf.onError((err) => {
        this.log.warn({ err: String(err), kind: inf.kind }, 'informer error; retrying');
      });
    }
  }

  /** Starts the informers; passes begin once all have listed. */
  async start(): Promise<void> {
    this.stopped = false;
    for (const inf of Object.values(this.informers)) inf.start();
    await Promise.all(Object.values(this.informers).map((i) => i.waitForSync()));
    this.synced = true;
    this.log.info('caches synced');
    this.schedule(0);
  }

  get hasSynced(): boolean {
    return this.synced;
  }

  get latestPlan(): Plan | undefined {
    return this.lastPlan;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    for (const inf of Object.values(this.informers)) inf.stop();
    await this.running;
    await Promise.all(this.background);
  }

  /** Best-effort writes (Events) that a pass does not wait for; `stop()` does. */
  private readonly background = new Set<Promise<void>>();

  private inBackground(p: Promise<void>): void {
    this.background.add(p);
    void p.finally(() => this.background.delete(p));
  }

  /** Leadership changed: a new leader looks at everything at once. */
  leadershipChanged(leading: boolean): void {
    this.opts.metrics.leader.set(leading ? 1 : 0);
    if (leading) {
      this.inputsDirty = true;
      this.schedule(0);
    }
  }

  /** Asks for a pass within `delayMs` (the coalescing window by default). */
  schedule(delayMs = this.coalesceMs): void {
    if (this.stopped || !this.synced) return;
    const at = Date.now() + delayMs;
    if (this.timer && this.timerAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.kick();
    }, delayMs);
  }

  private kick(): void {
    if (this.running) {
      this.rerun = true;
      return;
    }
    this.running = this.pass()
      .catch((err: unknown) => {
        this.log.error({ err: errText(err) }, 'pass failed; retrying');
        this.schedule(this.errorBackoffMs);
        this.errorBackoffMs = Math.min(this.errorBackoffMs * 2, 10_000);
      })
      .finally(() => {
        this.running = undefined;
        if (this.rerun) {
          // The coalescing window of the changes that arrived during the pass has already elapsed
          // (that is what set `rerun`): look again at once instead of waiting another window.
          this.rerun = false;
          this.schedule(0);
        }
      });
  }

  private async pass(): Promise<void> {
    if (this.stopped || !this.isLeader()) return;
    const started = performance.now();
    this.opts.metrics.passes.inc();
    const now = Date.now();
    let inputHash: string | undefined;
    if (this.inputsDirty) {
      this.inputsDirty = false;
      inputHash = await this.buildStep(now);
    } else {
      inputHash = this.lastInputHash;
    }
    if (!this.isLeader()) return;
    const p = plan({
      revisions: this.informers.revision.list(),
      nodes: this.informers.node.list().map(cachedNodeInfo),
      nodeConfigs: this.informers.nodeConfig.list(),
      now,
      policy: this.opts.policy,
      ...(inputHash ? { inputHash } : {}),
    });
    this.lastPlan = p;
    const failed = await this.execute(p, now);
    this.updateMetrics(p);
    this.opts.metrics.passDuration.observe((performance.now() - started) / 1000);
    if (failed > 0) {
      this.schedule(this.errorBackoffMs);
      this.errorBackoffMs = Math.min(this.errorBackoffMs * 2, 10_000);
    } else {
      this.errorBackoffMs = 250;
      if (p.requeueAfterMs !== undefined) this.schedule(p.requeueAfterMs);
    }
  }

  private lastInputHash: string | undefined;

  /** Validates the inputs, writes their status and creates a revision when needed. */
  private async buildStep(now: number): Promise<string | undefined> {
    const inputs: Inputs = {
      vrf: this.informers.vrf.list(),
      layer2: this.informers.layer2.list(),
      routingTable: this.informers.routingTable.list(),
    };
    const result = buildRevision(inputs, this.informers.revision.list(), now);
    this.lastInputHash = result.hash;
    await this.parallel(result.inputStatusUpdates, async (u) => {
      if (!this.isLeader()) return;
      const client = this.inputClient(u.object);
      try {
        const written = await client.patchStatus(u.object.metadata.name, {
          metadata: { resourceVersion: u.object.metadata.resourceVersion },
          status: u.status,
        });
        this.inputInformer(u.object).mutated(written as never);
      } catch (err) {
        if (isConflict(err) || isNotFound(err)) this.inputsDirty = true;
        else throw err;
      }
      const accepted = u.status.conditions?.find((c) => c.type === 'Accepted');
      if (u.newlyRejected) {
        this.log.warn(
          { kind: u.object.kind, name: u.object.metadata.name, cause: u.newlyRejected },
          'input rejected',
        );
        await this.events.record(u.object, 'Warning', 'InputRejected', u.newlyRejected);
      } else if (accepted) {
        this.log.info(
          {
            kind: u.object.kind,
            name: u.object.metadata.name,
            accepted: accepted.status,
            reason: accepted.reason,
          },
          'input status updated',
        );
      }
    });
    const d = result.decision;
    if (d.action === 'create') {
      if (!this.isLeader()) return result.hash;
      try {
        const created = await this.opts.clients.revision.create(d.revision);
        this.informers.revision.mutated(created);
        this.log.info(
          {
            revision: created.metadata.name,
            number: created.spec.number,
            hash: created.spec.hash,
            cause: d.reason,
          },
          'revision created',
        );
        await this.events.record(
          created,
          'Normal',
          'RevisionCreated',
          `revision ${created.spec.number} created: ${d.reason}`,
        );
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        this.inputsDirty = true;
      }
      this.lastBuildNote = '';
    } else {
      const note = `${d.action}: ${d.reason}`;
      if (note !== this.lastBuildNote) {
        this.lastBuildNote = note;
        if (d.action === 'blocked') this.log.warn({ cause: d.reason }, 'no new revision: inputs invalid');
        else this.log.info({ cause: d.reason }, 'no new revision');
      }
    }
    return result.hash;
  }

  private inputClient(o: InputObject): ResourceClient<InputObject> {
    const c = this.opts.clients;
    return (
      o.kind === 'VRFRouteConfiguration'
        ? c.vrf
        : o.kind === 'Layer2NetworkConfiguration'
          ? c.layer2
          : c.routingTable
    ) as never;
  }

  private inputInformer(o: InputObject): Informer<InputObject> {
    const i = this.informers;
    return (
      o.kind === 'VRFRouteConfiguration'
        ? i.vrf
        : o.kind === 'Layer2NetworkConfiguration'
          ? i.layer2
          : i.routingTable
    ) as never;
  }

  /** Carries out a plan; returns the number of writes that failed (the pass is then retried). */
  private async execute(p: Plan, now: number): Promise<number> {
    let failures = 0;
    const guard = async (what: string, fn: () => Promise<void>): Promise<void> => {
      if (!this.isLeader()) return;
      try {
        await fn();
      } catch (err) {
        failures++;
        if (isConflict(err)) this.log.debug({ what }, 'conflict; will look again');
        else this.log.error({ what, err: errText(err) }, 'write failed');
      }
    };
    const revByName = new Map(this.informers.revision.list().map((r) => [r.metadata.name, r]));
    // 1. Invalidations: status first (so that every reader sees why), then the Warning Event.
    const statusByName = new Map(p.statusUpdates.map((s) => [s.revision, s.status]));
    for (const a of p.actions.filter(
      (x): x is Extract<Action, { type: 'invalidate' }> => x.type === 'invalidate',
    )) {
      await guard(`invalidate ${a.revision}`, async () => {
        const r = revByName.get(a.revision);
        if (!r) return;
        const status = statusByName.get(a.revision) ?? {
          ...r.status,
          isInvalid: true,
          failedNodes: a.failedNodes,
        };
        const written = await this.opts.clients.revision.updateStatus({ ...r, status });
        statusByName.delete(a.revision);
        this.informers.revision.mutated(written);
        this.opts.metrics.invalidations.inc();
        this.log.warn(
          { revision: a.revision, failedNodes: a.failedNodes, cause: a.reason },
          'revision invalidated',
        );
        await this.events.record(written, 'Warning', 'RevisionInvalidated', a.reason);
      });
    }
    if (failures > 0) return failures; // never roll forward or back on a half-written invalidation
    // 2. NodeConfig assignments and collection.
    const assignments = p.actions.filter(
      (x): x is Extract<Action, { type: 'assign' }> => x.type === 'assign',
    );
    const done: Extract<Action, { type: 'assign' }>[] = [];
    await this.parallel(assignments, (a) =>
      guard(`assign ${a.node}`, async () => {
        await this.assign(a, revByName.get(a.revision), now);
        done.push(a);
      }),
    );
    for (const group of groupBy(done, (a) => `${a.revision}|${a.rollback ? 'rollback' : 'assign'}`)) {
      const first = group[0] as (typeof group)[number];
      const r = revByName.get(first.revision);
      if (!r) continue;
      const names = group.map((a) => a.node).sort();
      const list =
        names.length > 20
          ? `${names.slice(0, 20).join(', ')} and ${names.length - 20} more`
          : names.join(', ');
      // Not awaited: the Event is informational (the log line and the NodeConfigs carry the same
      // facts) and waiting for it would delay the next wave by one more API round trip.
      this.inBackground(
        this.events.record(
          r,
          'Normal',
          first.rollback ? 'RolledBack' : 'NodesAssigned',
          `${first.rollback ? 'rolled back' : 'assigned'} ${names.length} node(s) to revision ${r.spec.number}: ${list}`,
        ),
      );
    }
    const collect = p.actions.filter(
      (x): x is Extract<Action, { type: 'deleteNodeConfig' }> => x.type === 'deleteNodeConfig',
    );
    await this.parallel(collect, (a) =>
      guard(`delete NodeConfig ${a.name}`, async () => {
        const nc = this.informers.nodeConfig.get(a.name);
        if (!nc) return;
        try {
          await this.opts.clients.nodeConfig.delete(
            a.name,
            undefined,
            nc.metadata.uid ? { uid: nc.metadata.uid } : {},
          );
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
        this.informers.nodeConfig.mutated(nc, true);
        this.log.info({ nodeConfig: a.name, cause: a.reason }, 'NodeConfig collected');
        await this.events.record(nc, 'Normal', 'NodeConfigCollected', a.reason);
      }),
    );
    // 3. Revision statuses that changed.
    await this.parallel([...statusByName], ([name, status]) =>
      guard(`status ${name}`, async () => {
        const r = this.informers.revision.get(name) ?? revByName.get(name);
        if (!r) return;
        const written = await this.opts.clients.revision.updateStatus({ ...r, status });
        this.informers.revision.mutated(written);
        if (status.completedAt && !r.status?.completedAt && status.startedAt) {
          const secs = (Date.parse(status.completedAt) - Date.parse(status.startedAt)) / 1000;
          this.opts.metrics.rolloutDuration.observe(Math.max(0, secs));
          this.log.info(
            { revision: name, seconds: secs, ready: status.ready, failed: status.failed },
            'rollout complete',
          );
          await this.events.record(
            written,
            'Normal',
            'RolloutComplete',
            `${status.ready}/${status.total} nodes ready, ${status.failed ?? 0} failed`,
          );
        }
      }),
    );
    // 4. History cleanup.
    for (const a of p.actions.filter(
      (x): x is Extract<Action, { type: 'deleteRevision' }> => x.type === 'deleteRevision',
    )) {
      await guard(`delete revision ${a.revision}`, async () => {
        const r = revByName.get(a.revision);
        if (!r) return;
        try {
          await this.opts.clients.revision.delete(
            a.revision,
            undefined,
            r.metadata.uid ? { uid: r.metadata.uid } : {},
          );
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
        this.informers.revision.mutated(r, true);
        this.log.info({ revision: a.revision, cause: a.reason }, 'revision deleted');
      });
    }
    return failures;
  }

  private async assign(
    a: Extract<Action, { type: 'assign' }>,
    r: NetworkConfigRevision | undefined,
    now: number,
  ): Promise<void> {
    const node = this.informers.node.get(a.node);
    if (!r || !node) return;
    const spec = this.specs.spec({ config: r.spec.config, hash: r.spec.hash }, node.metadata.labels ?? {});
    const ownerReferences = [
      ...(node.metadata.uid
        ? [{ apiVersion: 'v1', kind: 'Node', name: node.metadata.name, uid: node.metadata.uid }]
        : []),
      ...(r.metadata.uid
        ? [
            {
              apiVersion: r.apiVersion ?? 'network.nodenet.io/v1alpha1',
              kind: 'NetworkConfigRevision',
              name: r.metadata.name,
              uid: r.metadata.uid,
            },
          ]
        : []),
    ];
    const annotations = {
      [ASSIGNED_AT_ANNOTATION]: rfc3339Millis(now),
      [ASSIGNED_BY_ANNOTATION]: this.opts.identity,
    };
    const labels = { [REVISION_NUMBER_LABEL]: String(r.spec.number) };
    const existing = this.informers.nodeConfig.get(a.node);
    let written: NodeConfig;
    if (!existing) {
      written = await this.opts.clients.nodeConfig.create({
        apiVersion: 'network.nodenet.io/v1alpha1',
        kind: 'NodeConfig',
        metadata: { name: a.node, annotations, labels, ownerReferences },
        spec,
      });
    } else {
      // resourceVersion makes the patch conditional: a stale cache yields a 409, never a double assignment.
      written = await this.opts.clients.nodeConfig.mergePatch(a.node, {
        metadata: {
          resourceVersion: existing.metadata.resourceVersion,
          annotations,
          labels,
          ownerReferences,
        },
        spec,
      });
    }
    this.informers.nodeConfig.mutated(written);
    this.log.info(
      {
        node: a.node,
        revision: a.revision,
        number: a.number,
        from: a.from?.slice(0, 10),
        rollback: a.rollback,
        cause: a.reason,
      },
      a.rollback ? 'node rolled back' : 'node assigned',
    );
  }

  private async parallel<T>(items: T[], fn: (item: T) => Promise<void>): Promise<void> {
    const limit = this.opts.writeConcurrency ?? 64;
    let i = 0;
    const worker = async (): Promise<void> => {
      while (i < items.length) {
        const item = items[i++] as T;
        await fn(item);
      }
    };
    await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  }

  private updateMetrics(p: Plan): void {
    const m = this.opts.metrics;
    for (const [state, n] of Object.entries(p.nodeStates)) m.nodes.set({ state }, n);
    let invalid = 0;
    let superseded = 0;
    for (const r of this.informers.revision.list()) {
      if (r.status?.isInvalid) invalid++;
      else if (r.metadata.name !== p.desired?.name) superseded++;
    }
    m.revisions.set({ state: 'desired' }, p.desired ? 1 : 0);
    m.revisions.set({ state: 'invalid' }, invalid);
    m.revisions.set({ state: 'superseded' }, superseded);
  }
}

/** NodeInfo per Node object (informer objects are replaced on change, never mutated). */
const nodeInfos = new WeakMap<Node, NodeInfo>();
function cachedNodeInfo(n: Node): NodeInfo {
  let info = nodeInfos.get(n);
  if (!info) nodeInfos.set(n, (info = nodeInfo(n)));
  return info;
}

function nodeInfo(n: Node): NodeInfo {
  const ready = n.status?.conditions?.find((c) => c.type === 'Ready');
  const since =
    ready?.status === 'True' && ready.lastTransitionTime ? Date.parse(ready.lastTransitionTime) : NaN;
  return {
    name: n.metadata.name,
    ...(n.metadata.uid ? { uid: n.metadata.uid } : {}),
    labels: n.metadata.labels ?? {},
    ready: isNodeReady(n),
    ...(Number.isNaN(since) ? {} : { readySinceMs: since }),
    ...(n.metadata.deletionTimestamp ? { deleting: true } : {}),
  };
}

/** What the build step reads from a revision (status counts excluded). */
function revisionBuildKey(r: NetworkConfigRevision): string {
  return `${r.metadata.name}|${r.spec.number}|${r.spec.hash}|${r.status?.isInvalid === true}`;
}

function groupBy<T>(items: T[], key: (t: T) => string): T[][] {
  const m = new Map<string, T[]>();
  for (const it of items) m.set(key(it), [...(m.get(key(it)) ?? []), it]);
  return [...m.values()];
}

const errText = (err: unknown): string =>
  err instanceof KubeApiError || err instanceof Error ? err.message : String(err);
