/**
 * Host plan figures (issue 39): `kubectl nodenet diff --host` for 5,000 nodes — each node's spec on
 * both sides (`nodeConfigSpec`, as the plugin builds it) and the fleet's host plans
 * (`fleetHostPlan`: one plan per distinct spec pair, nodes grouped by plan). Goal: under 2 s for a
 * fleet where most nodes share a plan (racks select networks). Also printed: the worst case, where
 * a per-node loopback address makes every node's spec pair its own (on 500 nodes; it is linear).
 * Run: npx tsx bench/host-plan.ts
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fleetHostPlan } from '@nodenet/agent';
import { buildConfig, configWithLoopbacks, nodeConfigSpec, type Inputs } from '@nodenet/api';
import { bigLayer2, bigVrf } from '@nodenet/testkit';
import { readFileSync } from 'node:fs';

const NODES = 5_000;
const RACKS = 50;
const template = readFileSync(new URL('../deploy/agent/frr.conf.tpl', import.meta.url), 'utf8');
const settings = {
  host: { vtepAddress: '192.0.2.1' },
  frr: { asn: 65000, routerId: '192.0.2.1', vrfRouterId: '192.0.2.2' },
};
const nodes = Array.from({ length: NODES }, (_, i) => ({
  name: `node-${String(i).padStart(4, '0')}`,
  labels: { rack: `r${i % RACKS}` },
}));

/** 10 VRFs of 50 prefixes per list, 40 Layer-2 networks of 8 gateways, every 4th selected by rack. */
function inputs(change: boolean, loopbacks: boolean): Inputs {
  const vrf = Array.from({ length: 10 }, (_, i) => bigVrf(`vrf-${i}`, i, 50));
  if (loopbacks) vrf[0]!.spec.loopbacks = [{ name: 'lo', subnet: '10.200.0.0/16' }];
  const layer2 = Array.from({ length: 40 }, (_, i) => {
    const l2 = bigLayer2(`l2-${i}`, i, 8);
    if (i % 4 === 0) l2.spec.nodeSelector = { matchLabels: { rack: `r${i % RACKS}` } };
    return l2;
  });
  if (change) {
    layer2[1]!.spec.mtu = 1450; // every node: in place
    layer2[4]!.spec.vni = 190_004; // rack r4's nodes: VXLAN re-created
    vrf[2]!.spec.export = vrf[2]!.spec.export!.slice(1); // every node: a prefix-list line removed
  }
  return { vrf, layer2, routingTable: [] };
}

function side(change: boolean, loopbacks: boolean) {
  const built = buildConfig(inputs(change, loopbacks));
  return configWithLoopbacks(built, [], nodes);
}

function run(loopbacks: boolean, count: number): void {
  const from = side(false, loopbacks);
  const to = side(true, loopbacks);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const pairs = nodes.slice(0, count).map((n) => ({
    node: n.name,
    previous: nodeConfigSpec(from, n.labels, n.name),
    next: nodeConfigSpec(to, n.labels, n.name),
  }));
  const t1 = performance.now();
  const plan = fleetHostPlan({ nodes: pairs, template, settings });
  const t2 = performance.now();
  const c = process.cpuUsage(c0);
  const goal = loopbacks
    ? ` (worst case: every pair distinct, ${((c.user + c.system) / 1000 / count).toFixed(1)} ms CPU per node; no goal)`
    : ' — goal < 2,000 ms';
  console.log(
    `${count} nodes, ${plan.distinctPairs} distinct spec pairs, ${plan.groups.length} plans: ` +
      `${(t2 - t0).toFixed(0)} ms (specs ${(t1 - t0).toFixed(0)} ms, plans ${(t2 - t1).toFixed(0)} ms; ` +
      `CPU ${((c.user + c.system) / 1000).toFixed(0)} ms; worst class ${plan.disruption})${goal}`,
  );
}

console.log(`# host plan (pure; load ${loadavg()[0]!.toFixed(1)})`);
run(false, NODES);
// A loopback address per node makes each node's spec its own: measured on 500 nodes (linear).
run(true, 500);
