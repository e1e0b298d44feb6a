/** Scenario 1: 1,000 nodes, one input change, change → Complete against the apply floor. */
import { pino } from 'pino';
import { type NetworkConfigRevision } from '@nodenet/api';
import { KubeClient, loadKubeConfig, makeClients } from '@nodenet/kube';
import { Controller, DEFAULT_POLICY, Metrics } from '@nodenet/configurator';
import { SINGLE, N, LIMIT, LATENCY, COALESCE } from './args.js';
import { clientFloor, clientFloorRow, type ClientFloor } from './floor.js';
import {
  pct,
  procCpuMs,
  startCluster,
  startAgents,
  nodeNames,
  createReadyNodes,
  stopAll,
} from './processes.js';
import {
  untilTrue,
  revisionNumbered,
  countRequests,
  countsText,
  watchTimeline,
  nodeTimes,
  rowsShowRevision,
  completeRevision,
  everyNodeReports,
} from './watch.js';

export type Cpu = { bench: number; dc: number; agents: number };

/** What the fleet scenario measured. */
export interface FleetFigures {
  times: { tRevision: number; tComplete: number; tRows: number };
  requests: { total: number; perVerb: string; kinds: string; perNodeText: string };
  passes: { count: number; ms: number };
  agentWrites: { count: number; errors: number };
  nodeTimes: { roundTrip: number[]; reaction: number[] };
  cpu: { before: Cpu; after: Cpu };
  floor: ClientFloor;
}

export function fleetRows(f: FleetFigures): Record<string, string> {
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
    'input change → revision created': `${ms(tRevision)} (build quiet period ${COALESCE} ms, soak 0)`,
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
    'client floor per node (its requests and watch events alone)': clientFloorRow(f.floor),
  };
}

/** The configurator's requests (in all and per verb), passes and time in passes so far. */
export async function configuratorCounters(client: KubeClient, metrics: Metrics) {
  return {
    perVerb: { ...client.requestCounts } as Record<string, number>,
    total: client.totalRequests,
    passes: (await metrics.passes.get()).values[0]?.value ?? 0,
    passSeconds:
      (await metrics.passDuration.get()).values.find((v) => v.metricName?.endsWith('_sum'))?.value ?? 0,
  };
}

/** devcluster with N Ready nodes, the Layer-2 network of revision 1, and the simulated agents. */
export async function startFleet() {
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

export async function fleetScenario(): Promise<Record<string, string>> {
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
    // Likewise the build's quiet period (2 s by default, so that objects applied together make one
    // revision) is a policy wait: the bench waits the coalescing window instead.
    buildTiming: { quietMs: COALESCE },
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
  // The floor moves every node to a spec of its own: the configurator must not answer it.
  await controller.stop();
  const floor = await clientFloor(dc.kubeconfigPath);

  const rows = fleetRows({
    times: { tRevision, tComplete, tRows },
    requests: { total: requests, perVerb, ...countsText(counting, names) },
    passes: { count: passes, ms: passMs },
    agentWrites: { count: agentWrites, errors: writeErrors },
    nodeTimes: nodeTimes(timeline),
    cpu: { before: cpu0, after: cpu1 },
    floor,
  });
  await stopAll({ controller, agents, clients: [client, setup.client], dc });
  return rows;
}
