/**
 * Benchmark (issue 26): what an idle agent costs. The real agent binary with default intervals
 * (resync 60 s, observe 10 s) runs in a network namespace with real netlink and FRR (the host-test
 * harness of test/agent) and a NodeConfig of 20 Layer-2 networks; once it reported provisioned and
 * settled, its CPU time and its children's (vtysh, frr-reload.py: reaped children count in the
 * parent's cutime/cstime) are read from /proc over one minute, each printed.
 *
 * Usage (root): npx tsx bench/agent-idle.ts [--seconds 60] [--networks 20]
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { API_VERSION, hashConfig, type NodeConfig, type NodeConfigSpec } from '@nodenet/api';
import { AgentCluster } from '@nodenet/testkit';

const args = process.argv.slice(2);
const opt = (name: string, def: number): number => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const SECONDS = opt('seconds', 60);
const NETWORKS = opt('networks', 20);
const GOAL_S_PER_MIN = 0.3;

function spec(): NodeConfigSpec {
  const config = {
    vrf: [],
    layer2: Array.from({ length: NETWORKS }, (_, i) => ({
      name: `idle-${i}`,
      id: 200 + i,
      mtu: 1500,
      vni: 30_000 + i,
      anycastGateways: [`10.${150 + i}.0.1/24`],
      advertiseNeighbors: false,
      createMacVLANInterface: false,
      neighSuppression: false,
    })),
    routingTable: [],
  };
  return { revision: hashConfig(config), ...config };
}

/**
 * CPU seconds of `pid` from /proc/pid/stat: its own (utime + stime) and its reaped children's
 * (cutime + cstime). Fields 14-17 of proc(5); `fields` starts at field 3. USER_HZ is 100.
 */
function cpuSeconds(pid: number): { own: number; children: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const sum = (i: number[]): number => i.reduce((s, k) => s + Number(fields[k]), 0) / 100;
  return { own: sum([11, 12]), children: sum([13, 14]) };
}

async function main(): Promise<void> {
  const cluster = new AgentCluster(`bi${process.pid % 1000}`);
  let row = '';
  try {
    await cluster.setUp();
    const node = await cluster.addNode('node-idle');
    const agent = node.startAgent({ resync: '60s', extraArgs: ['--log-level', 'warn'] });
    const s = spec();
    const obj: NodeConfig = {
      apiVersion: API_VERSION,
      kind: 'NodeConfig',
      metadata: { name: node.nodeName },
      spec: s,
    };
    await cluster.clients.nodeConfig.create(obj);
    for (;;) {
      const st = (await cluster.clients.nodeConfig.get(node.nodeName)).status;
      if (st?.configStatus === 'provisioned' && st.lastAppliedRevision === s.revision) break;
      if (st?.configStatus === 'invalid') throw new Error(`apply failed: ${st.message}`);
      await new Promise((res) => setTimeout(res, 200));
    }
    // Settle: the first resync and observed writes after the apply are not idle cost.
    await new Promise((res) => setTimeout(res, 15_000));
    const pid = agent.process.pid!;
    const before = cpuSeconds(pid);
    const t0 = performance.now();
    await new Promise((res) => setTimeout(res, SECONDS * 1000));
    const after = cpuSeconds(pid);
    const minutes = (performance.now() - t0) / 60_000;
    await agent.stop();
    const own = (after.own - before.own) / minutes;
    const children = (after.children - before.children) / minutes;
    const perMinute = own + children;
    row =
      `agent idle, ${NETWORKS} L2 networks, default intervals: ${perMinute.toFixed(2)} s CPU per minute ` +
      `(${((perMinute / 60) * 100).toFixed(2)} % of a core; the agent ${own.toFixed(2)} s + its vtysh/python ` +
      `children ${children.toFixed(2)} s; load ${loadavg()[0]!.toFixed(1)}) — goal ≤ ${GOAL_S_PER_MIN} s per minute`;
  } finally {
    await cluster.tearDown();
  }
  console.log(row);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
