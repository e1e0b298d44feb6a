import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { FrrDriver } from '@nodenet/agent';
import { startFrr } from '@nodenet/testkit';
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import { settings, spec, template } from './frr-fixture.js';
const ns = `nnzz${process.pid % 1000}`;
execFileSync('ip', ['netns', 'add', ns]);
const inst = startFrr(ns, ns);
try {
  const d = new FrrDriver({ template, settings, confdir: inst.confdir, pathspace: ns, rundir: inst.rundir, timeoutMs: 600_000 });
  const s = spec(50, 4, 20);
  await d.applySpec(s);
  const flip = (k: number) => { const c = structuredClone(s); c.vrf[0]!.export[0]!.action = k % 2 === 0 ? 'deny' : 'permit'; return c; };
  const session = new Session(); session.connect();
  await session.post('Profiler.enable'); await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  const c0 = process.cpuUsage();
  for (let k = 0; k < 10; k++) { const t0 = performance.now(); const sp = flip(k); const r = await d.applySpec(sp); console.log(r.path, (performance.now()-t0).toFixed(0)); }
  const c = process.cpuUsage(c0); console.log('cpu per change', ((c.user+c.system)/1000/10).toFixed(1));
  const { profile } = await session.post('Profiler.stop');
  writeFileSync('/tmp/nn.cpuprofile', JSON.stringify(profile));
} finally { inst.stop(); execFileSync('ip', ['netns', 'del', ns]); }
