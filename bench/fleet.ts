/**
 * Fleet benchmark (issue 4).
 * 1. 1,000 simulated nodes, --update-limit 100, 200 ms simulated apply: time from an input change to
 *    the revision's Complete condition (every node reported the new revision), next to the floor
 *    ceil(1000/100) × 200 ms, plus the configurator's API requests per node and where the time goes.
 *    devcluster (the real CLI) and the simulated agents (bench/fleet-agents.ts, one shared NodeConfig
 *    watch) each run in a process of their own, so that the figure measures the configurator rather
 *    than three programs sharing one event loop; --single-process puts all three in this process.
 * 2. Revision build for 5,000 nodes, 2,000 Layer-2 networks with node selectors and 500 VRFs:
 *    validation + merge + hash, the 5,000 NodeConfig specs, and one planner pass; time and memory.
 * 3. Blast radius (issue 10): a bad revision knocks the first node that takes it off the network
 *    (it reports provisioned, then its agent is silent and its Node NotReady). Reported: how many
 *    nodes received the revision, against the update limit, and the time from the node going NotReady
 *    to the revision being invalid, against --not-ready-timeout. One process (devcluster, agents,
 *    configurator), 100 nodes, limit 10, 200 ms apply, 1 s soak, 2 s NotReady timeout by default.
 * 4. Blast radius of every history the fleet simulator plays (issue 23, bench/fleet-histories.ts):
 *    per bad change, the nodes it reached against --update-limit + --max-failures, on virtual time.
 * Run: npx tsc -b packages/devcluster && npx tsx bench/fleet.ts
 *      [--nodes 1000] [--limit 100] [--latency 200] [--coalesce 50] [--single-process] [--skip-fleet]
 *      [--skip-build] [--skip-blast] [--skip-histories] [--blast-nodes 100] [--blast-limit 10] [--not-ready-timeout 2000]
 *      [--cpu-prof-dir DIR]
 */
import { fork, spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { blastRadiusOfHistories } from './fleet-histories.js';
import { pino } from 'pino';
import {
  agentReport,
  appliedNumber,
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
  DEFAULT_BUDGET,
  DEFAULT_POLICY,
  Metrics,
  NodeSpecCache,
  buildRevision,
  nodeSpecHash,
  observe,
  plan,
} from '@nodenet/configurator';
import { SimulatedAgents, type StatusWriteRecord } from '@nodenet/testkit';

const { values: args } = parseArgs({
  options: {
    nodes: { type: 'string', default: '1000' },
    limit: { type: 'string', default: '100' },
    latency: { type: 'string', default: '200' },
    coalesce: { type: 'string', default: '50' },
    'single-process': { type: 'boolean', default: false },
    'skip-fleet': { type: 'boolean', default: false },
    'skip-build': { type: 'boolean', default: false },
    'skip-blast': { type: 'boolean', default: false },
    'skip-histories': { type: 'boolean', default: false },
    'blast-nodes': { type: 'string', default: '100' },
    'blast-limit': { type: 'string', default: '10' },
    'not-ready-timeout': { type: 'string', default: '2000' },
    /** Write V8 CPU profiles of the devcluster and agents processes here (run this one with --cpu-prof). */
    'cpu-prof-dir': { type: 'string' },
  },
});
const SINGLE = args['single-process'];
const PROF = args['cpu-prof-dir'] ? ['--cpu-prof', '--cpu-prof-dir', args['cpu-prof-dir']] : [];
const N = Number(args.nodes);
const LIMIT = Number(args.limit);
const LATENCY = Number(args.latency);
const COALESCE = Number(args.coalesce);
const TIMEOUT_S = 120;
const CRDS = new URL('../crds/', import.meta.url).pathname;
const DEVCLUSTER_MAIN = new URL('../packages/devcluster/dist/main.js', import.meta.url).pathname;
const AGENTS_MAIN = new URL('./fleet-agents.ts', import.meta.url).pathname;

async function pool<T>(items: T[], n: number, fn: (t: T) => Promise<unknown>): Promise<void> {
  let i = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (i < items.length) await fn(items[i++] as T);
    }),
  );
}

