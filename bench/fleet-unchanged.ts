/**
 * Unchanged nodes move for free (issue 26): a change that touches 4 % of 1,000 nodes (one rack of
 * 40, a Layer-2 network with a node selector), --update-limit 10 %, the agent's 4-minute confirm
 * window on every node whose host config changes, 1 minute soak. Time from the revision to Complete
 * with the unchanged nodes moved without a slot, and with every node walked through a slot (the
 * behaviour before: the planner without content hashes). The real planner (plan/observe) and the
 * assignments as execute.ts writes them, on a virtual clock, so the figure does not depend on the
 * machine; the planner's CPU per pass is printed beside it. A pass runs after each pass's writes
 * (coalesced), at each agent report, and when the planner asks to look again.
 * Then the incremental planner: a rollout over 5,000 nodes (every node through a slot, limit 10 %)
 * planned by observe() and plan() and by an IncrementalPlanner, wall time per pass; and the passes the
 * issue's goal is about, CPU per pass: after 3 node reports (heartbeats of a fleet at rest, or
 * finished moves during a rollout, whose revision status then changes), and the pass after a new
 * revision (every verdict made afresh).
 * Run: npx tsx bench/fleet-unchanged.ts [--nodes 1000] [--rack 40] [--limit 100] [--window-s 240]
 *      [--planner-nodes 5000] [--skip-unchanged]
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import {
  API_VERSION,
  type Inputs,
  type Layer2NetworkConfiguration,
  type NetworkConfigRevision,
  type NodeConfig,
} from '@nodenet/api';
import {
  DEFAULT_POLICY,
  NodeSpecCache,
  buildRevision,
  nodeConfigFor,
  nodeSpecHash,
  observe,
  plan,
  specContentHash,
  IncrementalPlanner,
  type NodeInfo,
  type Plan,
  type FleetInput,
  type Observations,
} from '@nodenet/configurator';

const { values: args } = parseArgs({
  options: {
    nodes: { type: 'string', default: '1000' },
    rack: { type: 'string', default: '40' },
    limit: { type: 'string', default: '100' },
    'window-s': { type: 'string', default: '240' },
    'planner-nodes': { type: 'string', default: '5000' },
    'skip-unchanged': { type: 'boolean', default: false },
  },
});
const NODES = Number(args.nodes);
const RACK = Number(args.rack);
const LIMIT = Number(args.limit);
const WINDOW_MS = Number(args['window-s']) * 1000;
/** A no-op apply: the agent reports at once (no confirm window). */
const NOOP_MS = 1000;
/** The controller's coalescing window: a pass after the writes of the previous one. */
const COALESCE_MS = 50;

const l2 = (name: string, id: number, selector?: Record<string, string>): Layer2NetworkConfiguration => ({
  apiVersion: API_VERSION,
  kind: 'Layer2NetworkConfiguration',
  metadata: { name, generation: 1, uid: `uid-${name}` },
  spec: { id, vni: 10_000 + id, mtu: 1500, ...(selector ? { nodeSelector: { matchLabels: selector } } : {}) },
});
const inputs = (layer2: Layer2NetworkConfiguration[]): Inputs => ({ vrf: [], layer2, routingTable: [] });

function revisionOf(i: Inputs, existing: NetworkConfigRevision[]): NetworkConfigRevision {
  const d = buildRevision(i, existing, Date.now()).decision;
  if (d.action !== 'create') throw new Error(`unexpected build decision ${d.action}`);
  return d.revision;
}

interface Run {
  completeMs: number;
  unchanged: number;
  passes: number;
  cpuMsPerPass: number;
  /** Wall time of each planner pass (ms). */
  passMs: number[];
}

interface RolloutOptions {
  /** Unchanged nodes move without a slot (the planner is given content hashes). */
  free: boolean;
  noopMs?: number;
  nodes?: number;
  limit?: number;
  /** The planner: observe() and plan() by default, or an IncrementalPlanner's. */
  planner?: (input: FleetInput) => Plan;
}

type Move = 'forward' | 'unchanged' | 'rollback' | 'catch-up';

/** The simulated fleet: revision 1 complete on every node, revision 2 (the rack change) to roll out. */
interface Fleet {
  nodes: NodeInfo[];
  r2: NetworkConfigRevision;
  revisions: Map<string, NetworkConfigRevision>;
  ncs: Map<string, NodeConfig>;
  /** The content of each node's host config (what its agent applied last). */
  hostContent: Map<string, string>;
  /** Per node, when its pending assignment finishes. */
  finishes: Map<string, number>;
  specOf: (r: NetworkConfigRevision, n: NodeInfo) => NodeConfig['spec'];
}

