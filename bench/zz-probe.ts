import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { FrrDriver, askDaemon } from '@nodenet/agent';
import { readFileSync } from 'node:fs';
import { startFrr } from '@nodenet/testkit';
import { settings, spec, template } from './frr-fixture.js';
const cpu = (pid: number) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
const ns = `nnzz${process.pid % 1000}`;
execFileSync('ip', ['netns', 'add', ns]);
const inst = startFrr(ns, ns);
try {
  const d = new FrrDriver({ template, settings, confdir: inst.confdir, pathspace: ns, rundir: inst.rundir, timeoutMs: 600_000 });
  await d.applySpec(spec(50, 4, 20));
  const perf = (await import('node:child_process')).spawn('perf', ['record', '-g', '-o', '/tmp/bgpd.perf', '-p', String(inst.pid('bgpd'))], { stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, 1000));
  for (const daemon of ['bgpd']) {
    for (let k = 0; k < 4; k++) {
      const act = k % 2 ? 'permit' : 'deny';
      const c0 = cpu(inst.pid(daemon)); const t0 = performance.now();
      const a = await askDaemon(d.instance, daemon, ['configure terminal', `ip prefix-list pl_v0_export_10 seq 1 ${act} 10.0.0.0/24 le 32`, 'end'], 60000);
      const t1 = performance.now();
      await new Promise((r) => setTimeout(r, 300));
      console.log(daemon, act, (t1 - t0).toFixed(0), 'ms; cpu', cpu(inst.pid(daemon)) - c0, JSON.stringify(a.map(x=>x.ok)));
    }
    // restore
    await askDaemon(d.instance, daemon, ['configure terminal', `ip prefix-list pl_v0_export_10 seq 1 permit 10.0.0.0/24 le 32`, 'end'], 60000);
  }
  perf.kill('SIGINT'); await new Promise((r) => setTimeout(r, 2000));
  const c0 = cpu(inst.pid('bgpd')); const t0 = performance.now();
  await askDaemon(d.instance, 'bgpd', ['show running-config'], 60000);
  console.log('bgpd show run', (performance.now()-t0).toFixed(0), cpu(inst.pid('bgpd'))-c0);
  const z0 = cpu(inst.pid('zebra')); const t2 = performance.now();
  await askDaemon(d.instance, 'zebra', ['show running-config'], 60000);
  console.log('zebra show run', (performance.now()-t2).toFixed(0), cpu(inst.pid('zebra'))-z0);
} finally { inst.stop(); execFileSync('ip', ['netns', 'del', ns]); }
