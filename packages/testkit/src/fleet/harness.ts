/**
 * Fleet test harness: a devcluster with the nodenet CRDs, Nodes, input objects, an in-process
 * configurator (the real Controller over HTTP) and a watch-stream recorder that checks invariants.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startDevCluster, type DevCluster } from '@nodenet/devcluster';
import { KubeClient, loadKubeConfig, makeClients, type Clients, type Node } from '@nodenet/kube';
import {
  DEFAULT_POLICY,
  reportsOnSpec,
  runConfigurator,
  type ConfiguratorOptions,
  type Policy,
  type SizeBudget,
  type RunningConfigurator,
} from '@nodenet/configurator';

export type { RunningConfigurator };
import {
  agentReport,
  appliedNumber,
  type Layer2NetworkConfiguration,
  type NetworkConfigRevision,
  type NodeConfig,
} from '@nodenet/api';
import { SimulatedAgents, type AgentBehaviour, type SimulatedAgentsOptions } from './simulated-agent.js';
import { Watch } from '@kubernetes/client-node';
import { waitFor } from '../wait-for.js';
export { waitFor };

export const CRDS_DIR = fileURLToPath(new URL('../../../../crds/', import.meta.url));
export { CONFIGURATOR_MAIN, spawnConfigurator } from './configurator-process.js';

export async function startCluster(): Promise<{ dc: DevCluster; clients: Clients }> {
  const dc = await startDevCluster({ crdsDir: CRDS_DIR });
  const clients = makeClients(new KubeClient(loadKubeConfig(dc.kubeconfigPath)));
  return { dc, clients };
}

/** What each fleet test gets (test/fleet/harness.ts `useFleet`): a fresh devcluster and watch recorder; it sets agents and configurator. */
export interface Fleet {
  dc: DevCluster;
  clients: Clients;
  recorder: NodeConfigRecorder;
  agents?: SimulatedAgents;
  configurator?: RunningConfigurator;
  /** All revisions, oldest first (by spec.number). */
  revisions(): Promise<NetworkConfigRevision[]>;
}

/** kubectl as an independent client. Asynchronous on purpose: devcluster serves from this process. */
export const kubectl = async (kubeconfigPath: string, ...args: string[]): Promise<string> =>
  (await promisify(execFile)('kubectl', ['--kubeconfig', kubeconfigPath, ...args], { encoding: 'utf8' }))
    .stdout;

/** kubectl against the fleet's devcluster. */
export const kubectlOf =
  (f: Fleet) =>
  (...args: string[]): Promise<string> =>
    kubectl(f.dc.kubeconfigPath, ...args);

export const nodeName = (i: number): string => `node-${String(i).padStart(3, '0')}`;

export async function createNode(
  clients: Clients,
  name: string,
  labels: Record<string, string> = {},
  ready = true,
): Promise<Node> {
  const created = await clients.node.create({ metadata: { name, labels } });
  return setNodeReady(clients, created.metadata.name, ready);
}

export async function setNodeReady(clients: Clients, name: string, ready: boolean): Promise<Node> {
  return clients.node.patchStatus(name, {
    status: {
      conditions: [
        {
          type: 'Ready',
          status: ready ? 'True' : 'False',
          reason: ready ? 'KubeletReady' : 'NodeStatusUnknown',
          message: ready ? 'kubelet is posting ready status' : 'Kubelet stopped posting node status.',
          lastHeartbeatTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
          lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
        },
      ],
    },
  });
}

export function layer2(
  name: string,
  id: number,
  extra: Partial<Layer2NetworkConfiguration['spec']> = {},
): Layer2NetworkConfiguration {
  return {
    apiVersion: 'network.nodenet.io/v1alpha1',
    kind: 'Layer2NetworkConfiguration',
    metadata: { name },
    spec: { id, vni: 10000 + id, mtu: 1500, ...extra },
  };
}