function fleetOnRevision1(nodeCount: number): Fleet {
  const nodes: NodeInfo[] = Array.from({ length: nodeCount }, (_, i) => ({
    name: `node-${String(i).padStart(4, '0')}`,
    labels: { rack: `r${Math.floor(i / RACK)}` },
    ready: true,
  }));
  const r1 = revisionOf(inputs([l2('base', 100)]), []);
  const r1done: NetworkConfigRevision = {
    ...r1,
    status: { completedAt: new Date().toISOString(), startedAt: new Date().toISOString() },
  };
  const r2 = revisionOf(inputs([l2('base', 100), l2('rack', 200, { rack: 'r0' })]), [r1done]);
  const specs = new NodeSpecCache();
  const fleet: Fleet = {
    nodes,
    r2,
    revisions: new Map([r1done, r2].map((r) => [r.metadata.name, r])),
    ncs: new Map(),
    hostContent: new Map(),
    finishes: new Map(),
    specOf: (r, n) => specs.spec({ config: r.spec.config, hash: r.spec.hash }, n.labels),
  };
  // Every node on revision 1, provisioned long ago.
  for (const n of nodes) {
    fleet.ncs.set(n.name, report(assignment(fleet, r1done, n, 'forward'), 'provisioned', r1.spec.hash));
    fleet.hostContent.set(n.name, specContentHash(fleet.specOf(r1, n)));
  }
  return fleet;
}

/** The NodeConfig the controller writes for an assignment (its generation one up). */
function assignment(f: Fleet, r: NetworkConfigRevision, n: NodeInfo, move: Move): NodeConfig {
  const nc = nodeConfigFor(
    r,
    { metadata: { name: n.name, labels: n.labels } },
    { spec: f.specOf(r, n), move, now: Date.now(), identity: 'bench' },
  );
  nc.metadata.generation = (f.ncs.get(n.name)?.metadata.generation ?? 0) + 1;
  return nc;
}

/** The NodeConfig with its agent's report. */
function report(nc: NodeConfig, configStatus: 'provisioned' | 'provisioning', applied: string): NodeConfig {
  const at = new Date().toISOString();
  return {
    ...nc,
    status: {
      configStatus,
      lastAppliedRevision: applied,
      lastUpdate: at,
      conditions: [
        {
          type: 'Ready',
          status: configStatus === 'provisioned' ? 'True' : 'False',
          reason: 'R',
          message: 'm',
          lastTransitionTime: at,
          observedGeneration: nc.metadata.generation ?? 1,
        },
      ],
    },
  };
}

/** Agents whose apply is done by `mono` report provisioned. */
function agentsReport(f: Fleet, mono: number): void {
  for (const [name, at] of f.finishes) {
    if (at > mono) continue;
    f.finishes.delete(name);
    const nc = f.ncs.get(name) as NodeConfig;
    f.ncs.set(name, report(nc, 'provisioned', nc.spec.revision));
    f.hostContent.set(name, specContentHash(nc.spec));
  }
}

/** Writes the plan as the controller does; returns the number of unchanged moves. */
function carryOut(f: Fleet, p: Plan, o: { mono: number; noopMs: number }): number {
  let unchanged = 0;
  for (const u of p.statusUpdates) {
    const r = f.revisions.get(u.revision);
    if (r) f.revisions.set(u.revision, { ...r, status: u.status });
  }
  for (const a of p.actions) {
    // Row labels as the controller writes them (its gate delays them, never drops them).
    if (a.type === 'labelNodeConfig') {
      const nc = f.ncs.get(a.name) as NodeConfig;
      const labels: Record<string, string> = { ...nc.metadata.labels };
      for (const [k, v] of Object.entries(a.labels))
        if (v === null) delete labels[k];
        else labels[k] = v;
      f.ncs.set(a.name, { ...nc, metadata: { ...nc.metadata, labels } });
    }
    if (a.type !== 'assign') continue;
    const n = f.nodes.find((x) => x.name === a.node) as NodeInfo;
    const nc = assignment(f, f.revisions.get(a.revision) as NetworkConfigRevision, n, a.move);
    const old = f.ncs.get(a.node) as NodeConfig;
    const same = specContentHash(nc.spec) === f.hostContent.get(a.node);
    if (a.move === 'unchanged') unchanged++;
    f.ncs.set(a.node, report(nc, 'provisioning', old.status?.lastAppliedRevision ?? ''));
    f.finishes.set(a.node, o.mono + (same ? o.noopMs : WINDOW_MS));
  }
  return unchanged;
}

