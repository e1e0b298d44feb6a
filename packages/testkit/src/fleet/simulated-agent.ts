/**
 * Simulated nodenet agents for fleet tests and benchmarks. They watch NodeConfigs through
 * @kubernetes/client-node (its own informer and CustomObjectsApi, independent of packages/kube) and
 * write status the way the real agent does (packages/agent/src/status/status.ts):
 * `provisioning` with the old revision still on the host, then `provisioned` (lastAppliedRevision =
 * the new revision) or `invalid` (lastAppliedRevision = the restored one); every status carries
 * conditions with the observedGeneration it answers, and the numbers of the revision it answers and
 * of the one on the host (unless `legacyAgents` says the node runs an agent from before them). A spec whose content (everything but the
 * revision reference) is what the host runs is a no-op apply, as for the real agent: `provisioned`
 * at once, no confirm window (the behaviour is not asked). While it works on a change it renews its
 * liveness Lease (agent-liveness.ts), or rewrites `provisioning` for `statusHeartbeatAgents`.
 */
import http from 'node:http';
import {
  CustomObjectsApi,
  KubeConfig,
  ServerConfiguration,
  createConfiguration,
  PatchStrategy,
  makeInformer,
  setHeaderOptions,
  type KubernetesObject,
} from '@kubernetes/client-node';
import {
  GROUP,
  hashConfig,
  labelledRevisionNumber,
  shortHash,
  VERSION,
  type NodeConfig,
  type NodeConfigStatus,
} from '@nodenet/api';
import { reportedStatus, type AgentReport } from '../agent-status.js';
import type { AgentWritePattern } from './agent-write-pattern.js';
import { playConfirmWindow } from './pattern-window.js';
import { PatternWrites } from './pattern-writes.js';
import { beatWhileWorking, SimulatedLeases, type LivenessOptions } from './agent-liveness.js';

export type AgentBehaviour =
  | { kind: 'ok'; delayMs?: number }
  | { kind: 'invalid'; delayMs?: number; message?: string }
  /**
   * Stopped in the confirm window (a DaemonSet update): reports `invalid` with failureCause
   * `Interrupted` (the previous revision restored), then — as the real agent does with an
   * interrupted attempt — applies it again on its own after `retryAfterMs` and reports `provisioned`.
   */
  | { kind: 'interrupted'; delayMs?: number; retryAfterMs?: number }
  /** The agent never reports anything (not started, crashed before reporting). */
  | { kind: 'never' }
  /** Reports `provisioning` and then nothing: no report, no Lease renewal (a silent agent). */
  | { kind: 'stuck' };

export interface StatusWriteRecord {
  node: string;
  revision: string;
  configStatus: string;
  at: number;
}

export interface SimulatedAgentsOptions {
  kubeconfigPath: string;
  /** Behaviour per node and revision hash; default: ok after `defaultDelayMs`. */
  behaviour?: (node: string, revision: string) => AgentBehaviour;
  defaultDelayMs?: number;
  /**
   * How far each node's clock is off (ms, positive = ahead): the agent's `lastUpdate` and condition
   * times are written on it, as a real agent on a host with a wrong clock would.
   */
  clockSkewMs?: (node: string) => number;
  /** Called after each status write has landed, e.g. to cut the node off right after it reported. */
  afterWrite?: (write: StatusWriteRecord) => void | Promise<void>;
  /** Nodes whose agent predates `status.revisionNumber` (writes no revision numbers). */
  legacyAgents?: (node: string) => boolean;
  /**
   * Nodes whose agent answers generation changes only, not a new `assigned-at` of the same spec
   * (breaks the rule of docs/agent-status.md, as agents written to its older text did).
   */
  generationOnlyAgents?: (node: string) => boolean;
  /**
   * Play the real agent's whole write pattern (agent-write-pattern.ts: progress reports, liveness
   * through the confirm window, observed state, the Node condition) for `ok` behaviours; without
   * it an agent writes `provisioning` and its result only. Plain-HTTP devcluster only.
   */
  writePattern?: AgentWritePattern;
  /** The liveness Lease: heartbeat interval and namespace (agent-liveness.ts). */
  liveness?: LivenessOptions;
  /** Nodes whose agent predates the Lease: it rewrites its status at each heartbeat instead. */
  statusHeartbeatAgents?: (node: string) => boolean;
}

