/**
 * The controller: informers feed a coalescing scheduler; each pass builds a revision when the inputs
 * changed, asks the planner what to do and carries it out. Only the leader acts; a standby keeps
 * its caches warm so that it can take over at once.
 */
import { inputGenerations, matchesSelector, type NetworkConfigRevision } from '@nodenet/api';
import { Coalescer, EventRecorder, Informer, KubeApiError, parallel, type Clients } from '@nodenet/kube';
import type { Logger } from 'pino';
import { executePlan, type ExecContext } from './execute.js';
import { effectivePolicy, findRolloutPolicy } from './policy/fleet-policy.js';
import { writeRolloutPolicyStatus, type PolicyStatusContext } from './policy/policy-status-write.js';
import type { Metrics } from './run/metrics.js';
import { IncrementalPlanner, nodeSpecHash, specContentHash, type Plan } from './rollout/index.js';
import type { Policy } from './policy/policy.js';
import {
  BuildSchedule,
  CreationOrder,
  DEFAULT_BUILD_TIMING,
  nodeFacts,
  PasswordSecrets,
  RevisionBuilder,
  revisionBuildKey,
  writePeeringStatuses,
  writeRevisionDisruption,
  type BuildTiming,
  type SiteUnderlay,
  type SizeBudget,
} from './build/index.js';
import { NodeSpecCache } from './nodes/node-specs.js';
import { RowLabelGate } from './nodes/row-label-gate.js';
import { WritePace } from './pace/write-pace.js';
import { renewalOf } from './nodes/agent-leases.js';
import { NodeInfoList, sameBuildFacts } from './nodes/node-info.js';
import { INPUT_INFORMERS, makeInformers, type Informers } from './informers.js';
import { IgnoredReportLog } from './nodes/ignored-reports.js';
import { RefusedAssignments, withRefusals } from './nodes/refused-assignments.js';

export { ASSIGNED_BY_ANNOTATION } from './nodes/node-config.js';

export const COMPONENT = 'nodenet-configurator';

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
  /** When the build step runs: quiet period, longest wait, retry backoff (build-schedule.ts). */
  buildTiming?: Partial<BuildTiming>;
  /** Limits a revision must stay within (budget.ts); default DEFAULT_BUDGET. */
  budget?: SizeBudget;
  passwordNamespace?: string; // of the BGP password Secrets (build/password-secrets.ts)
  /** Namespace of the agents' liveness Leases (nodes/agent-leases.ts). Default `nodenet-system`. */
  agentLeaseNamespace?: string;
  /** The site's underlay settings (--underlay-cidr, --allow-default-*; node addresses: from Nodes). */
  underlay?: SiteUnderlay;
}

export class Controller {
  readonly informers: Informers;
  private readonly events: EventRecorder;
  private readonly log: Logger;
  private readonly isLeader: () => boolean;
  private readonly coalescer: Coalescer;
  private stopped = true;
  private readonly buildSchedule: BuildSchedule;
  /** Kept by a standby too, so a new leader knows the creation order its watch saw (creation-order.ts). */
  private readonly creationOrder = new CreationOrder();
  private readonly builder: RevisionBuilder;
  private errorBackoffMs = 250;
  private lastPlan: Plan | undefined;
  private synced = false;
  private readonly specs = new NodeSpecCache();
  /**
   * observe() and plan() with what they work out per node kept between passes (rollout/incremental.ts):
   * what this instance observed and when, on its monotonic clock; forgotten when it becomes leader.
   */
  private readonly planner = new IncrementalPlanner();
  private readonly rowLabels = new RowLabelGate();
  private readonly pace = new WritePace();
  private readonly ignoredReports: IgnoredReportLog;
  private readonly nodeInfos = new NodeInfoList();
  private readonly passwords: PasswordSecrets;
  /** Nodes whose assignment writes the API server refuses: out of the rollout for a while. */
  private readonly refusals = new RefusedAssignments();

  /** The renewal marker of a node's liveness Lease (nodes/agent-leases.ts). */
  private readonly renewalOf: (node: string) => string | undefined;

