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
import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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
import { startDevCluster, type DevCluster, type DevClusterOptions } from '@nodenet/devcluster';
import { isConflict, KubeClient, loadKubeConfig, makeClients, type Clients } from '@nodenet/kube';
import { testTemplate } from './frr-template.js';
import { spawnConfigurator as spawnTestConfigurator } from '../fleet/configurator-process.js';
import { NodeEnv } from './node-env.js';
import { repoRoot } from './namespaces.js';

export const NODE_TEMPLATE = testTemplate({ hostname: 'nn-agent-node' });

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
export const spawnHostConfigurator = (kubeconfigPath: string): ChildProcess =>
  spawnTestConfigurator(kubeconfigPath, [
    '--update-limit',
    '1',
    '--max-failures',
    '0',
    '--identity',
    'fleet-test',
  ]);

/** Stops a process started by spawnHostConfigurator and waits for it to exit. */
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

  constructor(
    readonly tag: string,
    /**
     * Start agents and helpers each in its own process group: a terminal's Ctrl-C (sent to the whole
     * foreground group) reaches only the program that owns them, which stops them in order (the demo).
     */
    readonly options: { ownProcessGroups?: boolean } = {},
  ) {
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

  /** What the cluster holds on the machine: every node's footprint, plus its own directories. */
  footprint(): ReturnType<NodeEnv['footprint']> {
    const parts = this.nodes.map((n) => n.footprint());
    return {
      namespaces: parts.flatMap((p) => p.namespaces),
      pids: parts.flatMap((p) => p.pids),
      dirs: [
        ...parts.flatMap((p) => p.dirs),
        this.work,
        ...(this.dc ? [dirname(this.dc.kubeconfigPath)] : []),
      ],
    };
  }

  async tearDown(): Promise<void> {
    for (const n of this.nodes) await n.tearDown();
    this.bridge?.close();
    this.client?.close();
    await this.dc?.stop();
    rmSync(this.work, { recursive: true, force: true });
  }
}