/** observe() then plan(), as the controller ran them before the incremental planner (the reference). */
function referencePlanner(): (input: FleetInput) => Plan {
  let observations: Observations = new Map();
  return (input) => {
    observations = observe(observations, input.nodes, input.nodeConfigs, input.mono);
    return plan({ ...input, observations });
  };
}

function rollout(o: RolloutOptions): Run {
  const { free, noopMs = NOOP_MS, planner = referencePlanner() } = o;
  const f = fleetOnRevision1(o.nodes ?? NODES);
  const { nodes, specOf } = f;
  // The real agent's heartbeats during its window restart --config-timeout; these agents are silent.
  const policy = {
    ...DEFAULT_POLICY,
    updateLimit: { kind: 'count' as const, count: o.limit ?? LIMIT },
    configTimeoutMs: 2 * WINDOW_MS,
  };
  let cpu = 0;
  let unchanged = 0;
  const passMs: number[] = [];
  for (let mono = 0; mono < 24 * 3_600_000;) {
    agentsReport(f, mono);
    const list = [...f.ncs.values()];
    const c0 = process.cpuUsage();
    // Timed as the controller runs it: observe, then the planner.
    const t0 = performance.now();
    const p = planner({
      revisions: [...f.revisions.values()],
      nodes,
      nodeConfigs: list,
      now: Date.now(),
      mono,
      policy,
      specHash: (r, n) => nodeSpecHash(specOf(r, n)),
      ...(free ? { contentHash: (r, n) => specContentHash(specOf(r, n)) } : {}),
    });
    passMs.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu += (c.user + c.system) / 1000;
    unchanged += carryOut(f, p, { mono, noopMs });
    if (f.revisions.get(f.r2.metadata.name)?.status?.completedAt)
      return {
        completeMs: mono,
        unchanged,
        passes: passMs.length,
        cpuMsPerPass: cpu / passMs.length,
        passMs,
      };
    // The next pass: after this one's writes, at the next agent report, or when the planner asks.
    const acted = p.actions.some((a) => a.type === 'assign') || p.statusUpdates.length > 0;
    mono = Math.min(
      acted ? mono + COALESCE_MS : Infinity,
      ...f.finishes.values(),
      mono + (p.requeueAfterMs ?? 3_600_000),
    );
  }
  throw new Error(
    `revision 2 never completed: ${JSON.stringify(f.revisions.get(f.r2.metadata.name)?.status).slice(0, 600)}`,
  );
}

const min = (ms: number): string => `${(ms / 60_000).toFixed(1)} min`;
if (!args['skip-unchanged']) unchangedScenario();

function unchangedScenario(): void {
  const withFree = rollout({ free: true });
  const before = rollout({ free: false });
  const windowEverywhere = rollout({ free: false, noopMs: WINDOW_MS });
  const rows: Record<string, string> = {
    [`change touching ${RACK} of ${NODES} nodes (${((100 * RACK) / NODES).toFixed(0)} %), limit ${LIMIT}, ${min(WINDOW_MS)} confirm window, 1 min soak`]:
      '',
    'change -> Complete, unchanged nodes without a slot': `${min(withFree.completeMs)} (${withFree.unchanged} nodes moved unchanged)`,
    'change -> Complete, every node through a slot (no-op applies at once)': min(before.completeMs),
    'change -> Complete, every node through a slot and a confirm window': min(windowEverywhere.completeMs),
    'speed-up': `${(before.completeMs / withFree.completeMs).toFixed(1)}x / ${(windowEverywhere.completeMs / withFree.completeMs).toFixed(1)}x`,
    'passes / planner CPU per pass, free vs before': `${withFree.passes} / ${withFree.cpuMsPerPass.toFixed(1)} ms vs ${before.passes} / ${before.cpuMsPerPass.toFixed(1)} ms`,
  };
  print('unchanged nodes move for free (virtual time)', rows);
}

// The incremental planner (issue 26): the same rollout at 5,000 nodes, every pass planned by plan()
// and by an IncrementalPlanner; wall time per pass of observe and the planner, as the controller
// runs them (the first pass of each fills its caches).
const PLANNER_NODES = Number(args['planner-nodes']);
const pct = (xs: number[], p: number): number =>
  [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)] ?? NaN;
