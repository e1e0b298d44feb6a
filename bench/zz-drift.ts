import { execFileSync } from 'node:child_process';
import { FrrDriver, daemonConfigs } from '@nodenet/agent';
import { readFileSync } from 'node:fs';
import { startFrr } from '@nodenet/testkit';
import { settings, spec, template } from './frr-fixture.js';
const cpu = (pid: number) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
const ns = `nnzz${process.pid % 1000}`;
execFileSync('ip', ['netns', 'add', ns]);
const inst = startFrr(ns, ns);
try {
  const d = new FrrDriver({ template, settings, confdir: inst.confdir, pathspace: ns, rundir: inst.rundir, timeoutMs: 600_000 });
  const s = spec(50, 4, 20);
  await d.applySpec(s);
  await d.syncSpec(s); await d.syncSpec(s);
  const z0 = cpu(inst.pid('zebra')), b0 = cpu(inst.pid('bgpd')); const c0 = process.cpuUsage(); const t0 = performance.now();
  for (let k = 0; k < 10; k++) { const r = await d.syncSpec(s); if (r.changed) throw new Error('drift'); }
  const c = process.cpuUsage(c0);
  console.log('sync wall', ((performance.now()-t0)/10).toFixed(1), 'nodenet', ((c.user+c.system)/1000/10).toFixed(1), 'zebra', (cpu(inst.pid('zebra'))-z0)/10, 'bgpd', (cpu(inst.pid('bgpd'))-b0)/10);
  const t1 = performance.now(); const c1 = process.cpuUsage();
  for (let k = 0; k < 10; k++) await daemonConfigs(d.instance);
  const c2 = process.cpuUsage(c1);
  console.log('daemonConfigs wall', ((performance.now()-t1)/10).toFixed(1), 'nodenet', ((c2.user+c2.system)/1000/10).toFixed(1));
} finally { inst.stop(); execFileSync('ip', ['netns', 'del', ns]); }
