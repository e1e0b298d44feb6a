/**
 * Harness for end-to-end tests of the real `nodenet-agent` binary.
 *
 * - `AgentCluster`: devcluster in the test process, reachable from any node namespace over a
 *   Unix-socket bridge (Unix sockets are file-system objects, so they cross network namespaces; the
 *   machine's own network namespace is never touched).
 * - `NodeEnv`: one node: a network namespace with an underlay veth `vtep0` towards a peer namespace
 *   that runs a TCP service (the health-check target), a real FRR instance (zebra + bgpd) in the node
 *   namespace, its own state dir, and the agent binary run with `ip netns exec`. The host is read
 *   with `ip -json`.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import {
  API_VERSION,
  ASSIGNED_AT_ANNOTATION,
  hashConfig,
  type NodeConfig,
  type Layer2NetworkConfiguration,
  type NetworkConfigRevision,
  type NodeConfigSpec,
  type NodeConfigStatus,
  type NodeLayer2Entry,
  shortHash,
} from '@nodenet/api';
import {
  kubeconfigYaml,
  startDevCluster,
  type DevCluster,
  type DevClusterOptions,
} from '@nodenet/devcluster';
import { isConflict, KubeClient, loadKubeConfig, makeClients, type Clients } from '@nodenet/kube';
import { startFrr, type FrrNetnsInstance } from '../../frr/support/frr-netns.js';
import { testTemplate } from '../../support/frr-template.js';
import { spawnConfigurator as spawnTestConfigurator } from '../../support/configurator-process.js';

export const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
export const here = fileURLToPath(new URL('.', import.meta.url));

export const NODE_TEMPLATE = testTemplate({ hostname: 'nn-agent-node' });

/** Every node namespace uses the same addresses: they are separate namespaces. */
export const NODE_ADDR = '10.98.0.1';
export const PEER_ADDR = '10.98.0.2';
export const PEER_PORT = 7179;
export const API_PORT = 16443;

export interface IpLink {
  ifindex: number;
  ifname: string;
  operstate: string;
  flags: string[];
  master?: string;
  linkinfo?: { info_kind?: string; info_data?: Record<string, unknown> };
  addr_info?: { family: string; local: string; prefixlen: number }[];
}

