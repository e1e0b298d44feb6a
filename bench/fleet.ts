/**
 * Fleet benchmark (issue 4).
 * 1. 1,000 simulated nodes on devcluster, --update-limit 100, 200 ms simulated apply: time from an
 *    input change to the whole fleet on the new revision, next to the floor ceil(1000/100) × 200 ms,
 *    and the configurator's API requests per node.
 * 2. Revision build for 5,000 nodes, 2,000 Layer-2 networks with node selectors and 500 VRFs:
 *    validation + merge + hash, the 5,000 NodeConfig specs, and one planner pass; time and memory.
 * Run: npx tsx bench/fleet.ts [--nodes 1000] [--limit 100] [--latency 200]
 */
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import {
  nodeConfigSpec,
  canonicalJson,
  type Inputs,
  type NetworkConfigRevision,
  type NodeConfig,
} from '@nodenet/api';
import { startDevCluster } from '@nodenet/devcluster';
import { KubeClient, loadKubeConfig, makeClients } from '@nodenet/kube';
import {
  Controller,
  DEFAULT_POLICY,
  Metrics,
  NodeSpecCache,
  buildRevision,
  plan,
} from '@nodenet/configurator';
import { SimulatedAgents } from '../test/support/simulated-agent.js';

const { values: args } = parseArgs({
  options: {
    nodes: { type: 'string', default: '1000' },
    limit: { type: 'string', default: '100' },
    latency: { type: 'string', default: '200' },
    skipFleet: { type: 'boolean', default: false },
  },
});
const N = Number(args.nodes);
const LIMIT = Number(args.limit);
const LATENCY = Number(args.latency);
const CRDS = new URL('../crds/', import.meta.url).pathname;

async function pool<T>(items: T[], n: number, fn: (t: T) => Promise<unknown>): Promise<void> {
  let i = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (i < items.length) await fn(items[i++] as T);
    }),
  );
}

async function fleetScenario(): Promise<void> {
  const dc = await startDevCluster({ crdsDir: CRDS });
  const setup = makeClients(new KubeClient(loadKubeConfig(dc.kubeconfigPath)));
  const names = Array.from({ length: N }, (_, i) => `node-${String(i).padStart(4, '0')}`);
  await pool(names, 32, async (name) => {
    await setup.node.create({ metadata: { name } });
    await setup.node.patchStatus(name, {
      status: {
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'KubeletReady',
            message: '',
            lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
          },
        ],
      },
    });
  });
  await setup.layer2.create({
    metadata: { name: 'blue' },
    spec: { id: 100, vni: 10100, mtu: 1500 },
  } as never);
  const agents = new SimulatedAgents({ kubeconfigPath: dc.kubeconfigPath, defaultDelayMs: LATENCY });
  await agents.start();

  const client = new KubeClient(loadKubeConfig(dc.kubeconfigPath));
  const clients = makeClients(client);
  const controller = new Controller({
    clients,
    policy: { ...DEFAULT_POLICY, updateLimit: { kind: 'count', count: LIMIT } },
    log: pino({ level: 'silent' }),
    metrics: new Metrics(),
    identity: 'bench',
    coalesceMs: 50,
  });
  await controller.start();
  const completeOn = async (n: number): Promise<NetworkConfigRevision> => {
    for (;;) {
      const r = controller.informers.revision.list().find((x) => x.spec.number === n);
      if (r?.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True')) return r;
      await new Promise((res) => setTimeout(res, 10));
    }
  };
  const allOn = async (hash: string): Promise<void> => {
    for (;;) {
      const ncs = agents.kc && (await setup.nodeConfig.list()).items;
      if (
        ncs.length === N &&
        ncs.every(
          (nc: NodeConfig) =>
            nc.status?.configStatus === 'provisioned' && nc.status.lastAppliedRevision === hash,
        )
      )
        return;
      await new Promise((res) => setTimeout(res, 25));
    }
  };
  await completeOn(1);
  const reqBefore = { ...client.requestCounts };
  const totalBefore = client.totalRequests;
  const agentWritesBefore = agents.writes.length;
  const t0 = performance.now();
  await setup.layer2.create({ metadata: { name: 'red' }, spec: { id: 200, vni: 10200, mtu: 1500 } } as never);
  const r2 = await completeOn(2);
  const tStatus = performance.now() - t0;
  await allOn(r2.spec.hash);
  const tAll = performance.now() - t0;
  const floor = Math.ceil(N / LIMIT) * LATENCY;
  const perVerb = Object.fromEntries(
    Object.entries(client.requestCounts).map(([k, v]) => [k, v - (reqBefore as Record<string, number>)[k]!]),
  );
  const requests = client.totalRequests - totalBefore;
  console.log(`\n== fleet: ${N} nodes, limit ${LIMIT}, apply latency ${LATENCY} ms`);
  console.log(`input change → revision Complete:        ${tStatus.toFixed(0)} ms`);
  console.log(
    `input change → all NodeConfigs verified: ${tAll.toFixed(0)} ms (includes this check's own list)`,
  );
  console.log(
    `floor ceil(${N}/${LIMIT}) × ${LATENCY} ms = ${floor} ms; ratio ${(tStatus / floor).toFixed(2)}× (target ≤ 1.5×)`,
  );
  console.log(
    `configurator API requests: ${requests} (${(requests / N).toFixed(2)} per node) ${JSON.stringify(perVerb)}`,
  );
  console.log(
    `simulated agent status writes: ${agents.writes.length - agentWritesBefore} (${((agents.writes.length - agentWritesBefore) / N).toFixed(2)} per node)`,
  );
  await controller.stop();
  await agents.stop();
  client.close();
  setup.client.close();
  await dc.stop();
}