const PLURAL = 'nodeconfigs';

export class SimulatedAgents {
  readonly kc = new KubeConfig();
  private readonly api: CustomObjectsApi;
  /** The nodes' liveness Leases (agent-liveness.ts). */
  readonly leases: SimulatedLeases;
  private informer: ReturnType<typeof makeInformer<KubernetesObject>> | undefined;
  /**
   * Per node: the generation handled and its revision number, the revision on the "host" and its
   * number, the pending timer.
   */
  private readonly state = new Map<string, AgentState>();
  /** Every assignment an agent handled: whether its spec changed the host config (issue 26). */
  readonly handed: { node: string; revision: string; changed: boolean }[] = [];
  private readonly stoppedNodes = new Set<string>();
  readonly writes: StatusWriteRecord[] = [];
  writeErrors = 0;
  /** The pattern's writes besides status reports (with a write pattern). */
  patternWrites: PatternWrites | undefined;
  private pattern: AgentWritePattern | undefined;
  private stopped = false;
  behaviour: (node: string, revision: string) => AgentBehaviour;

  constructor(private readonly opts: SimulatedAgentsOptions) {
    this.kc.loadFromFile(opts.kubeconfigPath);
    // Like kc.makeApiClient(CustomObjectsApi), but with one keep-alive agent: the kubeconfig's
    // authentication sets a brand-new Agent per request, i.e. a TCP connection per status write,
    // which a real agent (one long-lived client) does not pay.
    const cluster = this.kc.getCurrentCluster();
    if (!cluster) throw new Error(`${opts.kubeconfigPath}: no current cluster`);
    // Plain HTTP (devcluster) only: for HTTPS the generated agent carries the CA and client cert.
    const reuse = cluster.server.startsWith('http:') && !cluster.proxyUrl;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
    const kc = this.kc;
    const config = createConfiguration({
      baseServer: new ServerConfiguration(cluster.server, {}),
      authMethods: {
        default: {
          getName: () => 'kubeconfig with keep-alive',
          applySecurityAuthentication: async (ctx) => {
            await kc.applySecurityAuthentication(ctx);
            if (reuse) ctx.setAgent(agent);
          },
        },
      },
    });
    this.api = new CustomObjectsApi(config);
    this.leases = new SimulatedLeases(config, opts.liveness);
    if (opts.writePattern) this.playPattern(opts.writePattern);
    this.behaviour = opts.behaviour ?? (() => ({ kind: 'ok', delayMs: opts.defaultDelayMs ?? 20 }));
  }