export interface AgentRun {
  process: ChildProcess;
  logs: Record<string, unknown>[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the first log line matching, or rejects after the timeout. */
  waitForLog(
    match: (line: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

export const sh = (cmd: string, ...args: string[]): string => execFileSync(cmd, args, { encoding: 'utf8' });

/** Spawns a helper script inside a namespace; resolves once it printed its first line ("ready"). */
export function helper(ns: string, script: string, ...args: string[]): Promise<ChildProcess> {
  // `ip netns exec` execs node itself (tsx as a loader, not a wrapper process), so killing the
  // child kills the server.
  const child = spawn('ip', ['netns', 'exec', ns, process.execPath, '--import', 'tsx', script, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    cwd: repoRoot,
  });
  return new Promise((resolve, reject) => {
    child.stdout.once('data', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

/** A node's Layer-2 entry as the tests use it: VNI 20000 + id, one anycast MAC. */
export const l2Entry = (id: number, gateways: string[]): NodeLayer2Entry => ({
  name: `l2-${id}`,
  id,
  mtu: 1500,
  vni: 20000 + id,
  anycastMac: '02:00:00:00:00:01',
  anycastGateways: gateways,
  advertiseNeighbors: false,
  createMacVLANInterface: false,
  neighSuppression: false,
});

/** A NodeConfig spec of Layer-2 networks only (this kernel has no VRF devices), with its revision hash. */
export function layer2Spec(layer2: NodeLayer2Entry[]): NodeConfigSpec {
  const config = { vrf: [], layer2, routingTable: [] };
  return { revision: hashConfig(config), ...config };
}

/** The input resource for a Layer-2 network, as a user writes it. */
export const layer2Input = (name: string, id: number, gateways: string[]): Layer2NetworkConfiguration => ({
  apiVersion: 'network.nodenet.io/v1alpha1',
  kind: 'Layer2NetworkConfiguration',
  metadata: { name },
  spec: { id, vni: 20000 + id, mtu: 1500, anycastMac: '02:00:00:00:00:01', anycastGateways: gateways },
});

/** Polls the cluster for the fleet tests; on timeout the error shows every NodeConfig's state. */
export function fleetQueries(clients: Clients) {
  const nodeConfigs = async (): Promise<NodeConfig[]> => (await clients.nodeConfig.list()).items;
  const revisions = async (): Promise<NetworkConfigRevision[]> =>
    (await clients.revision.list()).items.sort((a, b) => a.spec.number - b.spec.number);
  const until = async <T>(
    what: string,
    fn: () => Promise<T | undefined | false>,
    timeoutMs = 90_000,
  ): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const v = await fn();
      if (v) return v;
      await new Promise((r) => setTimeout(r, 250));
    }
    const state = (await nodeConfigs()).map((nc) => ({
      name: nc.metadata.name,
      revision: shortHash(nc.spec.revision),
      status: nc.status && { ...nc.status, conditions: undefined },
    }));
    const revs = (await revisions()).map((r) => ({
      name: r.metadata.name,
      status: r.status && { ...r.status, conditions: undefined },
    }));
    throw new Error(
      `timed out waiting for ${what}; NodeConfigs: ${JSON.stringify(state)}; revisions: ${JSON.stringify(revs)}`,
    );
  };
  /** Waits for the first revision and for `nodes` NodeConfigs provisioned on it; returns it. */
  const firstRevisionEverywhere = async (nodes: number): Promise<NetworkConfigRevision> => {
    const [rev1] = await until('first revision', async () =>
      (await revisions()).length === 1 ? revisions() : undefined,
    );
    await until(`all ${nodes} provisioned`, async () => {
      const ncs = await nodeConfigs();
      return (
        ncs.length === nodes &&
        ncs.every(
          (nc) =>
            nc.status?.configStatus === 'provisioned' && nc.status.lastAppliedRevision === rev1!.spec.hash,
        )
      );
    });
    return rev1!;
  };
  return { nodeConfigs, revisions, until, firstRevisionEverywhere };
}

/** Starts the configurator binary against the cluster (update limit 1, no failures tolerated). */
export const spawnConfigurator = (kubeconfigPath: string): ChildProcess =>
  spawnTestConfigurator(kubeconfigPath, [
    '--update-limit',
    '1',
    '--max-failures',
    '0',
    '--identity',
    'fleet-test',
  ]);

/** Stops a process started by spawnConfigurator and waits for it to exit. */
export async function stopProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await gone;
}

export class AgentCluster {
  readonly work: string;
  readonly socketPath: string;
  readonly templateFile: string;
  dc!: DevCluster;
  clients!: Clients;
  private client!: KubeClient;
  private bridge!: Server;
  readonly nodes: NodeEnv[] = [];
  private assigned = 0;

  constructor(readonly tag: string) {
    this.work = mkdtempSync(join(tmpdir(), `nodenet-agent-e2e-${tag}-`));
    this.socketPath = join(this.work, 'api.sock');
    this.templateFile = join(this.work, 'frr.conf.tpl');
  }

  async setUp(
    build: string[] = ['packages/agent'],
    devcluster: Pick<DevClusterOptions, 'authorizationMode'> = {},
  ): Promise<void> {
    for (const pkg of build) execFileSync('npx', ['tsc', '-b', pkg], { cwd: repoRoot, stdio: 'pipe' });
    writeFileSync(this.templateFile, NODE_TEMPLATE);
    this.dc = await startDevCluster({ crdsDir: join(repoRoot, 'crds'), ...devcluster });
    this.client = new KubeClient(loadKubeConfig(this.dc.kubeconfigPath));
    this.clients = makeClients(this.client);
    this.bridge = createServer((inbound) => {
      const outbound = connect(this.dc.port, '127.0.0.1');
      inbound.pipe(outbound).pipe(inbound);
      inbound.on('error', () => outbound.destroy());
      outbound.on('error', () => inbound.destroy());
    });
    await new Promise<void>((r) => this.bridge.listen(this.socketPath, r));
  }

  /** Creates a node environment; `index` keeps namespace names unique within the run. */
  async addNode(nodeName: string): Promise<NodeEnv> {
    const env = new NodeEnv(this, nodeName, `${this.tag}${this.nodes.length}`);
    this.nodes.push(env);
    await env.setUp();
    return env;
  }

  /**
   * Assigns `spec` to the node as the configurator does (a later assigned-at each time, plus
   * `extra` annotations); returns the stored generation (the agent's conditions name it).
   */
  async assign(name: string, spec: NodeConfigSpec, extra: Record<string, string> = {}): Promise<number> {
    const annotations = {
      [ASSIGNED_AT_ANNOTATION]: new Date(Date.UTC(2025, 0, 1, 0, 0, this.assigned++)).toISOString(),
      ...extra,
    };
    // The agent writes status (reports, heartbeats, observed state) at any time: a PUT made from
    // an older read conflicts, and is made again from a fresh one.
    for (let attempt = 1; ; attempt++) {
      const existing = await this.clients.nodeConfig.get(name).catch(() => undefined);
      const obj: NodeConfig = {
        apiVersion: API_VERSION,
        kind: 'NodeConfig',
        metadata: { ...(existing?.metadata ?? { name }), annotations },
        spec,
      };
      try {
        const stored = existing
          ? await this.clients.nodeConfig.update(obj)
          : await this.clients.nodeConfig.create(obj);
        return stored.metadata.generation ?? 0;
      } catch (err) {
        if (!isConflict(err) || attempt >= 5) throw err;
      }
    }
  }

  /** Polls the node's NodeConfig status until `pred` holds; throws with the last status. */
  async waitForStatus(
    name: string,
    what: string,
    pred: (s: NodeConfigStatus) => boolean,
    timeoutMs = 40_000,
  ): Promise<NodeConfigStatus> {
    const deadline = performance.now() + timeoutMs;
    let last: NodeConfigStatus | undefined;
    while (performance.now() < deadline) {
      last = (await this.clients.nodeConfig.get(name)).status;
      if (last && pred(last)) return last;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`timed out waiting for ${what}; last status: ${JSON.stringify(last)}`);
  }

  async tearDown(): Promise<void> {
    for (const n of this.nodes) await n.tearDown();
    this.bridge?.close();
    this.client?.close();
    await this.dc?.stop();
    rmSync(this.work, { recursive: true, force: true });
  }
}

/**
 * The underlay MTU of every simulated host: a fabric's usual 9216, so a VRF or Layer-2 network at the
 * default 9000 fits with VXLAN's 50 bytes (examples/vrf.yaml works on the demo's own hosts).
 */
export const UNDERLAY_MTU = 9216;

export class NodeEnv {
  readonly nodeNs: string;
  readonly peerNs: string;
  readonly dir: string;
  readonly stateDir: string;
  readonly healthFile: string;
  readonly kubeconfig: string;
  frr!: FrrNetnsInstance;
  protected apiProxy?: ChildProcess;
  protected helpers: ChildProcess[] = [];
  private agents: AgentRun[] = [];

  constructor(
    readonly cluster: AgentCluster,
    readonly nodeName: string,
    tag: string,
  ) {
    const id = `${process.pid % 10000}`;
    this.nodeNs = `nnag-${tag}-n${id}`;
    this.peerNs = `nnag-${tag}-p${id}`;
    this.dir = join(cluster.work, nodeName);
    this.stateDir = join(this.dir, 'state');
    this.healthFile = join(this.dir, 'health.yaml');
    this.kubeconfig = join(this.dir, 'kubeconfig');
  }

  async setUp(): Promise<void> {
    this.createNamespaces(NODE_ADDR, PEER_ADDR);
    await this.startApi();
    this.helpers.push(await helper(this.peerNs, join(here, 'tcp-server.ts'), PEER_ADDR, String(PEER_PORT)));
    this.writeKubeconfig();
    this.frr = startFrr(this.nodeNs, this.nodeNs);
    writeFileSync(
      this.healthFile,
      [
        'interfaces: [vtep0]',
        'apiServer: {timeoutMs: 2000, retries: 1}',
        'tcp:',
        '  targets:',
        `    - {host: ${PEER_ADDR}, port: ${PEER_PORT}, name: peer, refusedIsReachable: false, timeoutMs: 1000, retries: 1}`,
        '',
      ].join('\n'),
    );
  }

  /**
   * The agent's kubeconfig: the API server through the namespace's port, with `token` (e.g. a
   * pod-bound ServiceAccount token when the server authenticates).
   */
  writeKubeconfig(token?: string): void {
    const scheme = new URL(this.cluster.dc.url).protocol;
    writeFileSync(this.kubeconfig, kubeconfigYaml(`${scheme}//127.0.0.1:${API_PORT}`, undefined, token));
  }

  /**
   * Creates the node and peer namespaces joined by the underlay veth `vtep0` (node side, `nodeAddr`)
   * / `vtep0p` (peer side, `peerAddr`), both /24.
   */
  protected createNamespaces(nodeAddr: string, peerAddr: string): void {
    mkdirSync(this.dir, { recursive: true });
    for (const ns of [this.nodeNs, this.peerNs]) {
      sh('ip', 'netns', 'add', ns);
      sh('ip', '-n', ns, 'link', 'set', 'lo', 'up');
    }
    sh(
      'ip',
      '-n',
      this.nodeNs,
      'link',
      'add',
      'vtep0',
      'type',
      'veth',
      'peer',
      'name',
      'vtep0p',
      'netns',
      this.peerNs,
    );
    sh('ip', '-n', this.nodeNs, 'addr', 'add', `${nodeAddr}/24`, 'dev', 'vtep0');
    sh('ip', '-n', this.peerNs, 'addr', 'add', `${peerAddr}/24`, 'dev', 'vtep0p');
    // Jumbo underlay, as on a real fabric: a VXLAN needs 50 bytes more than its own MTU.
    sh('ip', '-n', this.nodeNs, 'link', 'set', 'vtep0', 'mtu', String(UNDERLAY_MTU), 'up');
    sh('ip', '-n', this.peerNs, 'link', 'set', 'vtep0p', 'mtu', String(UNDERLAY_MTU), 'up');
  }

  /** Makes the API server reachable from the node namespace (127.0.0.1:API_PORT). */
  async startApi(): Promise<void> {
    this.apiProxy = await helper(
      this.nodeNs,
      join(here, 'tcp-to-unix.ts'),
      String(API_PORT),
      this.cluster.socketPath,
    );
    this.helpers.push(this.apiProxy);
  }

  /** The API server "stops" for the node: its port refuses connections, as a stopped server's would. */
  async stopApi(): Promise<void> {
    const proxy = this.apiProxy;
    if (!proxy) return;
    this.apiProxy = undefined;
    const gone = new Promise((r) => proxy.once('exit', r));
    proxy.kill('SIGKILL');
    await gone;
  }

  /** Starts the real agent binary in the node namespace. */
  startAgent(
    opts: {
      env?: Record<string, string>;
      resync?: string;
      /** Default 0s: these suites test the apply itself; agent-bgp.test.ts tests the window. */
      confirmWindow?: string;
      extraArgs?: string[];
      templateFile?: string;
      /** A command the agent runs under, e.g. setpriv with the DaemonSet's securityContext. */
      wrap?: string[];
      /** Also append every line the agent prints to this file (the demo keeps each node's log). */
      logFile?: string;
    } = {},
  ): AgentRun {
    const args = [
      'netns',
      'exec',
      this.nodeNs,
      ...(opts.wrap ?? []), // e.g. setpriv with a pod's securityContext
      process.execPath,
      join(repoRoot, 'packages/agent/dist/main.js'),
      '--kubeconfig',
      this.kubeconfig,
      '--node-name',
      this.nodeName,
      '--state-dir',
      this.stateDir,
      '--health-config',
      this.healthFile,
      '--frr-template',
      opts.templateFile ?? this.cluster.templateFile,
      '--frr-confdir',
      this.frr.confdir,
      '--frr-pathspace',
      this.frr.name,
      '--frr-rundir',
      this.frr.rundir,
      '--asn',
      '65001',
      '--router-id',
      '10.98.255.1',
      '--vtep-interface',
      'vtep0',
      '--resync-period',
      opts.resync ?? '2s',
      '--metrics-addr',
      '127.0.0.1:9462',
      '--health-addr',
      '127.0.0.1:9463',
      '--log-level',
      'debug',
      '--confirm-window',
      opts.confirmWindow ?? '0s',
      ...(opts.extraArgs ?? []),
    ];
    const child = spawn('ip', args, {
      env: { ...process.env, ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const logs: Record<string, unknown>[] = [];
    const waiters: {
      match: (l: Record<string, unknown>) => boolean;
      resolve: (l: Record<string, unknown>) => void;
    }[] = [];
    const logFile = opts.logFile ? createWriteStream(opts.logFile, { flags: 'a' }) : undefined;
    if (logFile) child.once('exit', () => logFile.end());
    const onLine = (line: string): void => {
      logFile?.write(line + '\n');
      let parsed: Record<string, unknown>;
      try {
        parsed = JSON.parse(line) as Record<string, unknown>;
      } catch {
        parsed = { msg: line, raw: true };
      }
      logs.push(parsed);
      for (const w of [...waiters]) {
        if (w.match(parsed)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(parsed);
        }
      }
    };
    createInterface({ input: child.stdout! }).on('line', onLine);
    createInterface({ input: child.stderr! }).on('line', onLine);
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const run: AgentRun = {
      process: child,
      logs,
      exited,
      waitForLog: (match, timeoutMs = 30_000) => {
        const found = logs.find(match);
        if (found) return Promise.resolve(found);
        return new Promise((resolve, reject) => {
          const timer = setTimeout(
            () => reject(new Error(`no matching agent log within ${timeoutMs} ms`)),
            timeoutMs,
          );
          waiters.push({ match, resolve: (l) => (clearTimeout(timer), resolve(l)) });
        });
      },
      stop: async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        await exited;
      },
    };
    this.agents.push(run);
    return run;
  }

  links(): IpLink[] {
    return JSON.parse(sh('ip', '-n', this.nodeNs, '-json', '-details', 'addr', 'show') || '[]') as IpLink[];
  }

  link(name: string): IpLink | undefined {
    return this.links().find((l) => l.ifname === name);
  }

  hasAddress(dev: string, cidr: string): boolean {
    const [local, len] = cidr.split('/');
    return this.link(dev)?.addr_info?.some((a) => a.local === local && a.prefixlen === Number(len)) ?? false;
  }

  async tearDown(): Promise<void> {
    for (const a of this.agents) await a.stop().catch(() => undefined);
    for (const h of this.helpers) h.kill('SIGTERM');
    try {
      this.frr?.stop();
    } catch {
      /* best effort */
    }
    for (const ns of [this.nodeNs, this.peerNs]) {
      try {
        sh('ip', 'netns', 'del', ns);
      } catch {
        /* not created */
      }
    }
  }
}