function buildScenario(): void {
  const NODES = 5000;
  const L2 = 2000;
  const VRFS = 500;
  const racks = 50;
  const inputs: Inputs = {
    vrf: Array.from({ length: VRFS }, (_, i) => ({
      apiVersion: 'network.nodenet.io/v1alpha1',
      kind: 'VRFRouteConfiguration' as const,
      metadata: { name: `vrf-${i}`, generation: 1 },
      spec: {
        vrf: `v${i}`,
        vni: 1_000_000 + i,
        seq: 10,
        routeTarget: `65000:${i + 1}`,
        import: [{ cidr: `10.${Math.floor(i / 256)}.${i % 256}.0/24`, seq: 10, action: 'permit' as const }],
        export: [{ cidr: `172.16.${i % 256}.0/24`, seq: 10, action: 'permit' as const }],
      },
    })),
    layer2: Array.from({ length: L2 }, (_, i) => ({
      apiVersion: 'network.nodenet.io/v1alpha1',
      kind: 'Layer2NetworkConfiguration' as const,
      metadata: { name: `l2-${i}`, generation: 1 },
      spec: {
        id: i + 1,
        vni: 2_000_000 + i,
        mtu: 1500,
        anycastMac: '02:00:00:00:00:01',
        anycastGateways: [`10.${100 + Math.floor(i / 256)}.${i % 256}.1/24`],
        vrf: `v${i % VRFS}`,
        nodeSelector: { matchLabels: { rack: `r${i % racks}` } },
      },
    })),
    routingTable: [],
  };
  const nodes = Array.from({ length: NODES }, (_, i) => ({
    name: `node-${i}`,
    labels: { rack: `r${i % racks}` },
    ready: true,
  }));
  global.gc?.();
  const heap0 = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  const built = buildRevision(inputs, [], Date.now());
  const t1 = performance.now();
  if (built.decision.action !== 'create')
    throw new Error(`unexpected: ${JSON.stringify(built.decision).slice(0, 300)}`);
  const rev = built.decision.revision;
  const cache = new NodeSpecCache();
  const specs = nodes.map((n) =>
    cache.spec(
      { config: rev.spec.config, hash: rev.spec.hash },
      { ...n.labels, 'kubernetes.io/hostname': n.name },
    ),
  );
  const t2 = performance.now();
  // The memoized specs equal the direct computation.
  for (const i of [0, 1, 777, 4999]) {
    const n = nodes[i]!;
    if (
      canonicalJson(specs[i]) !==
      canonicalJson(nodeConfigSpec({ config: rev.spec.config, hash: rev.spec.hash }, n.labels))
    )
      throw new Error(`spec mismatch for ${n.name}`);
  }
  const ncs: NodeConfig[] = specs.map((spec, i) => ({
    apiVersion: 'x',
    kind: 'NodeConfig',
    metadata: { name: `node-${i}` },
    spec,
  }));
  const t3 = performance.now();
  const p = plan({
    revisions: [{ ...rev, metadata: { name: rev.metadata.name } }],
    nodes,
    nodeConfigs: ncs,
    now: Date.now(),
    policy: DEFAULT_POLICY,
  });
  const t4 = performance.now();
  const heap1 = process.memoryUsage().heapUsed;
  console.log(`\n== revision build: ${NODES} nodes, ${L2} Layer-2 networks with selectors, ${VRFS} VRFs`);
  console.log(`validate + merge + hash:               ${(t1 - t0).toFixed(0)} ms`);
  console.log(
    `${NODES} NodeConfig specs (filtering):    ${(t2 - t1).toFixed(0)} ms (avg ${(specs.reduce((a, s) => a + s.layer2.length, 0) / NODES).toFixed(0)} L2 per node)`,
  );
  console.log(`total build (target < 1 s):            ${(t2 - t0).toFixed(0)} ms`);
  console.log(
    `one planner pass over ${NODES} nodes:     ${(t4 - t3).toFixed(0)} ms (${p.actions.length} actions)`,
  );
  console.log(
    `heap growth: ${((heap1 - heap0) / 1048576).toFixed(0)} MiB; rss ${(process.memoryUsage().rss / 1048576).toFixed(0)} MiB`,
  );
}

buildScenario();
if (!args.skipFleet) await fleetScenario();
process.exit(0);