/** The default policy without a soak (the default 1m would make every test minutes long); tests of the soak set one. */
export const testPolicy = (over: Partial<Policy> = {}): Policy => ({
  ...DEFAULT_POLICY,
  minSuccessTimeMs: 0,
  ...over,
});

/**
 * The real configurator (`runConfigurator`, as the binary runs it) in this process, with leader
 * election in `default`, endpoints on free loopback ports, logs silent unless NODENET_TEST_LOG.
 * Resolves once its informers have synced.
 */
export async function startConfigurator(
  kubeconfigPath: string,
  policy: Policy,
  opts: {
    identity?: string;
    buildTiming?: ConfiguratorOptions['buildTiming'];
    budget?: SizeBudget;
    underlay?: ConfiguratorOptions['underlay'];
  } = {},
): Promise<RunningConfigurator> {
  const loopback = { host: '127.0.0.1', port: 0 };
  const running = await runConfigurator({
    kubeconfig: kubeconfigPath,
    policy,
    leaderElection: {
      namespace: 'default',
      name: 'nodenet-configurator',
      leaseDurationMs: 3000,
      renewDeadlineMs: 2000,
      retryPeriodMs: 500,
    },
    identity: opts.identity ?? 'test-configurator',
    metricsAddr: loopback,
    healthAddr: loopback,
    logLevel: process.env.NODENET_TEST_LOG ?? 'silent',
    coalesceMs: 20,
    eventsNamespace: 'default',
    // The simulated agents' liveness Leases (agent-liveness.ts) live in `default` too.
    agentLeaseNamespace: 'default',
    // Test timing: a short quiet period before each build (the default is 2 s).
    buildTiming: opts.buildTiming ?? { quietMs: 100, maxDelayMs: 1000 },
    ...(opts.budget ? { budget: opts.budget } : {}),
    ...(opts.underlay ? { underlay: opts.underlay } : {}),
  });
  await running.synced;
  return running;
}

/** In progress = assigned, and the agent has neither finished it nor reported it invalid. */
export function inProgress(nc: NodeConfig): boolean {
  const st = nc.status;
  if (st?.configStatus === 'provisioned' && st.lastAppliedRevision === nc.spec.revision) return false;
  if (st?.configStatus === 'invalid' && reportsOnSpec(nc)) return false;
  return true;
}

/**
 * Records the NodeConfig watch stream (an independent client-node Watch) and tracks, after every
 * event, how many nodes are in progress.
 */
export class NodeConfigRecorder {
  readonly current = new Map<string, NodeConfig>();
  readonly events: { type: string; nc: NodeConfig; at: number; inProgress: number }[] = [];
  maxInProgress = 0;
  private abort: AbortController | undefined;

  constructor(private readonly kubeconfigPath: string) {}

  async start(): Promise<void> {
    const kc = loadKubeConfig(this.kubeconfigPath);
    const w = new Watch(kc);
    this.abort = await w.watch(
      '/apis/network.nodenet.io/v1alpha1/nodeconfigs',
      {},
      (type, obj: NodeConfig) => {
        if (type === 'DELETED') this.current.delete(obj.metadata.name);
        else if (type === 'ADDED' || type === 'MODIFIED') this.current.set(obj.metadata.name, obj);
        else return;
        const n = [...this.current.values()].filter(inProgress).length;
        this.maxInProgress = Math.max(this.maxInProgress, n);
        this.events.push({ type, nc: obj, at: Date.now(), inProgress: n });
      },
      () => undefined,
    );
  }

  stop(): void {
    this.abort?.abort();
  }

  /** Replays the stream: the most nodes in progress at once, leaving out the named ones. */
  maxInProgressExcluding(excluded: string[]): number {
    const cur = new Map<string, NodeConfig>();
    let max = 0;
    for (const e of this.events) {
      if (e.type === 'DELETED') cur.delete(e.nc.metadata.name);
      else cur.set(e.nc.metadata.name, e.nc);
      const n = [...cur.values()].filter(
        (nc) => !excluded.includes(nc.metadata.name) && inProgress(nc),
      ).length;
      max = Math.max(max, n);
    }
    return max;
  }