  async start(): Promise<void> {
    const list = () =>
      this.api.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL }) as Promise<{
        apiVersion: string;
        kind: string;
        metadata: { resourceVersion?: string };
        items: KubernetesObject[];
      }>;
    this.informer = makeInformer<KubernetesObject>(this.kc, `/apis/${GROUP}/${VERSION}/${PLURAL}`, list);
    const onObj = (o: KubernetesObject): void => this.handle(o as unknown as NodeConfig);
    this.informer.on('add', onObj);
    this.informer.on('update', onObj);
    this.informer.on('error', () => {
      if (!this.stopped) setTimeout(() => void this.informer?.start(), 200);
    });
    await this.informer.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const s of this.state.values()) {
      if (s.timer) clearTimeout(s.timer);
      s.stopBeat?.();
    }
    await this.informer?.stop();
    this.patternWrites?.close();
  }

  /** From now on, assignments play this write pattern (see `writePattern`). */
  playPattern(pattern: AgentWritePattern): void {
    this.pattern = pattern;
    this.patternWrites ??= new PatternWrites(this.kc);
  }

  /** The agent of this node stops (no more status writes), e.g. for a node that goes away. */
  stopNode(node: string): void {
    this.stoppedNodes.add(node);
    const s = this.state.get(node);
    if (s?.timer) clearTimeout(s.timer);
    s?.stopBeat?.();
  }

  /**
   * The agent of this node runs again and handles its NodeConfig. With `keepFailed`, like the real
   * agent (rejected.json), it does not apply again an attempt it already reported invalid: only a new
   * assignment (a new `assigned-at`) makes it try.
   */
  resumeNode(node: string, opts: { keepFailed?: boolean } = {}): void {
    this.stoppedNodes.delete(node);
    const st = this.state.get(node) as { key?: string; failedKey?: string } | undefined;
    if (st && !(opts.keepFailed && st.failedKey !== undefined && st.failedKey === st.key)) delete st.key;
    const nc = this.informer?.get(node) as unknown as NodeConfig | undefined;
    if (nc) this.handle(nc);
  }

  private handle(nc: NodeConfig): void {
    if (this.stopped) return;
    const node = nc.metadata.name;
    if (this.stoppedNodes.has(node)) return;
    const s = this.state.get(node) ?? {};
    this.state.set(node, s);
    const gen = nc.metadata.generation;
    const assignedAt = nc.metadata.annotations?.['network.nodenet.io/assigned-at'];
    const key = this.opts.generationOnlyAgents?.(node) ? `${gen}` : `${gen}|${assignedAt}`;
    if ((s as { key?: string }).key === key) return;
    (s as { key?: string }).key = key;
    if (s.timer) clearTimeout(s.timer);
    s.stopBeat?.();
    const revision = nc.spec.revision;
    const content = hashConfig({ ...nc.spec, revision: '' });
    s.number = labelledRevisionNumber(nc);
    const noOp = s.host !== revision && s.hostContent === content;
    this.handed.push({ node, revision, changed: s.host !== revision && !noOp });
    if (noOp) Object.assign(s, { host: revision, hostNumber: s.number });
    if (s.host === revision) {
      void this.write(node, revision, gen, {
        configStatus: 'provisioned',
        lastAppliedRevision: revision,
        message: 'unchanged',
      });
      this.patternWrites?.conditions(node, revision, this.pattern?.nodeCondition.noOp);
      return;
    }
    const b = this.behaviour(node, revision);
    if (b.kind === 'never') return;
    const previous = s.host;
    const provisioning: AgentReport = {
      configStatus: 'provisioning',
      ...(previous ? { lastAppliedRevision: previous } : {}),
      message: `applying ${shortHash(revision)}`,
    };
    void this.write(node, revision, gen, provisioning);
    const pattern = b.kind === 'ok' ? this.pattern : undefined;
    this.patternWrites?.conditions(node, revision, pattern?.nodeCondition.changing.slice(0, 1));
    if (b.kind === 'stuck') return;
    // A pattern-playing agent (the bench) makes the pattern's liveness writes instead of the beat's.
    if (!pattern) s.stopBeat = this.beat(nc, provisioning);
    s.timer = setTimeout(
      () => {
        s.stopBeat?.();
        if (this.stopped || this.stoppedNodes.has(node)) return;
        if (b.kind === 'ok') {
          this.settle(pattern, { node, revision, gen, key, previous, nc, content });
        } else if (b.kind === 'interrupted') {
          void this.write(node, revision, gen, {
            configStatus: 'invalid',
            failureCause: 'Interrupted',
            ...(previous ? { lastAppliedRevision: previous } : {}),
            message: `agent stopped 3 s into the confirm window; restored revision ${shortHash(previous ?? '')}`,
          });
          s.timer = setTimeout(() => {
            if (this.stopped || this.stoppedNodes.has(node)) return;
            Object.assign(s, { host: revision, hostContent: content, hostNumber: s.number });
            void this.write(node, revision, gen, {
              configStatus: 'provisioned',
              lastAppliedRevision: revision,
              message: 'applied (after an interruption)',
            });
          }, b.retryAfterMs ?? 200);
        } else {
          (s as { failedKey?: string }).failedKey = key;
          void this.write(node, revision, gen, {
            configStatus: 'invalid',
            ...(previous ? { lastAppliedRevision: previous } : {}),
            message: b.message ?? 'simulated failure',
          });
        }
      },
      b.delayMs ?? this.opts.defaultDelayMs ?? 20,
    );
  }

  /** An `ok` apply's end: `provisioned`, after the confirm window's writes with a pattern. */
  private settle(
    pattern: AgentWritePattern | undefined,
    a: Attempt & { nc: NodeConfig; content: string },
  ): void {
    const s = this.state.get(a.node)!;
    const applied = (): void => {
      Object.assign(s, { host: a.revision, hostContent: a.content, hostNumber: s.number });
      void this.write(a.node, a.revision, a.gen, {
        configStatus: 'provisioned',
        lastAppliedRevision: a.revision,
        message: 'applied',
      });
      if (pattern) this.patternWrites?.afterApplied(a.node, a.nc.spec, pattern);
    };
    if (!pattern) applied();
    else
      void this.playWindow(pattern, a).then((go) => {
        if (go) applied();
      });
  }

  /** The pattern's confirm window (pattern-window.ts); false when the agent stopped or moved on. */
  private playWindow(p: AgentWritePattern, a: Attempt): Promise<boolean> {
    const st = this.state.get(a.node) as { key?: string };
    return playConfirmWindow(p, a, {
      live: () => !this.stopped && !this.stoppedNodes.has(a.node) && st.key === a.key,
      write: (report) => this.write(a.node, a.revision, a.gen, report),
      writes: this.patternWrites,
    });
  }

  /** The liveness beat while the agent works on `nc`: a Lease renewal, or an old agent's status rewrite. */
  private beat(nc: NodeConfig, provisioning: AgentReport): () => void {
    const node = nc.metadata.name;
    return beatWhileWorking(this.leases.heartbeatMs, () => {
      if (this.stopped || this.stoppedNodes.has(node)) return;
      if (this.opts.statusHeartbeatAgents?.(node))
        void this.write(node, nc.spec.revision, nc.metadata.generation, provisioning);
      else void this.leases.renew(node, nc.metadata.uid);
    });
  }

  /** Per node, the write in flight: a real agent writes its status one request at a time. */
  private readonly writing = new Map<string, Promise<void>>();

  /**
   * Queues a status write behind the node's previous one, as the real agent's single status writer
   * does: two writes in flight on different connections could otherwise land in either order and
   * leave `provisioning` after `provisioned`.
   */
  private write(
    node: string,
    revision: string,
    generation: number | undefined,
    st: AgentReport,
  ): Promise<void> {
    const prev = this.writing.get(node) ?? Promise.resolve();
    const numbered = { ...st, ...this.numbers(node, st) };
    const next = prev.then(() => this.send(node, revision, generation, numbered));
    this.writing.set(node, next);
    void next.finally(() => {
      if (this.writing.get(node) === next) this.writing.delete(node);
    });
    return next;
  }

  /** The revision numbers a write names, taken when it is made (a queued write keeps its own). */
  private numbers(node: string, st: Pick<NodeConfigStatus, 'lastAppliedRevision'>): NumbersOfReport {
    const s = this.state.get(node);
    if (this.opts.legacyAgents?.(node) || !s) return {};
    const onHost = st.lastAppliedRevision !== undefined && st.lastAppliedRevision === s.host;
    return {
      ...(s.number !== undefined ? { revisionNumber: s.number } : {}),
      ...(onHost && s.hostNumber !== undefined ? { appliedRevisionNumber: s.hostNumber } : {}),
    };
  }

  private async send(
    node: string,
    revision: string,
    generation: number | undefined,
    st: AgentReport,
  ): Promise<void> {
    const now = new Date(Date.now() + (this.opts.clockSkewMs?.(node) ?? 0)).toISOString();
    const status = reportedStatus(st, now, generation);
    for (let attempt = 0; attempt < 5 && !this.stopped; attempt++) {
      try {
        await this.api.patchClusterCustomObjectStatus(
          { group: GROUP, version: VERSION, plural: PLURAL, name: node, body: { status } },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        );
        const rec = { node, revision, configStatus: st.configStatus ?? '', at: Date.now() };
        this.writes.push(rec);
        await this.opts.afterWrite?.(rec);
        return;
      } catch {
        this.writeErrors++;
        await new Promise((r) => setTimeout(r, 50 * (attempt + 1)));
      }
    }
  }
}

interface AgentState {
  generation?: number;
  number?: number;
  host?: string;
  hostContent?: string;
  hostNumber?: number;
  timer?: NodeJS.Timeout;
  /** Ends the liveness beat of the change under way. */
  stopBeat?: () => void;
}

/** One assignment an agent handles. */
interface Attempt {
  node: string;
  revision: string;
  gen: number | undefined;
  key: string;
  previous: string | undefined;
}

type NumbersOfReport = Pick<NodeConfigStatus, 'revisionNumber' | 'appliedRevisionNumber'>;