const ms = (x: number): string => `${x.toFixed(1)} ms`;
// Every node through a slot (limit 10 %): ten rounds of moves and reports, ~100 passes.
const big = { free: false, nodes: PLANNER_NODES, limit: Math.ceil(PLANNER_NODES / 10) };
const reference = rollout(big);
const incremental = new IncrementalPlanner();
const kept = rollout({ ...big, planner: (i) => incremental.plan(i) });
const perPass = (r: Run): string =>
  `first ${ms(r.passMs[0] ?? NaN)}, median ${ms(pct(r.passMs.slice(1), 0.5))}, p90 ${ms(pct(r.passMs.slice(1), 0.9))} wall incl. observe; CPU ${ms(r.cpuMsPerPass)} per pass (${r.passes} passes)`;
/** Node reports between two passes in the "again" case (a pass triggered by one or a few reports). */
const AGAIN_REPORTS = 3;
/** Passes measured per case. */
const AGAIN_PASSES = 40;
const again = againPasses();
const cpuOf = (xs: number[]): string =>
  `median ${ms(pct(xs, 0.5))}, p90 ${ms(pct(xs, 0.9))} CPU incl. observe`;
print(`planner pass over ${PLANNER_NODES} nodes`, {
  [`plan(), a rollout through slots (limit ${big.limit}), every node classified each pass`]:
    perPass(reference),
  'IncrementalPlanner, the same rollout': perPass(kept),
  'verdicts reused / made': `${incremental.memo.counts.reused} / ${incremental.memo.counts.made}`,
  [`IncrementalPlanner (goal: <= 10 ms again), ${AGAIN_REPORTS} node reports, fleet at rest`]: cpuOf(
    again.rest,
  ),
  [`IncrementalPlanner, ${AGAIN_REPORTS} node reports, of finished moves, during a rollout`]: cpuOf(
    again.rolling,
  ),
  'IncrementalPlanner, the pass after a new revision': cpuOf(again.revision),
  machine: `${os.cpus().length} CPUs, load average ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')} at the end`,
});

/**
 * CPU per pass of observe and an IncrementalPlanner where only a few nodes changed: at rest on
 * revision 1, then halfway through revision 2's rollout (its slots full), and the pass after a new
 * revision appeared (every verdict made afresh).
 */
function againPasses(): { rest: number[]; rolling: number[]; revision: number[] } {
  const f = fleetOnRevision1(PLANNER_NODES);
  const r2 = f.revisions.get(f.r2.metadata.name) as NetworkConfigRevision;
  f.revisions.delete(r2.metadata.name);
  const planner = new IncrementalPlanner();
  const policy = { ...DEFAULT_POLICY, updateLimit: { kind: 'count' as const, count: big.limit } };
  let mono = 0;
  const pass = (): number => {
    mono += 1000;
    const list = [...f.ncs.values()];
    const c0 = process.cpuUsage();
    const p = planner.plan({
      revisions: [...f.revisions.values()],
      nodes: f.nodes,
      nodeConfigs: list,
      now: Date.now(),
      mono,
      policy,
      specHash: (r, n) => nodeSpecHash(f.specOf(r, n)),
    });
    const c = process.cpuUsage(c0);
    carryOut(f, p, { mono, noopMs: NOOP_MS });
    return (c.user + c.system) / 1000;
  };
  let beat = 0;
  /** A few agents' heartbeats (a new lastUpdate) at rest, or reports of finished moves while rolling out; then a pass. */
  const reportsThenPass = (rolling: boolean): number => {
    for (let i = 0; i < AGAIN_REPORTS; i++) {
      const moved = rolling ? f.finishes.keys().next().value : undefined;
      const name = moved ?? (f.nodes[(beat++ * 997) % f.nodes.length] as NodeInfo).name;
      f.finishes.delete(name);
      const nc = f.ncs.get(name) as NodeConfig;
      const lastUpdate = new Date(Date.parse(nc.status?.lastUpdate ?? '') + 1000).toISOString();
      f.ncs.set(
        name,
        moved === undefined
          ? { ...nc, status: { ...nc.status, lastUpdate } }
          : report(nc, 'provisioned', nc.spec.revision),
      );
    }
    return pass();
  };
  const repeat = (rolling: boolean): number[] =>
    Array.from({ length: AGAIN_PASSES }, () => reportsThenPass(rolling));
  pass();
  const rest = repeat(false);
  const revision: number[] = [];
  f.revisions.set(r2.metadata.name, r2);
  revision.push(pass());
  // Revision 2's first slots are taken; a few of its nodes report each pass (its status changes).
  return { rest, rolling: repeat(true), revision };
}

function print(title: string, rows: Record<string, string>): void {
  const w = Math.max(...Object.keys(rows).map((k) => k.length));
  console.log(`\n== ${title}`);
  for (const [k, v] of Object.entries(rows)) console.log(`${k.padEnd(w)} | ${v}`);
}