  constructor(private readonly opts: ControllerOptions) {
    const c = opts.clients;
    const resync = opts.resyncMs ?? 300_000;
    const leaseNamespace = opts.agentLeaseNamespace ?? 'nodenet-system';
    this.passwords = new PasswordSecrets(c.secret, opts.passwordNamespace, resync);
    this.informers = makeInformers(c, resync, this.passwords, leaseNamespace);
    this.renewalOf = renewalOf(this.informers.agentLease, leaseNamespace);
    this.log = opts.log;
    this.ignoredReports = new IgnoredReportLog(opts.log);
    this.isLeader = opts.isLeader ?? (() => true);
    this.coalescer = new Coalescer(() => this.runPass(), opts.coalesceMs ?? 50);
    this.buildSchedule = new BuildSchedule({ ...DEFAULT_BUILD_TIMING, ...opts.buildTiming });
    this.events = new EventRecorder(c.event, {
      component: COMPONENT,
      instance: opts.identity,
      namespace: opts.eventNamespace ?? 'default',
      onError: (err, ev) => this.log.warn({ err: String(err), reason: ev.reason }, 'could not record event'),
    });
    this.builder = new RevisionBuilder({
      clients: c,
      informers: this.informers,
      isLeader: this.isLeader,
      log: this.log,
      events: this.events,
      parallel: (items, fn) => parallel(items, this.opts.writeConcurrency ?? 64, fn),
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
        if (INPUT_INFORMERS.has(name)) {
          this.creationOrder.note(e);
          this.buildSchedule.inputEvent(e, performance.now());
        }
        // A revision matters to the build step only through its number, hash and invalid mark; the
        // status counts this controller writes on every pass must not trigger a rebuild of all inputs.
        if (
          name === 'revision' &&
          !(e.type === 'update' && e.old && revisionBuildKey(e.old) === revisionBuildKey(e.object))
        )
          this.buildSchedule.changed();
        // Node labels decide the inputs' Selected condition (outcome.ts) and the loopback addresses
        // (loopback-step.ts), its addresses the peering guards (node-facts.ts); heartbeats do not.
        if (name === 'node' && !(e.type === 'update' && e.old && sameBuildFacts(e.old, e.object)))
          this.buildSchedule.changed();
        if (name === 'secret') this.buildSchedule.changed(); // a rotation, the salt filled
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
    this.buildSchedule.reset();
    this.log.info('caches synced');
    this.coalescer.enable();
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
    for (const inf of Object.values(this.informers)) inf.stop();
    await this.coalescer.stop();
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
      // Timers start afresh from this instance's own observations: it may wait longer than the
      // previous leader, never fail a node earlier.
      this.planner.reset();
      this.refusals.reset();
      this.buildSchedule.reset();
      this.schedule(0);
    }
  }

  /** Asks for a pass within `delayMs` (the coalescing window by default). */
  schedule(delayMs?: number): void {
    if (this.stopped || !this.synced) return;
    this.coalescer.schedule(delayMs);
  }

  private runPass(): Promise<void> {
    return this.pass().catch((err: unknown) => {
      this.log.error({ err: errText(err) }, 'pass failed; retrying');
      this.schedule(this.errorBackoffMs);
      this.errorBackoffMs = Math.min(this.errorBackoffMs * 2, 10_000);
    });
  }

  private async pass(): Promise<void> {
    if (this.stopped || !this.isLeader()) return;
    const started = performance.now();
    this.opts.metrics.passes.inc();
    const now = Date.now();
    const mono = performance.now();
    const buildWaitMs = await this.buildStep(now, mono);
    if (buildWaitMs !== undefined) this.schedule(buildWaitMs);
    const inputHash = this.builder.inputHash;
    if (!this.isLeader()) return;
    const nodes = withRefusals(
      this.nodeInfos.of(this.informers.node.list(), this.renewalOf),
      this.refusals.refused(mono),
    );
    const nodeConfigs = this.informers.nodeConfig.list();
    this.ignoredReports.note(nodeConfigs);
    const rp = findRolloutPolicy(this.informers.rolloutPolicy.list());
    // A percentage knob against a count ceiling (or the other way) is compared for these nodes.
    const targets = nodes.filter((n) => matchesSelector(this.opts.policy.nodeSelector, n.labels)).length;
    const fleet = effectivePolicy(this.opts.policy, rp, targets);
    const specOf = (r: NetworkConfigRevision, n: { name: string; labels: Record<string, string> }) =>
      this.specs.spec({ config: r.spec.config, hash: r.spec.hash }, n.labels, n.name);
    // Before the plan: RolloutPolicy spec.disruptive reads the new revision's class in this pass.
    const revisionClients = {
      client: this.opts.clients.revision,
      informer: this.informers.revision,
      log: this.log,
    };
    const disruptionFailed = await writeRevisionDisruption(revisionClients, { nodes, specOf });
    if (!this.isLeader()) return;
    const p = this.planner.plan({
      revisions: this.informers.revision.list(),
      nodes,
      nodeConfigs,
      now,
      mono,
      policy: fleet.policy,
      specHash: (r, n) => nodeSpecHash(specOf(r, n)),
      contentHash: (r, n) => specContentHash(specOf(r, n)),
      ...(inputHash ? { inputHash } : {}),
      inputGenerations: () => inputGenerations(this.builder.inputs()),
    });
    this.lastPlan = p;
    let failed = disruptionFailed + (await this.execute(p, now, mono));
    if (rp && this.isLeader())
      failed += await writeRolloutPolicyStatus(this.policyStatus, rp, {
        plan: p,
        problems: fleet.problems,
        now,
      });
    if (this.isLeader()) {
      const peerings = { client: this.opts.clients.bgpPeering, informer: this.informers.bgpPeering };
      failed += await writePeeringStatuses({ ...peerings, log: this.log }, nodeConfigs);
    }
    this.opts.metrics.observePlan(p, this.informers.revision.list());
    this.opts.metrics.passDuration.observe((performance.now() - started) / 1000);
    if (failed > 0) {
      this.schedule(this.errorBackoffMs);
      this.errorBackoffMs = Math.min(this.errorBackoffMs * 2, 10_000);
    } else {
      this.errorBackoffMs = 250;
      // Writes held back (a row, counts, a gathered Event) are due then: one ms later they are.
      const held = [this.rowLabels, this.pace].map((g) => (g.nextDueInMs(performance.now()) ?? Infinity) + 1);
      held.push((this.refusals.nextRetryInMs(performance.now()) ?? Infinity) + 1);
      const again = Math.min(p.requeueAfterMs ?? Infinity, ...held);
      if (again !== Infinity) this.schedule(again);
    }
  }

  /**
   * Runs the build step when it is owed and due (build-schedule.ts); returns in how long to look
   * again when it waits for a settled view or backs off after a failure. A failure never stops the
   * pass: the revisions that exist keep rolling out.
   */
  private async buildStep(now: number, mono: number): Promise<number | undefined> {
    const verdict = this.buildSchedule.decide(mono, this.builder.behind);
    if (!verdict.run) return verdict.waitMs;
    const token = this.buildSchedule.started();
    let done = false;
    try {
      const nodes = this.informers.node.list();
      const { policy } = effectivePolicy(
        this.opts.policy,
        findRolloutPolicy(this.informers.rolloutPolicy.list()),
      );
      const out = await this.builder.run(now, {
        passwords: await this.passwords.forBuild(this.isLeader(), this.log),
        ...(this.opts.budget ? { budget: this.opts.budget } : {}),
        ...nodeFacts(nodes, policy, this.opts.underlay),
        recency: (o) => this.buildSchedule.recency(o),
        createdOrder: (o) => this.creationOrder.of(o),
      });
      done = out.done;
    } catch (err) {
      this.log.error({ err: errText(err) }, 'build step failed; will retry');
    }
    return this.buildSchedule.finished(token, done, performance.now());
  }

  private get policyStatus(): PolicyStatusContext {
    return { clients: this.opts.clients, informers: this.informers, pace: this.pace, log: this.log };
  }

  /** Carries out a plan through the executors (execute.ts); returns the number of failed writes. */
  private execute(p: Plan, now: number, mono: number): Promise<number> {
    const c = this.opts.clients;
    const inf = this.informers;
    const ctx: ExecContext = {
      writer: {
        nodeConfig: c.nodeConfig,
        revision: {
          updateStatus: (r) => c.revision.updateStatus(r),
          mergePatch: (name, patch) => c.revision.mergePatch(name, patch),
          delete: (name, ns, o) => c.revision.delete(name, ns, o),
        },
        events: this.events,
      },
      cache: {
        revision: (name) => inf.revision.get(name),
        nodeConfig: (name) => inf.nodeConfig.get(name),
        node: (name) => inf.node.get(name),
        wroteRevision: (r, deleted) => inf.revision.mutated(r, deleted),
        wroteNodeConfig: (nc, deleted) => inf.nodeConfig.mutated(nc, deleted),
      },
      log: this.log,
      metrics: this.opts.metrics,
      identity: this.opts.identity,
      isLeader: this.isLeader,
      now,
      specFor: (r, node) =>
        this.specs.spec(
          { config: r.spec.config, hash: r.spec.hash },
          node.metadata.labels ?? {},
          node.metadata.name,
        ),
      concurrency: this.opts.writeConcurrency ?? 64,
      background: (bp) => this.inBackground(bp),
      rowLabels: { gate: this.rowLabels, mono },
      pace: { status: this.pace.status, assigned: this.pace.assigned, mono },
      assignWritten: (node, err) => this.assignWritten(node, err),
    };
    return executePlan(p, ctx);
  }

  /** Keeps count of refused assignment writes; a node taken out of the rollout gets a Warning Event. */
  private assignWritten(node: string, err: unknown): void {
    if (err === undefined) return this.refusals.succeeded(node);
    const refused = this.refusals.failed(node, err, performance.now());
    if (refused === undefined) return;
    this.log.warn({ node, err: refused }, 'assignment writes refused; node left out of the rollout for now');
    const obj = this.informers.nodeConfig.get(node) ?? this.informers.node.get(node);
    if (obj) this.inBackground(this.events.record(obj, 'Warning', 'AssignmentRefused', refused));
    this.schedule();
  }
}

const errText = (err: unknown): string =>
  err instanceof KubeApiError || err instanceof Error ? err.message : String(err);
