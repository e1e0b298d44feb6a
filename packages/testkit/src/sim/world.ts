/**
 * The deterministic fleet world: the real planner (through planner-adapter.ts), simulated kubelets
 * and agents (agents.ts), operator actions and faults on a virtual monotonic clock. Pure: no I/O,
 * no real time, no randomness of its own (a history is fixed data; generators draw it from a seed).
 */
import type { NetworkConfigRevision } from '@nodenet/api';
import type { IncrementalPlanner } from '@nodenet/configurator';
import { nextNodeWakeup, stepNode, type AgentEnv } from './agents.js';
import type { History, NodeSpec } from './history.js';
import { KnobsInForce } from './knobs.js';
import { CappedBound } from './disruptive.js';
import { Ledger, NEVER_REPORTED, fmt } from './ledger.js';
import type { LedgerView } from './ledger-view.js';
import { ledgerViewOf } from './world-ledger-view.js';
import type { JoiningNode, WorldState } from './world-state.js';

export type { JoiningNode } from './world-state.js';
import {
  assignmentKey,
  buildStep,
  nodeContentOf,
  contentOf,
  inputGenerationsOf,
  inputHashOf,
  isInvalid,
  numberOf,
  policyOf,
  STARTUP_TAINT,
  type NodeView,
  type SimInput,
  type Store,
} from './planner-adapter.js';
import { describeEvent, freshObservations, runPass, type Sabotage } from './planner-pass.js';
import { autoscale } from './faults.js';
import { AgentReports } from './reports.js';
import { applyAction } from './operator.js';
import type { BadChange, Scheduled, SimNode } from './types.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const MAX_STEP = 600_000;
const MAX_ITERATIONS = 50_000;
const TIMELINE_LINES = 3_000;

export class World implements WorldState {
  t = 0;
  readonly store: Store = { revisions: new Map(), nodeConfigs: new Map() };
  readonly inputs = new Map<string, SimInput>();
  readonly inputValues = new Map<string, number[]>();
  readonly deletedAt = new Map<string, number>(); // per input: the newest revision when last deleted
  readonly nodes = new Map<string, SimNode>();
  fleetPaused = false;
  /** How far the configurator's wall clock jumped (clock jumps): its timestamps only, never a deadline. */
  wallOffset = 0;
  get wallNow(): number {
    return T0 + this.t + this.wallOffset;
  }
  observations = freshObservations();
  leaderFrom = 0;
  desired: { name: string; number: number; hash: string } | undefined;
  buildDirty = true;
  readonly ledger: Ledger;
  /** The knobs in force (a person may change them mid-history) and the largest limits so far. */
  readonly knobs: KnobsInForce;
  readonly capped = new CappedBound();
  readonly timeline: string[] = [];
  passes = 0;
  private requeueAt: number | undefined;
  /** The last pass wrote something (an assignment, an invalidation, a collection). */
  private wrote = false;
  private inputHashKey = '';
  private inputHash: string | undefined;
  private readonly reports = new AgentReports();
  /**
   * Assignments (`node|assignmentKey`) whose agent already finished them once: a later re-apply of
   * the same assignment (an agent back from a fault starts over) is the agent's, not a move.
   */
  private readonly finished = new Set<string>();

  constructor(
    readonly history: History,
    readonly stopAtFirst = true,
    readonly sabotage?: Sabotage,
    /** Plans with it and checks every pass against plan() (issue 26). */
    readonly incremental?: IncrementalPlanner,
  ) {
    this.ledger = new Ledger(stopAtFirst);
    this.knobs = new KnobsInForce(history.policy);
    const specs: NodeSpec[] =
      typeof history.nodes === 'number'
        ? Array.from({ length: history.nodes }, (_, i) => ({ name: `n${i}` }))
        : history.nodes;
    for (const s of specs)
      this.addNode({ name: s.name, agent: 'good', labels: s.labels ?? {}, taint: false, reported: true });
    for (const [k, v] of Object.entries(history.inputs)) this.writeInput(k, v, history.inputZones?.[k]);
  }

