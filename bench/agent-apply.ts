/**
 * Benchmark (issue 12): the agent's apply-to-provisioned time — from writing a NodeConfig to the
 * `provisioned` status in the API — without a confirm window and with one. The real agent binary,
 * netlink and FRR run in a network namespace (the host-test harness of test/agent), devcluster is
 * the API server. With a window, the time is the apply plus the window (rounded up to the check
 * interval): the price of catching a change that cuts the node off later.
 *
 * Usage (root): npx tsx bench/agent-apply.ts [--repeat 3] [--window 10s]
 */
import {
  API_VERSION,
  ASSIGNED_AT_ANNOTATION,
  hashConfig,
  type NodeConfig,
  type NodeConfigSpec,
} from '@nodenet/api';
import { AgentCluster } from '@nodenet/testkit';

const args = process.argv.slice(2);
const opt = (name: string, def: string): string => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? (args[i + 1] ?? def) : def;
};
const REPEAT = Number(opt('repeat', '3'));
const WINDOW = opt('window', '10s');

let serial = 0;
function spec(): NodeConfigSpec {
  const i = ++serial;
  const config = {
    vrf: [],
    layer2: [
      {
        name: `bench-${i}`,
        id: 100 + i,
        mtu: 1500,
        vni: 20_000 + i,
        anycastGateways: [`10.${100 + i}.0.1/24`],
        advertiseNeighbors: false,
        createMacVLANInterface: false,
        neighSuppression: false,
      },
    ],
    routingTable: [],
  };
  return { revision: hashConfig(config), ...config };
}

async function main(): Promise<void> {
  const cluster = new AgentCluster(`ba${process.pid % 1000}`);
  const rows: string[] = [];
  try {
    await cluster.setUp();
    for (const window of ['0s', WINDOW]) {
      const node = await cluster.addNode(`node-${window.replace(/\W/g, '')}`);
      const agent = node.startAgent({
        confirmWindow: window,
        extraArgs: ['--confirm-interval', '1s', '--confirm-unreachable-limit', '5s', '--log-level', 'warn'],
      });
      const times: number[] = [];
      for (let r = 0; r < REPEAT + 1; r++) {
        const s = spec();
        const existing = await cluster.clients.nodeConfig.get(node.nodeName).catch(() => undefined);
        const obj: NodeConfig = {
          apiVersion: API_VERSION,
          kind: 'NodeConfig',
          metadata: {
            ...(existing?.metadata ?? { name: node.nodeName }),
            annotations: { [ASSIGNED_AT_ANNOTATION]: new Date().toISOString() },
          },
          spec: s,
        };
        const t0 = performance.now();
        if (existing) await cluster.clients.nodeConfig.update(obj);
        else await cluster.clients.nodeConfig.create(obj);
        for (;;) {
          const st = (await cluster.clients.nodeConfig.get(node.nodeName)).status;
          if (st?.configStatus === 'provisioned' && st.lastAppliedRevision === s.revision) break;
          if (st?.configStatus === 'invalid') throw new Error(`apply failed: ${st.message}`);
          await new Promise((res) => setTimeout(res, 50));
        }
        // The first apply also starts the agent's watch and FRR's first reload: a warm-up.
        if (r > 0) times.push(performance.now() - t0);
      }
      await agent.stop();
      times.sort((a, b) => a - b);
      const median = times[Math.floor(times.length / 2)]!;
      rows.push(
        `confirm window ${window.padEnd(4)}: apply-to-provisioned median ${(median / 1000).toFixed(2)} s ` +
          `(min ${(times[0]! / 1000).toFixed(2)} s, max ${(times.at(-1)! / 1000).toFixed(2)} s, ${times.length} runs)`,
      );
    }
  } finally {
    await cluster.tearDown();
  }
  for (const row of rows) console.log(row);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
