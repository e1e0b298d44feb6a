import { execFileSync } from 'node:child_process';
import { FrrDriver, configDriftForTest } from './_tmp-shim.js';
import { startFrr } from '../test/frr/support/frr-netns.js';
import { settings, spec, template } from './frr-fixture.js';
const ns = `nnfft${process.pid % 1000}`;
execFileSync('ip', ['netns', 'add', ns]);
const inst = startFrr(ns, ns);
try {
  const d = new FrrDriver({ template, settings, confdir: inst.confdir, pathspace: ns, rundir: inst.rundir });
  await new Promise(r => setTimeout(r, 1000));
  for (const v of [10, 50]) {
    const s = spec(v, 2, 10);
    const first = await d.applySpec(s);
    console.log('first', v, first);
    const running = inst.vtysh('show running-config');
    console.log('in-process drift after reload:', JSON.stringify(configDriftForTest(running, d.render(s))));
    const t0 = performance.now(); const sy = await d.syncSpec(s); console.log('sync', (performance.now()-t0).toFixed(0), JSON.stringify(sy));
    for (let k = 0; k < 3; k++) {
      const c = structuredClone(s);
      c.vrf[0]!.export[0]!.action = k % 2 ? 'permit' : 'deny';
      c.vrf[1]!.community = `65000:${77 + k}`;
      const r = await d.applySpec(c);
      console.log('change', v, r, JSON.stringify((await d.drift())));
    }
  }
} finally { inst.stop(); execFileSync('ip', ['netns', 'del', ns]); }
