/**
 * FRR driver figures, each printed with its goal (issue 26): render time for configs of growing size
 * (pure; linear: the time per 1,000 lines must not grow with the size), and, when run as root with
 * FRR installed, on a real FRR instance in a network namespace: the first apply (frr-reload.py), a
 * one-line change (the fast path: vtysh commands of the difference and one read back; and the same
 * change through frr-reload.py for comparison), an unchanged config, and the drift check of a resync
 * (in-process comparison of the running config with the file).
 * Run: npx tsx bench/frr-render.ts
 */
import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { FrrDriver, renderFrrConfig } from '@nodenet/agent';
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { FRR_PREREQUISITES, startFrr } from '@nodenet/testkit';
import { settings, spec, template } from './frr-fixture.js';

/** Wall and CPU milliseconds per run (CPU: the figure to read on a loaded machine). */
function time(fn: () => void, runs: number): { ms: number; cpuMs: number } {
  fn();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < runs; i++) fn();
  const c = process.cpuUsage(c0);
  return { ms: (performance.now() - t0) / runs, cpuMs: (c.user + c.system) / 1000 / runs };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const load = (): string => `load ${loadavg()[0]!.toFixed(1)}`;

/** CPU ms of a process from /proc (utime + stime; with `children`, of its waited-for children instead). */
function procCpuMs(pid: number | 'self', children = false): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const at = children ? 13 : 11; // utime/stime are fields 14/15 of stat, cutime/cstime 16/17
  return ((Number(fields[at]) + Number(fields[at + 1])) * 1000) / 100; // USER_HZ is 100 on Linux
}

console.log(`# FRR render (pure; ${load()})`);
const perKLine: number[] = [];
for (const [v, e, n] of [
  [1, 1, 4],
  [10, 2, 10],
  [50, 4, 25],
  [200, 4, 25],
] as const) {
  const s = spec(v, e, n);
  const text = renderFrrConfig(s, settings, template);
  const lines = text.split('\n').length;
  const { ms, cpuMs } = time(() => renderFrrConfig(s, settings, template), v >= 200 ? 10 : 50);
  perKLine.push((ms / lines) * 1000);
  const goal = v === 200 ? ' — goal ≤ 60 ms' : '';
  console.log(
    `vrfs=${v} entries/vrf=${e} items/list=${n}: ${lines} lines, ${ms.toFixed(2)} ms per render ` +
      `(${((ms / lines) * 1000).toFixed(2)} ms per 1,000 lines; CPU ${cpuMs.toFixed(2)} ms)${goal}`,
  );
}
console.log(
  `render linearity: ms per 1,000 lines at 200 VRFs / at 50 VRFs = ×${(perKLine[3]! / perKLine[2]!).toFixed(2)} — goal ≈ 1 (linear)`,
);

// Not test/support/privileged.ts: that one needs vitest's runtime.
const missing = [
  ...(process.getuid?.() === 0 ? [] : ['root']),
  ...FRR_PREREQUISITES.commands.filter((c) => c.startsWith('/') && !existsSync(c)),
];
if (missing.length === 0) {
  console.log('\n# FRR apply on a real instance (netns, zebra + bgpd)');
  const ns = `nnfrb${process.pid % 100000}`;
  execFileSync('ip', ['netns', 'add', ns]);
  const inst = startFrr(ns, ns);
  try {
    const d = new FrrDriver({
      template,
      settings,
      confdir: inst.confdir,
      pathspace: ns,
      rundir: inst.rundir,
      // frr-reload.py of 50 VRFs takes minutes on a loaded machine; the figures say how long.
      timeoutMs: 600_000,
    });
    for (const [v, e, n, goalMs, driftGoalMs] of [
      [10, 2, 10, 100, undefined],
      [50, 4, 20, 150, 50],
    ] as const) {
      const s = spec(v, e, n);
      const first = await d.applySpec(s).catch((err: Error) => err);
      if (first instanceof Error) {
        console.log(
          `vrfs=${v} entries/vrf=${e} items/list=${n}: apply FAILED: ${first.message.split('\n').slice(-4).join(' | ')}`,
        );
        continue;
      }
      const flip = (x: typeof s, k: number): typeof s => {
        const c = structuredClone(x);
        c.vrf[0]!.export[0]!.action = k % 2 === 0 ? 'deny' : 'permit';
        return c;
      };
      // The one-line change, five times back and forth (fast path), then once through frr-reload.py.
      const fast: number[] = [];
      const paths = new Set<string | undefined>();
      // Wall time on a loaded machine is mostly waiting for a core: the CPU each part spends tells more.
      const cpu = (): number[] => [
        process.cpuUsage().user / 1000 + process.cpuUsage().system / 1000,
        procCpuMs('self', true),
        procCpuMs(inst.pid('zebra')),
        procCpuMs(inst.pid('bgpd')),
      ];
      // Both specs made before the clock starts: the copy is the bench's work, not the driver's.
      const flips = [flip(s, 0), flip(s, 1)];
      const cpuBefore = cpu();
      for (let k = 0; k < 5; k++) {
        const r = await d.applySpec(flips[k % 2]!);
        fast.push(r.durationMs);
        paths.add(r.path);
      }
      const [ours, vtysh, zebra, bgpd] = cpu().map((c, i) => ((c - cpuBefore[i]!) / 5).toFixed(0));
      const viaReload = await d.applySpec(flip(s, 5), { force: true });
      const t0 = performance.now();
      const same = await d.applySpec(flip(s, 5));
      const sameMs = performance.now() - t0;
      // The drift check of a resync: the first may confirm a template difference with --test once.
      const drift: number[] = [];
      for (let k = 0; k < 6; k++) {
        const t1 = performance.now();
        const sync = await d.syncSpec(flip(s, 5));
        if (sync.changed) throw new Error('drift check found drift on a converged FRR');
        drift.push(performance.now() - t1);
      }
      console.log(
        `vrfs=${v} entries/vrf=${e} items/list=${n} (${load()}): first apply (frr-reload.py) ${first.durationMs.toFixed(0)} ms; ` +
          `one-line change median ${median(fast).toFixed(0)} ms (path ${[...paths].join('/')}) — goal ≤ ${goalMs} ms ` +
          `(CPU per change: nodenet ${ours} ms, vtysh ${vtysh} ms, zebra ${zebra} ms, bgpd ${bgpd} ms); ` +
          `same change through frr-reload.py ${viaReload.durationMs.toFixed(0)} ms (post-reload check ${viaReload.verifyMs?.toFixed(0)} ms, one vtysh); ` +
          `unchanged ${sameMs.toFixed(2)} ms (changed=${same.changed}); ` +
          `drift check median ${median(drift.slice(1)).toFixed(0)} ms (first ${drift[0]!.toFixed(0)} ms)` +
          (driftGoalMs ? ` — goal ≤ ${driftGoalMs} ms` : ''),
      );
    }
  } finally {
    inst.stop();
    execFileSync('ip', ['netns', 'del', ns]);
  }
} else {
  console.log(`\n(apply figures skipped: needs ${missing.join(', ')})`);
}