  /** While revision 1 is set up: every node at once, no soak, no RolloutPolicy knobs, no checks. */
  settingUp = false;
  private policyCache: { key: string; policy: ReturnType<typeof policyOf> } | undefined;
  get policy(): ReturnType<typeof policyOf> {
    const key = `${this.fleetPaused}|${this.settingUp}|${this.knobs.version}`;
    if (this.policyCache?.key !== key) {
      const { rolloutPolicy: _knobs, limitPercent: _percent, ...flags } = this.knobs.knobs;
      const knobs = this.settingUp
        ? { ...flags, limit: Math.max(1, this.nodes.size), minSuccessTimeMs: 0 }
        : { ...this.knobs.knobs, paused: this.fleetPaused };
      this.policyCache = { key, policy: policyOf(knobs) };
    }
    return this.policyCache.policy;
  }

  log(line: string): void {
    this.timeline.push(`t=${fmt(this.t)} ${line}`);
    if (this.timeline.length > TIMELINE_LINES) this.timeline.splice(0, this.timeline.length - TIMELINE_LINES);
  }

  /** Node objects made so far: each has its own uid (a Node re-created under its name is another). */
  private made = 0;
  addNode({ name, agent, labels, taint, reported }: JoiningNode): void {
    this.nodes.set(name, {
      name,
      uid: `uid-${name}-${++this.made}`,
      labels,
      exists: true,
      kubeletReady: true,
      taint,
      agent,
      everReported: reported,
    });
  }

  /** A person writes an input; `zone` sets its nodeSelector (null: every node; undefined: kept). */
  writeInput(name: string, value: number, zone?: string | null): void {
    const old = this.inputs.get(name);
    const z = zone === undefined ? old?.zone : (zone ?? undefined);
    this.inputs.set(name, {
      generation: (old?.generation ?? 0) + 1,
      value,
      ...(z !== undefined ? { zone: z } : {}),
    });
    this.inputValues.set(name, [...(this.inputValues.get(name) ?? []), value]);
    this.buildDirty = true;
    // A follow-up write that keeps a bad value still carried by a valid revision (e.g. its selector
    // widened) is the same change, with the same budget; a write after every revision carrying it
    // was invalidated sends it anew. A valid revision older than an invalid one carrying the value
    // no longer carries it anywhere: it was superseded by the failure (seed 35 found a write 0.6 s
    // after the invalidation counted as a follow-up through such a revision, never rolled out).
    const carrying = [...this.store.revisions.values()].filter((r) => contentOf(r)[name] === value);
    const failedAt = Math.max(0, ...carrying.filter(isInvalid).map((r) => r.spec.number));
    const kept = old?.value === value && carrying.some((r) => !isInvalid(r) && r.spec.number > failedAt);
    if (!kept && this.history.bad.some((b) => b.input === name && b.value === value))
      this.ledger.introduce({ input: name, value }, this.t);
  }

  revisionByNumber(n: number): NetworkConfigRevision | undefined {
    return [...this.store.revisions.values()].find((r) => r.spec.number === n);
  }

  newestInvalid(): NetworkConfigRevision | undefined {
    return [...this.store.revisions.values()]
      .filter(isInvalid)
      .sort((a, b) => b.spec.number - a.spec.number)[0];
  }

  /** The revision's content as this node carries it: the inputs whose nodeSelector takes it. */
  nodeContent(node: string, r: NetworkConfigRevision): Record<string, number> {
    return nodeContentOf(r, this.nodes.get(node)?.labels ?? {});
  }

  /** The bad changes of `r` that reach this node (its nodeSelector takes it) and harm it. */
  harms(node: string, r: NetworkConfigRevision | undefined): BadChange[] {
    const c = r ? this.nodeContent(node, r) : {};
    return this.history.bad.filter((b) => c[b.input] === b.value && (!b.nodes || b.nodes.includes(node)));
  }

