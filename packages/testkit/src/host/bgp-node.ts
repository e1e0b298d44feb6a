/**
 * A node whose only path to the API server is a route learned by BGP (for agent-bgp.test.ts).
 *
 *   node netns                                spine netns
 *   FRR (agent-managed) + nodenet-agent       FRR (AS 65000), bridge `apibr` 10.96.0.1/24,
 *   vtep0 10.97.0.2/24  <---- veth ---->      vtep0p 10.97.0.1/24, TCP relay 10.96.0.1:16443
 *                                             -> Unix socket -> devcluster in the test process
 *
 * The spine announces 10.96.0.0/24 over eBGP; the node has no other route there (no default
 * route), so a change that breaks the session or hijacks the prefix cuts the agent off.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFrr, type FrrNetnsInstance } from './frr-netns.js';
import { kubeconfigYaml } from '@nodenet/devcluster';
import { AgentCluster, NODE_TEMPLATE } from './agent-host.js';
import { helper, HELPER_SCRIPTS, sh } from './namespaces.js';
import { NodeEnv } from './node-env.js';
import { createNode } from '../fleet/harness.js';

export const SPINE_PEER = '10.97.0.1';
export const NODE_PEER = '10.97.0.2';
export const API_ADDR = '10.96.0.1';
export const API_PREFIX = '10.96.0.0/24';
const API_PORT = 16443;

/**
 * The agent's template with the uplink session to the spine; short timers keep the test quick. No
 * `no bgp ebgp-requires-policy`: it is the default under `frr defaults datacenter`, FRR leaves it out
 * of its running config, and the agent's drift check would see it missing at every resync.
 */
const UPLINK = [
  'timers bgp 1 3',
  `neighbor ${SPINE_PEER} remote-as 65000`,
  `neighbor ${SPINE_PEER} timers connect 1`,
];
/** A short confirm window's knobs for these suites: rounds every second, the API server lost for 3 s reverts. */
export const FAST_CONFIRM_ARGS = [
  '--confirm-interval',
  '1s',
  '--confirm-unreachable-limit',
  '3s',
  '--heartbeat-interval',
  '2s',
];

export const BGP_NODE_TEMPLATE = NODE_TEMPLATE.replace(
  ' no bgp network import-check\n',
  [' no bgp network import-check', ...UPLINK.map((l) => ` ${l}`), ''].join('\n'),
);

/**
 * One BGP node per name in `cluster` (its Node object, namespaces, FRR, the uplink session up), the
 * bootstrap template BGP_NODE_TEMPLATE: the fleet of the end-to-end suites. Each is in
 * `cluster.nodes` as soon as it exists, so the cluster's tear-down removes it.
 */
export async function bgpNodes(cluster: AgentCluster, names: readonly string[]): Promise<BgpNodeEnv[]> {
  writeFileSync(cluster.templateFile, BGP_NODE_TEMPLATE);
  const envs: BgpNodeEnv[] = [];
  for (const [i, name] of names.entries()) {
    await createNode(cluster.clients, name);
    const env = new BgpNodeEnv(cluster, name, `${cluster.tag}${i}`);
    cluster.nodes.push(env);
    envs.push(env);
    await env.setUp();
    await env.bootstrapUplink();
  }
  return envs;
}

/**
 * A devcluster, node-1's Node (the agent keeps its NodenetReady condition there) and its BGP node
 * with the uplink established; returns the route to the API server learned from the spine.
 */
export async function bgpNodeOnSpine(tagPrefix: string): Promise<{
  cluster: AgentCluster;
  node: BgpNodeEnv;
  route: NonNullable<ReturnType<BgpNodeEnv['apiRoute']>>;
}> {
  const cluster = new AgentCluster(`${tagPrefix}${Math.random().toString(36).slice(2, 5)}`);
  await cluster.setUp();
  await cluster.clients.node.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' } });
  writeFileSync(cluster.templateFile, BGP_NODE_TEMPLATE);
  const node = new BgpNodeEnv(cluster, 'node-1', cluster.tag);
  cluster.nodes.push(node);
  await node.setUp();
  return { cluster, node, route: await node.bootstrapUplink() };
}

export class BgpNodeEnv extends NodeEnv {
  spine!: FrrNetnsInstance;

