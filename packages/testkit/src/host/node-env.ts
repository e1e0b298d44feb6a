/**
 * A simulated node's host: its network namespaces (node, BGP peer), FRR, the agent's files and
 * process, and the helpers that reach the API server from inside (agent-host.ts holds the cluster side).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { kubeconfigYaml } from '@nodenet/devcluster';
import { startFrr, type FrrNetnsInstance } from './frr-netns.js';
import {
  API_PORT,
  HELPER_SCRIPTS,
  helperIn,
  NODE_ADDR,
  PEER_ADDR,
  PEER_PORT,
  repoRoot,
  sh,
  type AgentRun,
  type IpLink,
} from './namespaces.js';

/**
 * The underlay MTU of every simulated host: a fabric's usual 9216, so a VRF or Layer-2 network at the
 * default 9000 fits with VXLAN's 50 bytes (examples/vrf.yaml works on the demo's own hosts).
 */
export const UNDERLAY_MTU = 9216;

/** What a node's environment reads of its cluster (agent-host.ts AgentCluster is one). */
export interface NodeEnvCluster {
  readonly work: string;
  readonly socketPath: string;
  readonly templateFile: string;
  readonly dc: { url: string };
  readonly options: { ownProcessGroups?: boolean };
}

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
    readonly cluster: NodeEnvCluster,
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

  private get detached(): boolean {
    return this.cluster.options.ownProcessGroups === true;
  }

  /**
   * What this node's host holds on the machine, for whoever must say what is left after a stop:
   * its namespaces, its processes (agent, helpers, FRR daemons) and directories.
   */
  footprint(): { namespaces: string[]; pids: { pid: number; what: string; kind: string }[]; dirs: string[] } {
    const pids: { pid: number; what: string; kind: string }[] = [];
    for (const a of this.agents)
      if (a.process.pid !== undefined)
        pids.push({ pid: a.process.pid, what: `${this.nodeName} agent`, kind: 'agent' });
    for (const h of this.helpers)
      if (h.pid !== undefined) pids.push({ pid: h.pid, what: `${this.nodeName} helper`, kind: 'helper' });
    for (const daemon of this.frr?.daemons ?? [])
      try {
        pids.push({ pid: this.frr.pid(daemon), what: `${this.nodeName} FRR ${daemon}`, kind: 'FRR daemon' });
      } catch {
        /* not started, or its pid file is gone */
      }
    return {
      namespaces: [this.nodeNs, this.peerNs],
      pids,
      dirs: this.frr ? [this.frr.confdir, this.frr.rundir] : [],
    };
  }

  async setUp(): Promise<void> {
    this.createNamespaces(NODE_ADDR, PEER_ADDR);
    await this.startApi();
    this.helpers.push(
      await helperIn({
        ns: this.peerNs,
        script: join(HELPER_SCRIPTS, 'tcp-server.ts'),
        args: [PEER_ADDR, String(PEER_PORT)],
        detached: this.detached,
      }),
    );
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
    this.apiProxy = await helperIn({
      ns: this.nodeNs,
      script: join(HELPER_SCRIPTS, 'tcp-to-unix.ts'),
      args: [String(API_PORT), this.cluster.socketPath],
      detached: this.detached,
    });
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
  startAgent(opts: AgentStart = {}): AgentRun {
    const child = spawn('ip', this.agentArgs(opts), {
      env: { ...process.env, ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: this.detached,
    });
    const run = watchAgent(child, opts.logFile);
    this.agents.push(run);
    return run;
  }

  /** `ip netns exec <node> … agent` with the flags of this node, its FRR and the test's options. */
  private agentArgs(opts: AgentStart): string[] {
    return [
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
      // Its liveness Lease where the test configurator watches them (configurator-process.ts).
      '--lease-namespace',
      'default',
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
    // Gone before the namespaces are: whoever checks afterwards finds none of them (bounded).
    await Promise.all(this.helpers.map((h) => stopChild(h)));
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

/** SIGTERM, and SIGKILL when still there after 5 s; resolves once the process is gone. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await gone;
  clearTimeout(timer);
}

/** How a test starts the agent. */
export interface AgentStart {
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
}

/** The agent's log lines, parsed as they come, and waits for a matching one. */
function watchAgent(child: ChildProcess, logPath: string | undefined): AgentRun {
  const logs: Record<string, unknown>[] = [];
  const waiters: {
    match: (l: Record<string, unknown>) => boolean;
    resolve: (l: Record<string, unknown>) => void;
  }[] = [];
  const logFile = logPath ? createWriteStream(logPath, { flags: 'a' }) : undefined;
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
  return run;
}