  /** Why a node is observably unavailable now (undefined: available). */
  unavailable(name: string): string | undefined {
    const n = this.nodes.get(name);
    if (!n || !n.exists) return 'Node gone';
    if (!n.kubeletReady) return 'NotReady';
    if (n.taint) return 'start-up taint';
    if (n.agent === 'misconfigured') return 'agent misconfigured';
    if (!n.everReported) return NEVER_REPORTED;
    const nc = this.store.nodeConfigs.get(name);
    const assigned = this.ledger.lastAssign.get(name);
    // Observable: the NodeConfig's status does not answer its generation (a cut agent that lost its
    // place, but whose last report answers, looks available until its kubelet goes NotReady).
    const answers = (nc?.status?.conditions ?? []).some(
      (c) => c.observedGeneration === nc?.metadata.generation,
    );
    if (
      nc &&
      !answers &&
      n.handledKey !== assignmentKey(nc) &&
      assigned &&
      this.t - assigned.at > this.policy.preconfigTimeoutMs
    )
      return `agent not answering its assignment of t=${fmt(assigned.at)}`;
    return undefined;
  }

  private env(): AgentEnv {
    return {
      t: this.t,
      t0: T0 + this.wallOffset,
      nodeConfig: (n) => this.store.nodeConfigs.get(n),
      writeStatus: (n, nc) => {
        this.store.nodeConfigs.set(n, nc);
        const done = nc.status?.configStatus === 'provisioned' || nc.status?.configStatus === 'invalid';
        if (done) this.finished.add(`${n}|${assignmentKey(nc)}`);
        this.reports.record(n, nc, this.t);
        if (nc.status?.configStatus === 'provisioned') this.ledger.ranOn(n, numberOf(nc));
      },
      revisionByHash: (h) => [...this.store.revisions.values()].find((r) => r.spec.hash === h),
      harm: (n, r) => this.harms(n, r)[0],
      ...(this.history.restoreMs !== undefined ? { restoreMs: this.history.restoreMs } : {}),
      log: (l) => this.log(l),
      evaluated: (n, h) => {
        if (!this.settingUp) this.ledger.evaluated(n, h, this.ledgerView(new Map(), new Map()));
      },
    };
  }

  private nodeViews(): NodeView[] {
    return [...this.nodes.values()]
      .filter((n) => n.exists)
      .map((n) => ({
        name: n.name,
        uid: n.uid,
        labels: n.labels,
        ready: n.kubeletReady,
        deleting: false,
        taints: n.taint ? [STARTUP_TAINT] : [],
        ...(n.renewals !== undefined ? { renewal: String(n.renewals) } : {}),
      }));
  }

  private build(): void {
    this.buildDirty = false;
    const out = buildStep(this.store, this.inputs, this.wallNow);
    if (!('created' in out)) return;
    const c = out.created;
    this.log(`REVISION ${c.spec.number} ${JSON.stringify(contentOf(c))}: ${out.reason}`);
    if (out.retryOf)
      for (const b of this.history.bad)
        if (contentOf(c)[b.input] === b.value) this.ledger.introduce(b, this.t);
  }

  private pass(): void {
    this.passes++;
    const invalidBefore = new Set(
      [...this.store.revisions.values()].filter(isInvalid).map((r) => r.metadata.name),
    );
    const pausedBefore = new Map(
      [...this.store.revisions.values()].map((r) => [r.metadata.name, r] as const),
    );
    // Availability as it was when the pass looked (before its own writes).
    const unavailableBefore = new Map([...this.nodes.keys()].map((n) => [n, this.unavailable(n)] as const));
    // The hash of the inputs changes only with them or with the revisions (the build step's view).
    const key = `${this.store.revisions.size}|${[...this.store.revisions.values()].map((r) => `${r.spec.number}${isInvalid(r) ? 'x' : ''}`).join(',')}|${[...this.inputs].map(([k, i]) => `${k}${i.generation}=${i.value}`).join(',')}`;
    if (key !== this.inputHashKey) {
      this.inputHashKey = key;
      this.inputHash = inputHashOf(this.store, this.inputs, this.wallNow);
    }
    const hash = this.inputHash;
    const res = runPass({
      store: this.store,
      nodes: this.nodeViews(),
      observations: this.observations,
      policy: this.policy,
      mono: this.t,
      now: this.wallNow,
      ...(hash ? { inputHash: hash } : {}),
      inputGenerations: () => inputGenerationsOf(this.inputs),
      ...(this.sabotage && !this.settingUp ? { sabotage: this.sabotage } : {}),
      ...(this.incremental ? { incremental: this.incremental } : {}),
    });
    this.observations = res.observations;
    this.desired = res.desired;
    this.requeueAt = res.requeueAfterMs !== undefined ? this.t + res.requeueAfterMs : undefined;
    this.wrote = res.events.length > 0;
    for (const e of res.events) this.log(describeEvent(e));
    if (res.events.some((e) => e.kind === 'invalidate' || e.kind === 'deleteRevision'))
      this.buildDirty = true;
    const targets = [...this.nodes.values()].filter((n) => n.exists && this.knobs.selects(n.labels)).length;
    if (!this.settingUp) this.knobs.inForce(targets);
    const view = this.ledgerView(pausedBefore, unavailableBefore);
    this.ledger.pass(res.events, view, invalidBefore, !this.settingUp);
    if (!this.settingUp) this.capped.afterPass(this, { targets, inFlight: this.inFlight(), view });
  }

