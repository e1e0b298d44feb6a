/**
 * Runs inside the real-kernel VM (see netlink-vm.test.ts): applies VRF, RoutingTable and
 * Layer-2-in-VRF configurations with the netlink driver and prints what `ip -json -details` shows
 * after each step, as one JSON line prefixed with RESULT=, for the test on the host to check.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { buildConfig, nodeConfigSpec } from '@nodenet/api';
import { createNetlinkDriver, hostPlan, type NetlinkSpec } from '@nodenet/agent';
import { PREVIEW_SETTINGS, sectionsTemplate } from '@nodenet/agent/host-plan';
import { goodInputs } from '../../packages/api/test/fixtures.js';
import { HOST_PLAN_CASES } from '../../packages/agent/test/host-plan-cases.js';

const ip = (...args: string[]): unknown =>
  JSON.parse(execFileSync('ip', ['-json', '-details', ...args], { encoding: 'utf8' }) || '[]');
const snapshot = () => ({
  links: ip('link', 'show'),
  addrs: ip('addr', 'show'),
});

const vrf = (name: string, vni: number) => ({
  name: `cfg-${name}`,
  vrf: name,
  vni,
  import: [],
  export: [],
  aggregate: [],
  seq: 1,
  mtu: 9000,
});
const spec: NetlinkSpec = {
  vrf: [vrf('blue', 5000), vrf('red', 5001)],
  layer2: [
    {
      name: 'net-a',
      id: 100,
      mtu: 1500,
      vni: 1100,
      vrf: 'blue',
      anycastMac: '02:aa:00:00:01:00',
      anycastGateways: ['10.1.0.1/24'],
      advertiseNeighbors: false,
      createMacVLANInterface: false,
      neighSuppression: true,
    },
  ],
  routingTable: [{ name: 'taas-77', tableId: 77 }],
};

mkdirSync('/tmp/nodenet', { recursive: true });
const settings = { vtepAddress: '10.50.0.1', vrfTableRange: { min: 100, max: 199 } };
const tableStatePath = '/tmp/nodenet/vrf-tables.json';
const out: Record<string, unknown> = {};

let driver = createNetlinkDriver({ settings, tableStatePath });
const first = await driver.apply(spec);
out.first = { operations: first.operations, tables: Object.fromEntries(first.tables) };
out.second = { operations: (await driver.apply(spec)).operations };
out.afterApply = snapshot();
const blueTable = first.tables.get('blue')!;
out.blueRoutes = ip('route', 'show', 'table', String(blueTable));
out.rules = ip('rule', 'show');
driver.close();

// "Restart" the agent after VRF red's device was lost: it gets its table back from the state file,
// blue keeps the one its device has.
execFileSync('ip', ['link', 'del', 'vr.red']);
driver = createNetlinkDriver({ settings, tableStatePath });
const restarted = await driver.apply(spec);
out.restarted = {
  operations: restarted.operations,
  tables: Object.fromEntries(restarted.tables),
  applied: restarted.applied.map((o) => o.op),
};
out.afterRestart = snapshot();

// Remove VRF red: only its devices go.
const withoutRed = { ...spec, vrf: [spec.vrf[0]!] };
const removed = await driver.apply(withoutRed);
out.removed = { operations: removed.operations };
out.afterRemove = snapshot();
out.again = { operations: (await driver.apply(withoutRed)).operations };
// The state file remembers red's table after red is gone (written durably, like the checkpoints).
out.tablesFileAfterRemove = JSON.parse(readFileSync(tableStatePath, 'utf8')) as unknown;
driver.close();

// The validation's representative input set (two VRFRouteConfigurations for VRF blue, a VRF red,
// Layer-2 networks in and outside a VRF, a routing table) on a worker node, from a clean host.
driver = createNetlinkDriver({ settings, tableStatePath });
await driver.apply({ vrf: [], layer2: [], routingTable: [] });
const { config, hash } = buildConfig(goodInputs());
const fixtureSpec = nodeConfigSpec({ config, hash }, { role: 'worker' });
const fixture = await driver.apply(fixtureSpec);
out.fixture = { operations: fixture.operations, again: (await driver.apply(fixtureSpec)).operations };
out.afterFixture = snapshot();
driver.close();

// Issue 39: the host plan of each VRF case (packages/agent/test/host-plan-cases.ts) against the
// operations the driver then runs, on a host converged on the previous spec (the netns suite,
// test/agent/host-plan.test.ts, runs the cases without VRF devices).
const hostPlans: Record<string, { planned: unknown[]; applied: unknown[]; again: number }> = {};
for (const [name, c] of Object.entries(HOST_PLAN_CASES).filter(([, x]) => x.vrf)) {
  driver = createNetlinkDriver({ settings, tableStatePath: `/tmp/nodenet/plan-${name}.json` });
  await driver.apply(c.previous);
  const plan = hostPlan({
    previous: c.previous,
    next: c.next,
    template: sectionsTemplate(),
    settings: { host: settings, frr: PREVIEW_SETTINGS.frr },
  });
  const res = await driver.apply(c.next);
  hostPlans[name] = {
    planned: plan.netlink.map((x) => x.operation),
    applied: res.applied,
    again: (await driver.apply(c.next)).operations,
  };
  await driver.apply({ vrf: [], layer2: [], routingTable: [] });
  driver.close();
}
out.hostPlans = hostPlans;

console.log(`RESULT=${JSON.stringify(out)}`);
