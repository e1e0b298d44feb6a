/**
 * FRR driver figures: render time for configs of growing size (pure), and, when run as root with FRR
 * installed, the cost of an apply (vtysh -C check + frr-reload.py) on a real FRR instance in a network
 * namespace: first apply, a one-line change, and an unchanged config (which must cost ~nothing).
 * Run: npx tsx bench/frr-render.ts
 */
import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { FrrDriver, renderFrrConfig } from '@nodenet/agent';
import { existsSync } from 'node:fs';
import { FRR_PREREQUISITES, startFrr } from '../test/frr/support/frr-netns.js';
import { settings, spec, template } from './frr-fixture.js';

function time(fn: () => void, runs: number): number {
  fn();
  const t0 = performance.now();
  for (let i = 0; i < runs; i++) fn();
  return (performance.now() - t0) / runs;
}

console.log('# FRR render (pure)');
for (const [v, e, n] of [
  [1, 1, 4],
  [10, 2, 10],
  [50, 4, 20],
  [200, 4, 25],
] as const) {
  const s = spec(v, e, n);
  const text = renderFrrConfig(s, settings, template);
  const ms = time(() => renderFrrConfig(s, settings, template), v >= 200 ? 5 : 50);
  console.log(
    `vrfs=${v} entries/vrf=${e} items/list=${n}: ${text.split('\n').length} lines, ${ms.toFixed(2)} ms per render`,
  );
}

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
    });
    for (const [v, e, n] of [
      [10, 2, 10],
      [50, 4, 20],
    ] as const) {
      const s = spec(v, e, n);
      const first = await d.applySpec(s).catch((err: Error) => err);
      if (first instanceof Error) {
        console.log(
          `vrfs=${v} entries/vrf=${e} items/list=${n}: apply FAILED: ${first.message.split('\n').slice(-4).join(' | ')}`,
        );
        continue;
      }
      const changed = structuredClone(s);
      changed.vrf[0]!.export[0]!.action = changed.vrf[0]!.export[0]!.action === 'permit' ? 'deny' : 'permit';
      const small = await d.applySpec(changed);
      const t0 = performance.now();
      const same = await d.applySpec(changed);
      const sameMs = performance.now() - t0;
      const t1 = performance.now();
      const sync = await d.syncSpec(changed);
      const syncMs = performance.now() - t1;
      console.log(
        `vrfs=${v} entries/vrf=${e} items/list=${n}: apply from previous ${first.durationMs.toFixed(0)} ms ` +
          `(of which post-reload check ${first.verifyMs?.toFixed(0)} ms), ` +
          `one-line change ${small.durationMs.toFixed(0)} ms (check ${small.verifyMs?.toFixed(0)} ms), ` +
          `unchanged ${sameMs.toFixed(2)} ms (changed=${same.changed}), ` +
          `drift check ${syncMs.toFixed(0)} ms (changed=${sync.changed})`,
      );
    }
  } finally {
    inst.stop();
    execFileSync('ip', ['netns', 'del', ns]);
  }
} else {
  console.log(`\n(apply figures skipped: needs ${missing.join(', ')})`);
}
