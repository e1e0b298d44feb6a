/**
 * The FRR line budget (#25): how long a real FRR (zebra + bgpd in a network namespace) takes to
 * check and reload (vtysh -C, frr-reload.py) a configuration of growing size, from an empty one, as
 * an agent's first apply of a large revision does. The agent runs each FRR step with a 60 s timeout;
 * the configurator's --max-frr-lines default is chosen from these figures (docs/rollout.md).
 * Run as root: npx tsx bench/frr-budget.ts [max-lines]
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { FrrDriver, renderFrrConfig } from '@nodenet/agent';
import { FRR_PREREQUISITES, startFrr } from '@nodenet/testkit';
import { settings, spec, template } from './frr-fixture.js';

const maxLines = Number(process.argv[2] ?? 120_000);
const missing = [
  ...(process.getuid?.() === 0 ? [] : ['root']),
  ...FRR_PREREQUISITES.commands.filter((c) => c.startsWith('/') && !existsSync(c)),
];
if (missing.length) {
  console.log(`(FRR budget figures skipped: needs ${missing.join(', ')})`);
  process.exit(0);
}
console.log(`# FRR reload time by size (${cpus().length} cores, load ${loadavg()[0]?.toFixed(1)})`);
for (const [v, e, n] of [
  [20, 4, 10],
  [50, 4, 20],
  [100, 4, 25],
  [200, 4, 25],
  [400, 4, 25],
] as const) {
  const s = spec(v, e, n);
  const lines = renderFrrConfig(s, settings, template).split('\n').length;
  if (lines > maxLines) break;
  // A fresh instance per size: each apply starts from FRR's empty config.
  const ns = `nnfbg${process.pid % 10000}${v}`;
  execFileSync('ip', ['netns', 'add', ns]);
  const inst = startFrr(ns, ns);
  try {
    const d = new FrrDriver({
      template,
      settings,
      confdir: inst.confdir,
      pathspace: ns,
      rundir: inst.rundir,
      timeoutMs: 600_000,
    });
    const t0 = performance.now();
    const r = await d.applySpec(s).catch((err: Error) => err);
    const ms = performance.now() - t0;
    console.log(
      r instanceof Error
        ? `${lines} lines: FAILED after ${(ms / 1000).toFixed(1)} s: ${r.message.split('\n').slice(-2).join(' | ')}`
        : `${lines} lines: apply ${(ms / 1000).toFixed(1)} s (${((ms / lines) * 1000).toFixed(0)} µs/line), load ${loadavg()[0]?.toFixed(1)}`,
    );
  } finally {
    inst.stop();
    execFileSync('ip', ['netns', 'del', ns]);
  }
}