  private ledgerView(
    before: ReadonlyMap<string, NetworkConfigRevision>,
    unavailableBefore: ReadonlyMap<string, string | undefined>,
  ): LedgerView {
    return ledgerViewOf(this, this.reports, { before, unavailableBefore });
  }

  /** Nodes with an unanswered forward assignment (available ones, within the preconfig timeout). */
  private inFlight(): string[] {
    const out: string[] = [];
    for (const [name, a] of this.ledger.lastAssign) {
      const n = this.nodes.get(name);
      const nc = this.store.nodeConfigs.get(name);
      if (!n || !nc || a.rollback || a.lateJoin || a.unchanged || !n.exists || !n.kubeletReady || n.cut)
        continue;
      if (n.agent === 'dead' || n.agent === 'notStarted' || n.agent === 'misconfigured') continue;
      if (this.t - a.at > this.policy.preconfigTimeoutMs || numberOf(nc) !== a.number) continue;
      if (n.handledKey === assignmentKey(nc) && n.job === undefined) continue;
      if (this.finished.has(`${name}|${assignmentKey(nc)}`)) continue;
      // Failed on it (a timeout while it was away; its agent resumes when it is back): within
      // --max-failures, not a slot, as the bound limit + max-failures says.
      const r = this.revisionByNumber(a.number);
      if (
        r?.status?.failedNodes?.some(
          (f) => f.node === name && Date.parse(f.at) - T0 - this.wallOffset >= a.at,
        )
      )
        continue;
      out.push(name);
    }
    return out.sort();
  }

  /** Runs until `end` (virtual ms), applying `queue` (sorted by time) on the way. */
  advance(end: number, queue: Scheduled[]): void {
    for (let i = 0; i < MAX_ITERATIONS; i++) {
      while (queue.length && (queue[0] as Scheduled).at <= this.t)
        applyAction(this, (queue.shift() as Scheduled).action);
      const env = this.env();
      for (const n of this.nodes.values()) stepNode(n, env);
      autoscale(this);
      if (this.buildDirty && this.t >= this.leaderFrom) this.build();
      if (this.t >= this.leaderFrom) this.pass();
      if (this.stopAtFirst && this.ledger.violations.length) return;
      if (this.t >= end) return;
      const next = [end, this.t + MAX_STEP];
      if (queue.length) next.push((queue[0] as Scheduled).at);
      // Agents' writes are seen by the pass of the same step. The controller's own writes come back
      // through its informers and make another pass one coalescing window (50 ms) later.
      if (this.buildDirty || this.wrote) next.push(this.t + 50);
      if (this.requeueAt !== undefined && this.requeueAt > this.t) next.push(this.requeueAt);
      if (this.leaderFrom > this.t) next.push(this.leaderFrom);
      for (const n of this.nodes.values()) {
        const w = nextNodeWakeup(n, this.store.nodeConfigs.get(n.name), T0 + this.wallOffset, this.t);
        if (w !== undefined) next.push(w);
        const x = this.history.deleteNotReadyAfterMs;
        if (x !== undefined && n.exists && n.notReadySince !== undefined && n.notReadySince + x > this.t)
          next.push(n.notReadySince + x);
      }
      this.t = Math.max(this.t + 1, Math.min(...next));
    }
    throw new Error(`simulation did not reach t=${fmt(end)} in ${MAX_ITERATIONS} steps (t=${fmt(this.t)})`);
  }
}
