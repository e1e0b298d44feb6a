/**
 * The configurator at the size budget (#25): inputs whose revision is at --max-revision-bytes,
 * N nodes (each NodeConfig carries the configuration), the configurator binary as a child process
 * with production lease timing. Reports its peak RSS (VmHWM) against the Deployment's memory limit
 * (deploy/configurator.yaml, 512 Mi) and the pass time (its own histogram) while it builds the
 * revision and hands it to every node. devcluster runs in this process, simulated agents answer.
 * Run: npx tsx bench/configurator-budget.ts [nodes...]
 */
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startDevCluster } from '@nodenet/devcluster';
import { DEFAULT_BUDGET, buildRevision } from '@nodenet/configurator';
import { KubeClient, loadKubeConfig, makeClients } from '@nodenet/kube';
import type { InputObject } from '@nodenet/api';
import { inputSetOfSize, spawnConfigurator, SimulatedAgents } from '@nodenet/testkit';

const DEPLOYMENT_LIMIT = 512 * 1024 * 1024;
/** The configurator runs with the Deployment's NODE_OPTIONS (its heap bound). */
const DEPLOYMENT = readFileSync(new URL('../deploy/configurator.yaml', import.meta.url), 'utf8');
const NODE_OPTIONS = /name: NODE_OPTIONS, value: ([^ }]+)/.exec(DEPLOYMENT)?.[1] ?? '';
const CRDS = fileURLToPath(new URL('../crds/', import.meta.url));
const nodeCounts = process.argv.slice(2).map(Number);

const kib = (pid: number, field: string): number =>
  Number(
    /(\d+) kB/.exec(
      readFileSync(`/proc/${pid}/status`, 'utf8')
        .split('\n')
        .find((l) => l.startsWith(field)) ?? '',
    )?.[1] ?? 0,
  ) * 1024;

async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ')[1] ?? NaN);
}

console.log(
  `# configurator at the size budget (${cpus().length} cores, load ${loadavg()[0]?.toFixed(1)}, NODE_OPTIONS ${NODE_OPTIONS})`,
);
const { inputs, configBytes } = inputSetOfSize(DEFAULT_BUDGET.maxConfigBytes - 4096);
// The build alone, in this process (the configurator does it on every input change): validation
// that grew quadratic in the gateways once took 70 s of CPU here.
{
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const c0 = process.cpuUsage();
    buildRevision(inputs, [], Date.now());
    const used = process.cpuUsage(c0);
    times.push((used.user + used.system) / 1000);
  }
  console.log(
    `revision build at the budget (${inputs.vrf.length} VRFs, ${inputs.layer2.length} Layer-2 networks): ` +
      `CPU first ${times[0]?.toFixed(0)} ms, then ${times
        .slice(1)
        .map((t) => t.toFixed(0))
        .join(' / ')} ms`,
  );
}
for (const nodes of nodeCounts.length ? nodeCounts : [10, 50]) {
  const dc = await startDevCluster({ crdsDir: CRDS });
  const clients = makeClients(new KubeClient(loadKubeConfig(dc.kubeconfigPath)));
  for (let i = 0; i < nodes; i++)
    await clients.node.patchStatus(
      (await clients.node.create({ metadata: { name: `n${i}` } })).metadata.name,
      {
        status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: '' }] },
      },
    );
  const all: InputObject[] = [...inputs.vrf, ...inputs.layer2];
  for (let i = 0; i < all.length; i += 32)
    await Promise.all(
      all
        .slice(i, i + 32)
        .map((o) =>
          o.kind === 'VRFRouteConfiguration' ? clients.vrf.create(o) : clients.layer2.create(o as never),
        ),
    );
  const agents = new SimulatedAgents({
    kubeconfigPath: dc.kubeconfigPath,
    behaviour: () => ({ kind: 'ok', delayMs: 50 }),
  });
  await agents.start();
  const port = 19_000 + nodes;
  const t0 = performance.now();
  const child = spawnConfigurator(
    dc.kubeconfigPath,
    [
      ...['--leader-election-lease-duration', '15s', '--leader-election-renew-deadline', '10s'],
      ...['--update-limit', '100%', '--metrics-addr', `127.0.0.1:${port}`],
    ],
    { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, NODE_OPTIONS } },
  );
  const pid = child.pid ?? 0;
  let complete = false;
  while (!complete && performance.now() - t0 < 600_000) {
    await new Promise((r) => setTimeout(r, 500));
    const revs = (await clients.revision.list()).items;
    complete = revs.some((r) =>
      r.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True'),
    );
  }
  const seconds = (performance.now() - t0) / 1000;
  const url = `http://127.0.0.1:${port}`;
  const sum = await metric(url, 'nodenet_configurator_pass_duration_seconds_sum');
  const count = await metric(url, 'nodenet_configurator_pass_duration_seconds_count');
  const peak = kib(pid, 'VmHWM:');
  console.log(
    `${nodes} nodes, revision config ${configBytes} bytes (budget ${DEFAULT_BUDGET.maxConfigBytes}): ` +
      `${complete ? 'complete' : 'NOT complete'} in ${seconds.toFixed(1)} s; peak RSS ${(peak / 2 ** 20).toFixed(0)} MiB ` +
      `(${((peak / DEPLOYMENT_LIMIT) * 100).toFixed(0)}% of the 512 Mi limit); ` +
      `${count} passes, mean ${((sum / count) * 1000).toFixed(0)} ms`,
  );
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  // A restart (failover, upgrade): the new instance lists every NodeConfig at the budget, then acts.
  const t1 = performance.now();
  const restarted = spawnConfigurator(
    dc.kubeconfigPath,
    ['--update-limit', '100%', '--metrics-addr', `127.0.0.1:${port + 1000}`],
    { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, NODE_OPTIONS } },
  );
  let passes = 0;
  while (passes < 1 && performance.now() - t1 < 300_000) {
    await new Promise((r) => setTimeout(r, 500));
    passes = await metric(`http://127.0.0.1:${port + 1000}`, 'nodenet_configurator_passes_total').catch(
      () => 0,
    );
  }
  const restartPeak = kib(restarted.pid ?? 0, 'VmHWM:');
  console.log(
    `  restart with ${nodes} NodeConfigs at the budget: ${passes >= 1 ? 'acting' : 'NOT acting'} after ` +
      `${((performance.now() - t1) / 1000).toFixed(1)} s; peak RSS ${(restartPeak / 2 ** 20).toFixed(0)} MiB`,
  );
  restarted.kill('SIGTERM');
  await new Promise((r) => restarted.once('exit', r));
  await agents.stop();
  clients.client.close();
  await dc.stop();
}