/** CPU time (user + system, ms) a process has used so far, from /proc (Linux). */
function procCpuMs(pid: number): number {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (100 Hz)
  } catch {
    return NaN;
  }
}

interface DevClusterHandle {
  kubeconfigPath: string;
  pid: number;
  stop(): Promise<void>;
}

/** devcluster in its own process (the real CLI from dist), or in this one with --single-process. */
async function startCluster(): Promise<DevClusterHandle> {
  if (SINGLE) {
    const dc = await startDevCluster({ crdsDir: CRDS });
    return { kubeconfigPath: dc.kubeconfigPath, pid: process.pid, stop: () => dc.stop() };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodenet-bench-'));
  const kubeconfigPath = path.join(dir, 'kubeconfig');
  const child = spawn(
    process.execPath,
    [...PROF, DEVCLUSTER_MAIN, '--crds', CRDS, '--kubeconfig', kubeconfigPath],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  process.on('exit', () => child.kill('SIGKILL')); // never leave a server behind
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('listening on')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`devcluster exited with ${code}: ${out}`)));
  });
  return {
    kubeconfigPath,
    pid: child.pid!,
    stop: async () => {
      child.kill('SIGTERM');
      await once(child, 'exit');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

interface AgentsHandle {
  pid: number;
  report(): Promise<{ writes: StatusWriteRecord[]; writeErrors: number }>;
  stop(): Promise<void>;
}

/** The simulated agents in their own process (bench/fleet-agents.ts), or in this one with --single-process. */
async function startAgents(kubeconfigPath: string): Promise<AgentsHandle> {
  if (SINGLE) {
    const agents = new SimulatedAgents({ kubeconfigPath, defaultDelayMs: LATENCY });
    await agents.start();
    return {
      pid: process.pid,
      report: () => Promise.resolve({ writes: agents.writes, writeErrors: agents.writeErrors }),
      stop: () => agents.stop(),
    };
  }
  const child = fork(AGENTS_MAIN, [], { execArgv: [...PROF, '--import', 'tsx'], stdio: 'inherit' });
  process.on('exit', () => child.kill('SIGKILL'));
  const next = <T>(type: string): Promise<T> =>
    new Promise((resolve) => {
      const on = (m: { type: string }): void => {
        if (m.type !== type) return;
        child.off('message', on);
        resolve(m as T);
      };
      child.on('message', on);
    });
  const ready = next('ready');
  child.send({ type: 'start', kubeconfigPath, latencyMs: LATENCY });
  await ready;
  return {
    pid: child.pid!,
    report: async () => {
      const r = next<{ writes: StatusWriteRecord[]; writeErrors: number }>('report');
      child.send({ type: 'report' });
      return r;
    },
    stop: async () => {
      const exited = once(child, 'exit');
      child.send({ type: 'stop' });
      await exited;
    },
  };
}

/** A Node status patch with its Ready condition (the kubelet's part). */
const readyStatus = (ready: boolean) => ({
  status: {
    conditions: [
      {
        type: 'Ready',
        status: ready ? 'True' : 'False',
        reason: ready ? 'KubeletReady' : 'NodeStatusUnknown',
        message: '',
        lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      },
    ],
  },
});

const pct = (xs: number[], p: number): number => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

const nodeNames = (n: number): string[] =>
  Array.from({ length: n }, (_, i) => `node-${String(i).padStart(4, '0')}`);

async function createReadyNodes(
  setup: ReturnType<typeof makeClients>,
  names: string[],
  parallel: number,
): Promise<void> {
  await pool(names, parallel, async (name) => {
    await setup.node.create({ metadata: { name } });
    await setup.node.patchStatus(name, readyStatus(true));
  });
}

/** Polls until `ok` holds; throws after TIMEOUT_S. */
async function untilTrue(what: string, ok: () => boolean, stepMs = 5): Promise<void> {
  const deadline = performance.now() + TIMEOUT_S * 1000;
  while (!ok()) {
    if (performance.now() > deadline) throw new Error(`${what} not reached`);
    await new Promise((res) => setTimeout(res, stepMs));
  }
}

const revisionNumbered = (controller: Controller, n: number): NetworkConfigRevision | undefined =>
  controller.informers.revision.list().find((x) => x.spec.number === n);

interface RequestCounts {
  on: boolean;
  byKind: Map<string, number>;
  byNode: Map<string, number>;
}

/**
 * What the configurator's requests are for: per verb and resource, NodeConfig patches by purpose
 * (a move carries the spec; a row-label write only metadata), and per NodeConfig.
 */
function countRequests(client: KubeClient, clients: ReturnType<typeof makeClients>): RequestCounts {
  const counting: RequestCounts = {
    on: false,
    byKind: new Map<string, number>(),
    byNode: new Map<string, number>(),
  };
  const bump = (m: Map<string, number>, k: string): void => void m.set(k, (m.get(k) ?? 0) + 1);
  client.onRequest((info) => {
    if (!counting.on || info.verb === 'watch') return;
    // The plural after the group version (and namespace): /api/v1/..., /apis/<group>/<version>/...
    const parts = info.path
      .split('?')[0]!
      .split('/')
      .slice(info.path.startsWith('/api/') ? 3 : 4);
    const resource = (parts[0] === 'namespaces' ? parts[2] : parts[0]) ?? '?';
    if (!(info.verb === 'patch' && resource === 'nodeconfigs'))
      bump(counting.byKind, `${info.verb} ${resource}`);
    const node = /\/nodeconfigs\/([^/?]+)/.exec(info.path)?.[1];
    if (node) bump(counting.byNode, node);
  });
  const patchNodeConfig = clients.nodeConfig.mergePatch.bind(clients.nodeConfig);
  clients.nodeConfig.mergePatch = (name, patch) => {
    if (counting.on)
      bump(
        counting.byKind,
        (patch as { spec?: unknown }).spec ? 'patch nodeconfigs (move)' : 'patch nodeconfigs (row labels)',
      );
    return patchNodeConfig(name, patch);
  };
  return counting;
}

function countsText(counting: RequestCounts, names: string[]): { kinds: string; perNodeText: string } {
  const kinds = [...counting.byKind]
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const perNodeCounts = new Map<number, number>();
  for (const n of names) {
    const x = counting.byNode.get(n) ?? 0;
    perNodeCounts.set(x, (perNodeCounts.get(x) ?? 0) + 1);
  }
  const perNodeText = [...perNodeCounts]
    .sort((a, b) => a[0] - b[0])
    .map(([k, v]) => `${v} node(s) ${k}`)
    .join(', ');
  return { kinds, perNodeText };
}

interface Timeline {
  /** The hash of the revision followed (empty: none yet). */
  target: string;
  assignedAt: Map<string, number>;
  doneAt: Map<string, number>;
}

/**
 * Timeline as the configurator sees it: when it assigned each node (its own write, fed back to its
 * cache) and when the node's `provisioned` status for the new revision reached its watch.
 */
function watchTimeline(controller: Controller): Timeline {
  const t: Timeline = { target: '', assignedAt: new Map(), doneAt: new Map() };
  controller.informers.nodeConfig.on((e) => {
    if (!t.target || e.type === 'delete' || e.type === 'resync') return;
    const nc = e.object;
    const name = nc.metadata.name;
    if (nc.spec.revision === t.target && !t.assignedAt.has(name)) t.assignedAt.set(name, performance.now());
    if (
      nc.status?.configStatus === 'provisioned' &&
      nc.status.lastAppliedRevision === t.target &&
      !t.doneAt.has(name)
    )
      t.doneAt.set(name, performance.now());
  });
  return t;
}

/** Per node, assignment to provisioned; and per slot, freed to taken again. */
function nodeTimes({ assignedAt, doneAt }: Timeline): { roundTrip: number[]; reaction: number[] } {
  const roundTrip = [...doneAt].map(([n, t]) => t - assignedAt.get(n)!).filter((x) => x >= 0);
  // Reaction: for the k-th assignment after the first wave, the time since the (k-LIMIT)-th node
  // finished, i.e. since the slot it takes was freed.
  const assigned = [...assignedAt.values()].sort((a, b) => a - b);
  const finished = [...doneAt.values()].sort((a, b) => a - b);
  return { roundTrip, reaction: assigned.slice(LIMIT).map((t, k) => t - finished[k]!) };
}

/** Until every NodeConfig's row (`kubectl get nc`) shows revision `r` provisioned. */
function rowsShowRevision(controller: Controller, r: NetworkConfigRevision): Promise<void> {
  const shows = (nc: NodeConfig): boolean =>
    agentReport(nc) === 'provisioned' && appliedNumber(nc, []) === r.spec.number;
  return untilTrue(`rows show revision ${r.spec.number}`, () =>
    controller.informers.nodeConfig.list().every(shows),
  );
}

async function completeRevision(controller: Controller, n: number): Promise<NetworkConfigRevision> {
  const complete = (): boolean =>
    revisionNumbered(controller, n)?.status?.conditions?.some(
      (c) => c.type === 'Complete' && c.status === 'True',
    ) === true;
  try {
    await untilTrue(`revision ${n} Complete`, complete);
  } catch {
    throw new Error(
      `revision ${n} not Complete after ${TIMEOUT_S} s; nodes: ${JSON.stringify(controller.latestPlan?.nodeStates)}`,
    );
  }
  return revisionNumbered(controller, n)!;
}

/** Verified independently of the configurator's own status: every NodeConfig reports the revision. */
async function everyNodeReports(
  setup: ReturnType<typeof makeClients>,
  r: NetworkConfigRevision,
): Promise<void> {
  const ncs = (await setup.nodeConfig.list()).items;
  const onNew = ncs.filter(
    (nc: NodeConfig) =>
      nc.status?.configStatus === 'provisioned' && nc.status.lastAppliedRevision === r.spec.hash,
  ).length;
  if (onNew !== N) throw new Error(`only ${onNew}/${N} NodeConfigs report revision ${r.spec.number}`);
}

type Cpu = { bench: number; dc: number; agents: number };

/** What the fleet scenario measured. */
interface FleetFigures {
  times: { tRevision: number; tComplete: number; tRows: number };
  requests: { total: number; perVerb: string; kinds: string; perNodeText: string };
  passes: { count: number; ms: number };
  agentWrites: { count: number; errors: number };
  nodeTimes: { roundTrip: number[]; reaction: number[] };
  cpu: { before: Cpu; after: Cpu };
}

function fleetRows(f: FleetFigures): Record<string, string> {
  const { tRevision, tComplete, tRows } = f.times;
  const { roundTrip, reaction } = f.nodeTimes;
  const floor = Math.ceil(N / LIMIT) * LATENCY;
  const ms = (x: number): string => `${x.toFixed(0)} ms`;
  const cpu = (k: keyof Cpu): string => ms(f.cpu.after[k] - f.cpu.before[k]);
  const r = f.requests;
  return {
    'fleet: nodes / limit / apply latency': `${N} / ${LIMIT} / ${LATENCY} ms`,
    'process layout': SINGLE
      ? 'single process (devcluster + agents + configurator)'
      : 'devcluster, agents, configurator: one process each',
    'input change → revision created': ms(tRevision),
    'input change → revision Complete': ms(tComplete),
    [`floor ceil(${N}/${LIMIT}) × ${LATENCY} ms`]: ms(floor),
    'ratio to floor (goal ≤ 1.1×)': `${(tComplete / floor).toFixed(2)}×`,
    'input change → every row shows it': ms(tRows),
    'configurator API requests per node (goal ≤ 1.05)': `${(r.total / N).toFixed(2)} (${r.total}: ${r.perVerb})`,
    'configurator requests by purpose': r.kinds,
    'configurator requests per NodeConfig': r.perNodeText,
    'configurator passes (mean duration, writes included)': `${f.passes.count} (${ms(f.passes.ms / f.passes.count)})`,
    'agent status writes': `${f.agentWrites.count} (${(f.agentWrites.count / N).toFixed(2)} per node, ${f.agentWrites.errors} errors)`,
    'node round trip assign → provisioned seen p50/p95': `${ms(pct(roundTrip, 50))} / ${ms(pct(roundTrip, 95))}`,
    'slot freed → next assignment p50/p95': `${ms(pct(reaction, 50))} / ${ms(pct(reaction, 95))}`,
    'CPU during rollout: configurator / devcluster / agents': SINGLE
      ? `${cpu('bench')} (all in one process)`
      : `${cpu('bench')} / ${cpu('dc')} / ${cpu('agents')}`,
    'configurator CPU per node (goal ≤ 0.2 ms at 5,000)': SINGLE
      ? '(not separable in one process)'
      : `${((f.cpu.after.bench - f.cpu.before.bench) / N).toFixed(2)} ms`,
  };
}

/** The configurator's requests (in all and per verb), passes and time in passes so far. */
async function configuratorCounters(client: KubeClient, metrics: Metrics) {
  return {
    perVerb: { ...client.requestCounts } as Record<string, number>,
    total: client.totalRequests,
    passes: (await metrics.passes.get()).values[0]?.value ?? 0,
    passSeconds:
      (await metrics.passDuration.get()).values.find((v) => v.metricName?.endsWith('_sum'))?.value ?? 0,
  };
}

/** devcluster with N Ready nodes, the Layer-2 network of revision 1, and the simulated agents. */
async function startFleet() {
  const dc = await startCluster();
  const setup = makeClients(new KubeClient(loadKubeConfig(dc.kubeconfigPath)));
  const names = nodeNames(N);
  await createReadyNodes(setup, names, 32);
  await setup.layer2.create({
    metadata: { name: 'blue' },
    spec: { id: 100, vni: 10100, mtu: 1500 },
  } as never);
  const agents = await startAgents(dc.kubeconfigPath);
  return { dc, setup, names, agents };
}

async function fleetScenario(): Promise<Record<string, string>> {
  const { dc, setup, names, agents } = await startFleet();

  const client = new KubeClient(loadKubeConfig(dc.kubeconfigPath));
  const clients = makeClients(client);
  const counting = countRequests(client, clients);
  const metrics = new Metrics();
  const controller = new Controller({
    clients,
    // No soak: the figure is change → Complete against the apply floor (waves × apply latency); the
    // default 1 min soak would add a minute per wave and measure the policy, not the configurator.
    policy: { ...DEFAULT_POLICY, updateLimit: { kind: 'count', count: LIMIT }, minSuccessTimeMs: 0 },
    log: pino({ level: 'silent' }),
    metrics,
    identity: 'bench',
    coalesceMs: COALESCE,
  });
  await controller.start();
  const timeline = watchTimeline(controller);
  const rowsShow = (r: NetworkConfigRevision): Promise<void> => rowsShowRevision(controller, r);
  const completeOn = (n: number): Promise<NetworkConfigRevision> => completeRevision(controller, n);
  const r1 = await completeOn(1);
  // Counting starts from a settled fleet: revision 1's row labels are written too.
  await rowsShow(r1);
  await new Promise((res) => setTimeout(res, 300)); // writes in flight land
  const writesBefore = (await agents.report()).writes.length;
  const before = await configuratorCounters(client, metrics);
  const cpu0 = { bench: procCpuMs(process.pid), dc: procCpuMs(dc.pid), agents: procCpuMs(agents.pid) };
  counting.on = true;
  const t0 = performance.now();
  const red = await setup.layer2.create({
    metadata: { name: 'red' },
    spec: { id: 200, vni: 10200, mtu: 1500 },
  } as never);
  // The hash of revision 2 is known once the configurator has built it; the timeline starts there.
  await untilTrue(
    'revision 2 built',
    () => {
      timeline.target = revisionNumbered(controller, 2)?.spec.hash ?? '';
      return timeline.target !== '';
    },
    1,
  );
  const tRevision = performance.now() - t0;
  const r2 = await completeOn(2);
  const tComplete = performance.now() - t0;
  // The rollout's writes end when every row shows the new revision provisioned (rows come from the
  // agents' status; an older agent's row labels follow its report within the configurator's settle
  // time): requests and CPU are counted up to there.
  await rowsShow(r2);
  const tRows = performance.now() - t0;
  await new Promise((res) => setTimeout(res, 300)); // writes in flight land
  counting.on = false;
  const cpu1 = { bench: procCpuMs(process.pid), dc: procCpuMs(dc.pid), agents: procCpuMs(agents.pid) };
  const after = await configuratorCounters(client, metrics);
  const requests = after.total - before.total;
  const perVerb = Object.entries(after.perVerb)
    .map(([k, v]) => [k, v - before.perVerb[k]!] as const)
    .filter(([, v]) => v > 0)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const passes = after.passes - before.passes;
  const passMs = (after.passSeconds - before.passSeconds) * 1000;
  await everyNodeReports(setup, r2);
  const { writes, writeErrors } = await agents.report();
  const agentWrites = writes.length - writesBefore;
  void red;

  const rows = fleetRows({
    times: { tRevision, tComplete, tRows },
    requests: { total: requests, perVerb, ...countsText(counting, names) },
    passes: { count: passes, ms: passMs },
    agentWrites: { count: agentWrites, errors: writeErrors },
    nodeTimes: nodeTimes(timeline),
    cpu: { before: cpu0, after: cpu1 },
  });
  await controller.stop();
  await agents.stop();
  client.close();
  setup.client.close();
  await dc.stop();
  return rows;
}

/** Issue 10: a revision that cuts its first node off; how far does it get, and how fast is it stopped? */
async function blastScenario(): Promise<Record<string, string>> {
  const nodes = Number(args['blast-nodes']);
  const limit = Number(args['blast-limit']);
  const notReadyMs = Number(args['not-ready-timeout']);
  const soakMs = 1000;
  const dc = await startDevCluster({ crdsDir: CRDS });
  const setup = makeClients(new KubeClient(loadKubeConfig(dc.kubeconfigPath)));
  await createReadyNodes(setup, nodeNames(nodes), 16);
  let bad = '';
  let cutNode = '';
  let cutAt = 0;
  const agents = new SimulatedAgents({
    kubeconfigPath: dc.kubeconfigPath,
    defaultDelayMs: LATENCY,
    afterWrite: async (w) => {
      if (bad && w.revision === bad && w.configStatus === 'provisioned' && !cutNode) {
        cutNode = w.node;
        agents.stopNode(w.node);
        await setup.node.patchStatus(w.node, readyStatus(false));
        cutAt = performance.now();
      }
    },
  });
  await agents.start();
  await setup.layer2.create({
    metadata: { name: 'blue' },
    spec: { id: 100, vni: 10100, mtu: 1500 },
  } as never);
  const client = new KubeClient(loadKubeConfig(dc.kubeconfigPath));
  const controller = new Controller({
    clients: makeClients(client),
    policy: {
      ...DEFAULT_POLICY,
      updateLimit: { kind: 'count', count: limit },
      minSuccessTimeMs: soakMs,
      notReadyTimeoutMs: notReadyMs,
    },
    log: pino({ level: 'silent' }),
    metrics: new Metrics(),
    identity: 'bench-blast',
    coalesceMs: COALESCE,
  });
  await controller.start();
  const revision = (n: number): NetworkConfigRevision | undefined => revisionNumbered(controller, n);
  const until = (what: string, ok: () => boolean): Promise<void> => untilTrue(`blast scenario: ${what}`, ok);
  await until(
    'revision 1 complete',
    () => revision(1)?.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') === true,
  );
  const received = new Set<string>();
  controller.informers.nodeConfig.on((e) => {
    if (bad && e.type !== 'delete' && e.type !== 'resync' && e.object.spec.revision === bad)
      received.add(e.object.metadata.name);
  });
  await setup.layer2.create({ metadata: { name: 'red' }, spec: { id: 200, vni: 10200, mtu: 1500 } } as never);
  await until('revision 2 built', () => {
    bad = revision(2)?.spec.hash ?? '';
    return bad !== '';
  });
  await until('revision 2 invalid', () => revision(2)?.status?.isInvalid === true);
  const invalidAt = performance.now();
  const rows = {
    'nodes / limit / apply latency / soak / --not-ready-timeout': `${nodes} / ${limit} / ${LATENCY} ms / ${soakMs} ms / ${notReadyMs} ms`,
    'nodes that received the bad revision (blast radius)': `${received.size} (limit ${limit}; the cut-off node held its slot)`,
    'cut-off node NotReady → revision invalid': `${(invalidAt - cutAt).toFixed(0)} ms (timeout ${notReadyMs} ms)`,
    'failure recorded': revision(2)?.status?.failedNodes?.[0]?.message ?? '(none)',
  };
  await controller.stop();
  await agents.stop();
  client.close();
  setup.client.close();
  await dc.stop();
  return rows;
}

const BUILD = { NODES: 5000, L2: 2000, VRFS: 500, racks: 50 };

/** 500 VRFs and 2,000 Layer-2 networks, each with a rack selector. */
function buildInputs(): Inputs {
  const { L2, VRFS, racks } = BUILD;
  return {
    vrf: Array.from({ length: VRFS }, (_, i) => ({
      apiVersion: 'network.nodenet.io/v1alpha1',
      kind: 'VRFRouteConfiguration' as const,
      metadata: { name: `vrf-${i}`, generation: 1, uid: `uid-vrf-${i}`, resourceVersion: '1' },
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
      metadata: { name: `l2-${i}`, generation: 1, uid: `uid-l2-${i}`, resourceVersion: '1' },
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
}

type BenchNode = { name: string; labels: Record<string, string>; ready: boolean };

/** The spec of each node, through a spec cache as the configurator keeps one. */
const specsOf = (cache: NodeSpecCache, rev: NetworkConfigRevision, nodes: BenchNode[]) =>
  nodes.map((n) =>
    cache.spec(
      { config: rev.spec.config, hash: rev.spec.hash },
      { ...n.labels, 'kubernetes.io/hostname': n.name },
    ),
  );

/**
 * The configurator builds on every input change: the first build pays for compiling the code,
 * later ones show the steady cost. Five more, each with a fresh spec cache. CPU time beside wall
 * time: on a shared machine the wall time includes waiting for a core.
 */
function rebuilds(
  inputs: Inputs,
  nodes: BenchNode[],
  opts: Parameters<typeof buildRevision>[3],
): { wall: number[]; cpu: number[] } {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < 5; i++) {
    const c0 = process.cpuUsage();
    const s0 = performance.now();
    const b = buildRevision(inputs, [], Date.now(), opts);
    if (b.decision.action !== 'create') throw new Error('unexpected decision');
    specsOf(new NodeSpecCache(), b.decision.revision, nodes);
    wall.push(performance.now() - s0);
    const used = process.cpuUsage(c0);
    cpu.push((used.user + used.system) / 1000);
  }
  return { wall, cpu };
}

/** One planner pass over every node, all on the revision. */
function planPass(
  rev: NetworkConfigRevision,
  fleet: { nodes: BenchNode[]; ncs: NodeConfig[]; cache: NodeSpecCache },
  o: { mono: number; observations: ReturnType<typeof observe> },
) {
  const { nodes, ncs, cache } = fleet;
  return plan({
    revisions: [{ ...rev, metadata: { name: rev.metadata.name } }],
    nodes,
    nodeConfigs: ncs,
    now: Date.now(),
    mono: o.mono,
    observations: o.observations,
    policy: DEFAULT_POLICY,
    specHash: (_r, n) =>
      nodeSpecHash(
        cache.spec(
          { config: rev.spec.config, hash: rev.spec.hash },
          { ...n.labels, 'kubernetes.io/hostname': n.name },
        ),
      ),
  });
}

function buildScenario(): Record<string, string> {
  const { NODES, L2, VRFS, racks } = BUILD;
  const inputs = buildInputs();
  const nodes: BenchNode[] = Array.from({ length: NODES }, (_, i) => ({
    name: `node-${i}`,
    labels: { rack: `r${i % racks}` },
    ready: true,
  }));
  // 500 VRFs render ~24,000 FRR lines, over the default --max-frr-lines (20,000): the budget would
  // refuse some and the build would measure the refusal rounds, not the build. A site with this many
  // VRFs raises the limit.
  const opts = { budget: { ...DEFAULT_BUDGET, maxFrrLines: 30_000 } };
  global.gc?.();
  const heap0 = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  const built = buildRevision(inputs, [], Date.now(), opts);
  const t1 = performance.now();
  if (built.decision.action !== 'create' || built.problems.length > 0)
    throw new Error(
      `unexpected: ${JSON.stringify(built.decision).slice(0, 300)}; ${built.problems.length} problems`,
    );
  const rev = built.decision.revision;
  const cache = new NodeSpecCache();
  const specs = specsOf(cache, rev, nodes);
  const t2 = performance.now();
  const again5 = rebuilds(inputs, nodes, opts);
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
  const observations = observe(new Map(), nodes, ncs, t3);
  const p = planPass(rev, { nodes, ncs, cache }, { mono: t3, observations });
  const t4 = performance.now();
  // A second pass over the same objects, as the controller runs on every change: facts, keys and
  // spec hashes are cached per object.
  const again = planPass(
    rev,
    { nodes, ncs, cache },
    { mono: t4, observations: observe(observations, nodes, ncs, t4) },
  );
  const t5 = performance.now();
  const heap1 = process.memoryUsage().heapUsed;
  const ms = (x: number): string => `${x.toFixed(0)} ms`;
  return {
    'build: nodes / Layer-2 (with selectors) / VRFs': `${NODES} / ${L2} / ${VRFS}`,
    'validate + merge + hash': `${ms(t1 - t0)} (hash ${rev.spec.hash.slice(0, 12)})`,
    [`${NODES} NodeConfig specs (filtering)`]: `${ms(t2 - t1)} (avg ${(specs.reduce((a, s) => a + s.layer2.length, 0) / NODES).toFixed(0)} L2 per node)`,
    'total build, first / median of 5 more (goal ≤ 100 ms)': `${ms(t2 - t0)} / ${ms(pct(again5.wall, 50))} (CPU ${ms(pct(again5.cpu, 50))}, min ${ms(Math.min(...again5.cpu))})`,
    [`one planner pass over ${NODES} nodes, first / again`]: `${ms(t4 - t3)} / ${ms(t5 - t4)} (${p.actions.length} / ${again.actions.length} actions)`,
    'heap growth / rss': `${((heap1 - heap0) / 1048576).toFixed(0)} MiB / ${(process.memoryUsage().rss / 1048576).toFixed(0)} MiB`,
  };
}

function printTable(title: string, rows: Record<string, string>): void {
  const w = Math.max(...Object.keys(rows).map((k) => k.length));
  console.log(`\n${title}`);
  console.log(`${'-'.repeat(w)}-+-${'-'.repeat(40)}`);
  for (const [k, v] of Object.entries(rows)) console.log(`${k.padEnd(w)} | ${v}`);
}

const machine = `${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), load average ${os
  .loadavg()
  .map((x) => x.toFixed(2))
  .join(' ')} at start, node ${process.version}`;
console.log(`machine: ${machine}`);
if (!args['skip-build']) printTable('== revision build', buildScenario());
if (!args['skip-fleet']) printTable('== fleet rollout', await fleetScenario());
if (!args['skip-blast'])
  printTable('== blast radius of a revision that cuts a node off', await blastScenario());
if (!args['skip-histories'])
  printTable(
    '== blast radius of the simulated histories (bad change: nodes reached vs --update-limit + --max-failures)',
    blastRadiusOfHistories(),
  );
process.exit(0);