  override async setUp(): Promise<void> {
    this.createNamespaces(NODE_PEER, SPINE_PEER);
    const spineNs = this.peerNs;
    // The API server's subnet on the spine (a bridge: this kernel has no dummy devices).
    sh('ip', '-n', spineNs, 'link', 'add', 'apibr', 'type', 'bridge');
    sh('ip', '-n', spineNs, 'addr', 'add', `${API_ADDR}/24`, 'dev', 'apibr');
    sh('ip', '-n', spineNs, 'link', 'set', 'apibr', 'up');
    this.helpers.push(
      await helper(
        spineNs,
        join(HELPER_SCRIPTS, 'tcp-to-unix.ts'),
        String(API_PORT),
        this.cluster.socketPath,
        API_ADDR,
      ),
    );
    writeFileSync(this.kubeconfig, kubeconfigYaml(`http://${API_ADDR}:${API_PORT}`));

    this.spine = startFrr(spineNs, spineNs);
    this.spine.vtysh(
      'configure terminal',
      'router bgp 65000',
      'bgp router-id 10.97.255.1',
      'no bgp ebgp-requires-policy',
      'no bgp network import-check', // apibr has no ports, so no carrier: its connected route is inactive
      'timers bgp 1 3',
      `neighbor ${NODE_PEER} remote-as 65001`,
      `neighbor ${NODE_PEER} timers connect 1`,
      'address-family ipv4 unicast',
      `network ${API_PREFIX}`,
    );
    this.frr = startFrr(this.nodeNs, this.nodeNs);
    this.writeHealthConfig('full');
  }

  /**
   * `full`: the uplink session and the API server are among the configured checks, so a change that
   * breaks the path at once fails the first check. `blind`: only the interface and FRR answering —
   * the first check cannot see the path, as when the session dies only at its hold timer (9–180 s
   * later in a real fabric; here the stolen address kills it within about a second, which would race
   * the first check). What the window's own API-server probe catches is then deterministic.
   * The agent reads the file at start-up.
   */
  writeHealthConfig(kind: 'full' | 'blind'): void {
    const lines =
      kind === 'full'
        ? [
            'interfaces: [vtep0]',
            'apiServer: {timeoutMs: 1000, retries: 1}',
            'frr:',
            `  bgpSessions: [{peer: ${SPINE_PEER}}]`,
          ]
        : ['interfaces: [vtep0]', 'apiServer: {enabled: false}', 'frr: {enabled: true}'];
    writeFileSync(this.healthFile, [...lines, ''].join('\n'));
  }

  /**
   * Gives the node's FRR its site config (what the agent's template renders without nodenet
   * sections) and waits for the BGP route to the API server: the agent needs it to reach the API
   * server at all. Returns that route.
   */
  async bootstrapUplink(): Promise<NonNullable<ReturnType<BgpNodeEnv['apiRoute']>>> {
    // Typed in by hand, this runs under the daemons' own (traditional) defaults, where eBGP needs a
    // policy unless told otherwise; the template's `frr defaults datacenter` makes that the default.
    this.frr.vtysh(
      'configure terminal',
      'router bgp 65001',
      'bgp router-id 10.98.255.1',
      'no bgp ebgp-requires-policy',
      ...UPLINK,
    );
    const deadline = Date.now() + 60_000;
    for (;;) {
      const route = this.apiRoute();
      if (route?.protocol === 'bgp') return route;
      if (Date.now() > deadline) throw new Error(`no BGP route to ${API_PREFIX}: ${JSON.stringify(route)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** The node's route to the API server's subnet, as `ip route` shows it (undefined: none). */
  apiRoute(): { dst: string; gateway?: string; dev: string; protocol?: string } | undefined {
    let out: string;
    try {
      out = sh('ip', '-n', this.nodeNs, '-json', 'route', 'get', API_ADDR);
    } catch {
      return undefined; // Network is unreachable
    }
    const routes = JSON.parse(out || '[]') as {
      dst: string;
      gateway?: string;
      dev: string;
    }[];
    const got = routes[0];
    if (!got) return undefined;
    const table = JSON.parse(sh('ip', '-n', this.nodeNs, '-json', 'route', 'show', API_PREFIX) || '[]') as {
      dst: string;
      gateway?: string;
      dev: string;
      protocol?: string;
    }[];
    return table.find((r) => r.gateway === got.gateway && r.dev === got.dev) ?? { ...got, dst: 'other' };
  }

  /** The uplink session's state as the node's FRR sees it. */
  sessionState(): string {
    const summary = JSON.parse(this.frr.vtysh('show bgp summary json')) as {
      ipv4Unicast?: { peers?: Record<string, { state?: string }> };
    };
    return summary.ipv4Unicast?.peers?.[SPINE_PEER]?.state ?? 'NotConfigured';
  }

  override async tearDown(): Promise<void> {
    try {
      this.spine?.stop();
    } catch {
      /* best effort */
    }
    await super.tearDown();
  }
}
