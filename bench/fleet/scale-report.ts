/** bench/fleet-scale.ts: one phase's figures per node, each with its goal (issue 40). */
import type { MeterCounts, MeterRow } from './metered-cluster.js';

export interface Snapshot {
  t: number;
  counts: MeterCounts;
  dc: { cpuMs: number; rss: number; hwm: number };
  dcHeap: number;
  configurator: { cpuMs: number; rss: number; hwm: number };
  agentsCpuMs: number;
  passes: number;
  passSeconds: number;
  load: string;
}

export interface Phase {
  name: string;
  /** Nodes whose host config the change touches. */
  changed: number;
  before: Snapshot;
  after: Snapshot;
}

const WRITE_VERBS = ['create', 'update', 'patch', 'delete'];
const isWrite = (key: string): boolean => WRITE_VERBS.includes(key.split(' ')[0]!);
const empty: MeterRow = { requests: 0, requestBytes: 0, responseBytes: 0, events: 0 };

/** The writer's rows over the phase (after minus before). */
function delta(p: Phase, writer: string): [string, MeterRow][] {
  const a = p.after.counts[writer] ?? {};
  const b = p.before.counts[writer] ?? {};
  return Object.entries(a)
    .map(([k, r]): [string, MeterRow] => {
      const o = b[k] ?? empty;
      return [
        k,
        {
          requests: r.requests - o.requests,
          requestBytes: r.requestBytes - o.requestBytes,
          responseBytes: r.responseBytes - o.responseBytes,
          events: r.events - o.events,
        },
      ];
    })
    .filter(([, r]) => r.requests > 0 || r.events > 0 || r.responseBytes > 0)
    .sort((x, y) => y[1].requests - x[1].requests);
}

const sum = (rows: [string, MeterRow][], f: (r: MeterRow) => number, only = (_k: string) => true): number =>
  rows.filter(([k]) => only(k)).reduce((s, [, r]) => s + f(r), 0);
const kib = (b: number): string => `${(b / 1024).toFixed(2)} KiB`;

function writerRows(p: Phase, writer: string, per: number): Record<string, string> {
  const rows = delta(p, writer);
  const verbs = rows
    .filter(([k]) => !k.startsWith('watch '))
    .map(([k, r]) => `${k} ${(r.requests / per).toFixed(2)}`)
    .join(', ');
  const bytes = rows
    .filter(([k]) => !k.startsWith('watch '))
    .map(([k, r]) => `${k} ${kib((r.requestBytes + r.responseBytes) / per)}`)
    .join(', ');
  return {
    [`${writer}: requests per node (writes), by verb`]: `${(
      sum(
        rows,
        (r) => r.requests,
        (k) => !k.startsWith('watch '),
      ) / per
    ).toFixed(2)} (${(sum(rows, (r) => r.requests, isWrite) / per).toFixed(2)}): ${verbs}`,
    [`${writer}: bytes per node sent + received, by verb`]: `${kib(
      sum(
        rows,
        (r) => r.requestBytes + r.responseBytes,
        (k) => !k.startsWith('watch '),
      ) / per,
    )}: ${bytes}`,
  };
}

export function changeRows(
  p: Phase,
  o: { nodes: number; factor: number; limit: string },
): Record<string, string> {
  const { before: b, after: a } = p;
  const N = o.nodes;
  const perLimit = o.limit.endsWith('%')
    ? Math.ceil((N * Number(o.limit.slice(0, -1))) / 100)
    : Number(o.limit);
  const waves = Math.ceil(p.changed / perLimit);
  const cfg = delta(p, 'configurator');
  const agentRows = delta(p, 'agents');
  const writes = sum(cfg, (r) => r.requests, isWrite) + sum(agentRows, (r) => r.requests, isWrite);
  const watch = cfg.filter(([k]) => k.startsWith('watch '));
  const events = sum(watch, (r) => r.events);
  const cpuPerNode = (a.configurator.cpuMs - b.configurator.cpuMs) / N;
  const passes = a.passes - b.passes;
  return {
    'machine load (1/5/15 min) before → after': `${b.load} → ${a.load}`,
    'nodes changed / nodes': `${p.changed} / ${N} (update limit ${o.limit} = ${perLimit}: ${waves} wave(s))`,
    'wall time, agents on the compressed clock': `${((a.t - b.t) / 1000).toFixed(0)} s (the agents' window ÷ ${o.factor}; the server's and the configurator's work is not compressed)`,
    'the same rollout with the default window (4 m, soak 0), at least': `${waves * 4} min`,
    'writes per node per rollout, all writers (goal ≤ 4)': `${(writes / N).toFixed(2)} per node of the fleet, ${(writes / p.changed).toFixed(2)} per changed node (${writes} writes)`,
    ...writerRows(p, 'configurator', N),
    ...writerRows(p, 'agents', N),
    'watch events the configurator received, per node': `${(events / N).toFixed(2)} (${watch.map(([k, r]) => `${k.slice(6)} ${(r.events / N).toFixed(2)}`).join(', ')}; ${kib(sum(watch, (r) => r.responseBytes) / N)} of watch JSON)`,
    'configurator CPU per node (goal ≤ 1.2× the client floor, printed below)': `${cpuPerNode.toFixed(2)} ms (${((a.configurator.cpuMs - b.configurator.cpuMs) / 1000).toFixed(1)} s)`,
    'configurator passes (mean duration)': Number.isFinite(passes)
      ? `${passes} (${(((a.passSeconds - b.passSeconds) / passes) * 1000).toFixed(0)} ms)`
      : '(metrics not up yet at the start)',
    'configurator RSS per node now / peak (goal ≤ 16 KiB)': `${kib(a.configurator.rss / N)} / ${kib(a.configurator.hwm / N)} (${(a.configurator.rss / 2 ** 20).toFixed(0)} / ${(a.configurator.hwm / 2 ** 20).toFixed(0)} MiB)`,
    'devcluster CPU per node': `${((a.dc.cpuMs - b.dc.cpuMs) / N).toFixed(2)} ms (${((a.dc.cpuMs - b.dc.cpuMs) / 1000).toFixed(1)} s)`,
    'devcluster RSS / heap after GC, per node': `${kib(a.dc.rss / N)} / ${kib(a.dcHeap / N)} (${(a.dc.rss / 2 ** 20).toFixed(0)} / ${(a.dcHeap / 2 ** 20).toFixed(0)} MiB)`,
    'simulated agents CPU per node (the harness, not a goal)': `${((a.agentsCpuMs - b.agentsCpuMs) / N).toFixed(2)} ms`,
  };
}