  /** Annotation values of `assigned-by` in the order assignments were seen. */
  assigners(): string[] {
    const out: string[] = [];
    const seen = new Set<string>();
    for (const e of this.events) {
      const a = e.nc.metadata.annotations?.['network.nodenet.io/assigned-at'];
      const by = e.nc.metadata.annotations?.['network.nodenet.io/assigned-by'];
      const k = `${e.nc.metadata.name}|${a}`;
      if (a && by && !seen.has(k)) {
        seen.add(k);
        out.push(by);
      }
    }
    return out;
  }
}

export const isComplete = (r: NetworkConfigRevision | undefined): boolean =>
  r?.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') ?? false;

/** The revision with this number, if it exists. */
export const revisionNumbered = async (f: Fleet, n: number): Promise<NetworkConfigRevision | undefined> =>
  (await f.revisions()).find((r) => r.spec.number === n);

/** Names of the nodes whose NodeConfig was ever seen carrying this revision hash, sorted. */
export const nodesThatTook = (f: Fleet, hash: string): string[] =>
  [
    ...new Set(f.recorder.events.filter((e) => e.nc.spec.revision === hash).map((e) => e.nc.metadata.name)),
  ].sort();

/** How the fleet of fleetOnRevision1 treats the revisions after the first, and how it is labelled. */
export interface FleetOnRevision1Options {
  /** How each node's agent treats any revision after revision 1 (default: applies it in 50 ms). */
  later?: (node: string) => AgentBehaviour;
  /** More options of the simulated agents. */
  agents?: Partial<SimulatedAgentsOptions>;
  /** The labels of node i (default: none). */
  labels?: (i: number) => Record<string, string>;
}

/**
 * n nodes (node-000…), simulated agents, the configurator with `policy`, and revision 1 (Layer-2
 * `blue`) complete. Agents apply revision 1 in 30 ms; `later` says how they treat any later one.
 */
export async function fleetOnRevision1(
  f: Fleet,
  n: number,
  policy: Partial<Policy>,
  opts: FleetOnRevision1Options = {},
): Promise<NetworkConfigRevision> {
  const { later = () => ({ kind: 'ok', delayMs: 50 }), agents: agentOpts = {}, labels = () => ({}) } = opts;
  for (let i = 0; i < n; i++) await createNode(f.clients, nodeName(i), labels(i));
  let rev1 = '';
  f.agents = new SimulatedAgents({
    kubeconfigPath: f.dc.kubeconfigPath,
    behaviour: (node, revision) => (!rev1 || revision === rev1 ? { kind: 'ok', delayMs: 30 } : later(node)),
    ...agentOpts,
  });
  await f.agents.start();
  await f.clients.layer2.create(layer2('blue', 100));
  f.configurator = await startConfigurator(f.dc.kubeconfigPath, testPolicy(policy));
  const r1 = await waitFor('revision 1 complete', async () => {
    const r = await revisionNumbered(f, 1);
    return isComplete(r) ? r : undefined;
  });
  rev1 = r1.spec.hash;
  await rowsShowRevision1(f, n);
  return r1;
}

/**
 * Until all n rows (`kubectl get nc`, from the agents' status; an older agent's from the row labels)
 * show revision 1 provisioned: scenarios start from a fleet where nothing is left to write.
 */
async function rowsShowRevision1(f: Fleet, n: number): Promise<void> {
  await waitFor('rows of revision 1 written', async () => {
    const ncs = (await f.clients.nodeConfig.list()).items;
    const settled = (nc: NodeConfig): boolean =>
      agentReport(nc) === 'provisioned' && appliedNumber(nc, []) === 1;
    return ncs.length === n && ncs.every(settled) ? true : undefined;
  });
}
