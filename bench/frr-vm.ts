/**
 * FRR apply time for 10 and 50 VRFs under a VRF-capable kernel (issue #14): one VM boot (test/vm,
 * QEMU under TCG, so every figure is several times what real hardware takes, and the build machine
 * is shared and noisy); inside it, real VRF devices with their leaking veth pairs, FRR (zebra + bgpd)
 * and the agent's FrrDriver from the built package. Steps, each timed by the driver:
 *   empty → 10 VRFs; a forced reload of the unchanged 10 (frr-reload.py finds nothing to do);
 *   a drift check of the 10 (`sync`: frr-reload.py --test); 10 → 50 VRFs (≈13k lines: the change
 *   that used to fail with `route-map … does not exist`, see packages/agent/src/frr/prepare.ts);
 *   the same forced reload and drift check of the 50.
 * `verify` is the post-reload check of FRR's state inside each apply (its extra cost per apply).
 * A second boot measures the idle cost of the real agent binary with 50 VRFs (agent-idle-vm-guest.ts;
 * the host's bench/agent-idle.ts has no VRF devices): CPU seconds of the agent and its children per
 * minute inside the VM, and that figure divided by the emulation's slowdown (the same CPU work timed
 * in the guest and on the host, cpu-calibration.ts) as an estimate for the host; split into the
 * agent's own CPU, its children's (vtysh, python) and, besides the goal, what answering the agent's
 * reads cost FRR's daemons (zebra + bgpd).
 * Run (root): npx tsx bench/frr-vm.ts [--idle-only]   (--idle-only: the second boot alone)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { bundleGuest, runInVm, vmPrerequisites } from '@nodenet/testkit';
import { settings, spec, template } from './frr-fixture.js';
import { calibrationMs } from './cpu-calibration.js';
import { IDLE_GUEST_ENV, type IdleInput } from './agent-idle-vm-input.js';

const repo = resolve(import.meta.dirname, '..');
const SIZES = [
  [10, 2, 10],
  [50, 4, 20],
] as const;

// Not test/support/privileged.ts: that one needs vitest's runtime.
const req = vmPrerequisites();
const missing = [
  ...(process.getuid?.() === 0 ? [] : ['root']),
  ...req.commands.filter((c) =>
    c.startsWith('/') ? !existsSync(c) : spawnSync('sh', ['-c', `command -v ${c}`]).status !== 0,
  ),
  ...req.files.filter((f) => !existsSync(f)),
];
if (missing.length > 0) {
  console.log(`skipped: needs ${missing.join(', ')}`);
  process.exit(0);
}
execFileSync('npx', ['tsc', '-b', 'packages/agent'], { cwd: repo, stdio: 'inherit' });
const idleOnly = process.argv.includes('--idle-only');

const guest = `import { FrrDriver } from ${JSON.stringify(`${repo}/packages/agent/dist/frr/index.js`)};
const input = ${JSON.stringify({ template, settings, specs: SIZES.map(([v, e, n]) => spec(v, e, n)) })};
const out = (key, value) => console.log('@@ ' + key + ' ' + JSON.stringify(value));
const d = new FrrDriver({ template: input.template, settings: input.settings, confdir: '/tmp/frr', pathspace: 'b',
  rundir: '/run/frr/b', timeoutMs: 1800000 });
for (let i = 0; i < 240 && !(await d.status()).answering; i++) await new Promise((r) => setTimeout(r, 500));
const ms = (t0) => Math.round(performance.now() - t0);
for (const s of input.specs) {
  const vrfs = new Set(s.vrf.map((e) => e.vrf)).size;
  const text = d.render(s);
  const lines = text.split('\\n').length;
  try {
    const a = await d.apply(text);
    out('apply', { vrfs, lines, ms: Math.round(a.durationMs), verifyMs: Math.round(a.verifyMs) });
    let t0 = performance.now();
    const f = await d.apply(text, { force: true });
    out('forced reload, unchanged', { vrfs, ms: ms(t0), verifyMs: Math.round(f.verifyMs) });
    t0 = performance.now();
    const y = await d.sync(text);
    out('drift check (sync)', { vrfs, ms: ms(t0), changed: y.changed, drift: y.drift });
  } catch (e) {
    out('FAILED', { vrfs, lines, error: String(e.message).slice(0, 2000) });
  }
}
`;

const vrfDevices = Math.max(...SIZES.map(([v]) => v));
const script = `set -e
hostname nn-bench
ip link set lo up
i=0
while [ $i -lt ${vrfDevices} ]; do
  ip link add vr.v$i type vrf table $((1000 + i))
  ip link add vd.v$i type veth peer name dv.v$i
  ip link set dv.v$i master vr.v$i
  for l in vr.v$i vd.v$i dv.v$i; do ip link set $l up; done
  i=$((i + 1))
done
mkdir -p /run/frr/b /tmp/frr/b
chown frr:frr /run/frr /run/frr/b /tmp/frr
echo 'service integrated-vtysh-config' > /tmp/frr/b/vtysh.conf
for d in zebra bgpd; do /usr/lib/frr/$d -d -N b -P 0 -f /dev/null -i /run/frr/b/$d.pid --log file:/tmp/frr/$d.log; done
cat > /tmp/bench.mjs <<'NODENET_EOF'
${guest}NODENET_EOF
node /tmp/bench.mjs
`;

if (!idleOnly) {
  const r = await runInVm({ script, cwd: repo, timeoutMs: 2_400_000, memoryMiB: 2048 });
  const results = r.output.split('\n').filter((l) => l.startsWith('@@ '));
  console.log(
    `# FRR apply in the VM (Debian kernel, QEMU TCG; boot + run ${Math.round(r.durationMs / 1000)} s)`,
  );
  for (const l of results) console.log(l.slice(3));
  if (r.exitCode !== 0 || results.some((l) => l.startsWith('@@ FAILED'))) {
    console.error(r.output.slice(-4000), r.timedOut ? '(timed out)' : '');
    process.exit(1);
  }
}

// ------------------------------------------------------------------ the idle agent with 50 VRFs

const IDLE_GOAL_S_PER_MIN = 0.3;
const idleInput: IdleInput = { template, settings, vrf: spec(50, 1, 4).vrf, seconds: 60 };
const bundle = await bundleGuest('bench/agent-idle-vm-guest.ts');
const hostCalibration = calibrationMs();
const idle = await runInVm({
  script: `cat > /tmp/idle-input.json <<'NODENET_EOF'\n${JSON.stringify(idleInput)}\nNODENET_EOF\nnode ${bundle} /tmp/idle-input.json\n`,
  cwd: repo,
  env: { [IDLE_GUEST_ENV]: '1' },
  timeoutMs: 2_400_000,
  memoryMiB: 2048,
});
rmSync(bundle, { force: true });
const line = idle.output.split('\n').find((l) => l.startsWith('@@ agent idle '));
if (idle.exitCode !== 0 || !line) {
  const failed = idle.output.split('\n').find((l) => l.startsWith('@@ FAILED'));
  console.error(failed?.slice(0, 4000) ?? idle.output.slice(-4000), idle.timedOut ? '(timed out)' : '');
  process.exit(1);
}
const m = JSON.parse(line.slice('@@ agent idle '.length)) as {
  vrfs: number;
  seconds: number;
  cpuSecondsPerMinute: number;
  agentPerMinute: number;
  childrenPerMinute: number;
  frrPerMinute: number;
  provisionedMs: number;
  calibration: number;
};
const slowdown = m.calibration / hostCalibration;
const hostEstimate = m.cpuSecondsPerMinute / slowdown;
console.log(
  `agent idle in the VM, ${m.vrfs} VRFs, default intervals (agent + vtysh/python children, over ${m.seconds} s): ` +
    `${m.cpuSecondsPerMinute.toFixed(2)} s CPU per minute of the emulated CPU; emulation ${slowdown.toFixed(1)}× slower ` +
    `than this host (calibration ${Math.round(m.calibration)} / ${Math.round(hostCalibration)} ms), so ≈ ` +
    `${hostEstimate.toFixed(2)} s per minute (${((hostEstimate / 60) * 100).toFixed(2)} % of a core) on this host ` +
    `— goal ≤ ${IDLE_GOAL_S_PER_MIN} s per minute (provisioned after ${Math.round(m.provisionedMs / 1000)} s; ` +
    `boot + run ${Math.round(idle.durationMs / 1000)} s; host load ${loadavg()[0]!.toFixed(1)})`,
);
const onHost = (s: number): string => `${s.toFixed(2)} s (≈ ${(s / slowdown).toFixed(2)} s on this host)`;
console.log(
  `  of which the agent itself ${onHost(m.agentPerMinute)}, its vtysh/python children ` +
    `${onHost(m.childrenPerMinute)}; besides the goal, FRR's daemons answering its reads (zebra + bgpd) ` +
    `${onHost(m.frrPerMinute)} per minute`,
);
