/**
 * Runs inside the VM for bench/frr-vm.ts (issue 26): what the real `nodenet-agent` binary costs while
 * idle on a host with many VRFs, which only the VM's kernel has. devcluster runs in this process, FRR
 * (zebra + bgpd, pathspace `vm`) and the agent as child processes, as in test/vm/agent-guest.ts. The
 * agent gets a NodeConfig with the input's VRFs and default intervals (resync 60 s, observe 10 s,
 * heartbeat 10 s; only the confirm window is 0 s, so it reports provisioned at once); once it is
 * provisioned and has settled, three CPU figures are read from /proc over the input's seconds: the
 * agent's own, its reaped children's (vtysh, frr-reload.py) and FRR's daemons' (zebra, bgpd: what
 * answering the agent's reads costs them; an idle FRR uses next to nothing on its own). The goal
 * counts the first two. Also times the CPU calibration work (cpu-calibration.ts).
 * Prints one line `@@ agent idle {json}`. Usage (guest only): node <bundle> <input.json>
 */
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FrrDriver } from '@nodenet/agent';
import { API_VERSION, hashConfig } from '@nodenet/api';
import { startDevCluster } from '@nodenet/devcluster';
import { KubeClient, loadKubeConfig, makeClients } from '@nodenet/kube';
import { calibrationMs } from './cpu-calibration.js';
import { IDLE_GUEST_ENV, type IdleInput } from './agent-idle-vm-input.js';

const NODE = 'vm-idle';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sh = (script: string): string => execFileSync('sh', ['-ec', script], { encoding: 'utf8' });

const FRR_DAEMONS = ['zebra', 'bgpd'] as const;

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

/** Own CPU seconds of the agent, of its children, and of the FRR daemons together. */
function cpuSample(agentPid: number): { agent: number; children: number; frr: number } {
  const agent = cpuSeconds(agentPid);
  const frr = FRR_DAEMONS.map((d) => Number(readFileSync(`/run/frr/vm/${d}.pid`, 'utf8').trim()))
    .map((pid) => cpuSeconds(pid).own)
    .reduce((a, b) => a + b, 0);
  return { agent: agent.own, children: agent.children, frr };
}

/**
 * FRR starts with the file the agent renders for the spec, so the agent's first apply finds it
 * unchanged: under emulation frr-reload.py takes minutes for an empty → 50-VRF change, past the
 * agent's 60 s FRR step timeout (docs/operations.md, "FRR at scale"), and the apply is not measured.
 */
function startFrr(config: string): void {
  // Forwarding on, as on a node: off (the guest's default), FRR shows `no ip forwarding`, the agent
  // takes it for drift and reloads FRR at its first resync, which is not idle cost.
  sh(`hostname nn-bench
sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
ip addr add 10.255.0.1/32 dev lo
ip link add vtep0 type dummy
ip link set vtep0 mtu 9100 up
ip addr add 10.50.0.1/32 dev vtep0`);
  const [, , uid, gid] = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('frr:'))!
    .split(':');
  for (const d of ['/run/frr', '/run/frr/vm', '/tmp/frr', '/tmp/frr/vm']) {
    mkdirSync(d, { recursive: true });
    chownSync(d, Number(uid), Number(gid));
  }
  for (const d of ['/tmp/frr', '/tmp/frr/vm'])
    writeFileSync(join(d, 'vtysh.conf'), 'service integrated-vtysh-config\n');
  writeFileSync('/tmp/frr/frr.conf', config);
  for (const d of FRR_DAEMONS)
    sh(
      `/usr/lib/frr/${d} -d -N vm -P 0 -f /tmp/frr/frr.conf -i /run/frr/vm/${d}.pid --log file:/tmp/frr/${d}.log`,
    );
}

async function main(): Promise<void> {
  if (process.env[IDLE_GUEST_ENV] !== '1')
    throw new Error(`refusing to run outside the VM (${IDLE_GUEST_ENV})`);
  const input = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as IdleInput;
  const calibration = calibrationMs();
  const config = { vrf: input.vrf, layer2: [], routingTable: [] };
  const spec = { revision: hashConfig(config), ...config };
  const rendered = new FrrDriver({
    template: input.template,
    settings: input.settings,
    confdir: '/tmp/frr',
    pathspace: 'vm',
    rundir: '/run/frr/vm',
  }).render(spec);
  startFrr(rendered);
  const dc = await startDevCluster({ crdsDir: join(process.cwd(), 'crds') });
  const clients = makeClients(new KubeClient(loadKubeConfig(dc.kubeconfigPath)));
  await clients.node.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: NODE } });
  mkdirSync('/tmp/nodenet', { recursive: true });
  writeFileSync('/tmp/nodenet/frr.conf.tpl', input.template);
  // The API server shares the emulated CPU with everything else: a generous bound, as agent-guest.ts.
  writeFileSync(
    '/tmp/nodenet/health.yaml',
    'interfaces: [vtep0]\napiServer: {timeoutMs: 10000, retries: 3}\n',
  );
  const s = input.settings;
  const agent = spawn(
    process.execPath,
    [
      join(process.cwd(), 'packages/agent/dist/main.js'),
      ...['--kubeconfig', dc.kubeconfigPath, '--node-name', NODE, '--state-dir', '/tmp/nodenet/state'],
      ...['--health-config', '/tmp/nodenet/health.yaml', '--frr-template', '/tmp/nodenet/frr.conf.tpl'],
      ...['--frr-confdir', '/tmp/frr', '--frr-pathspace', 'vm', '--frr-rundir', '/run/frr/vm'],
      ...['--asn', String(s.asn), '--router-id', s.routerId, '--vrf-router-id', s.vrfRouterId],
      ...['--vtep-interface', 'vtep0', '--confirm-window', '0s', '--log-level', 'warn'],
      // Emulation is slow: zebra may take longer than the default 30 s to show 50 L3 VNIs.
      ...['--l3vni-timeout', '300s'],
      ...['--metrics-addr', '127.0.0.1:9462', '--health-addr', '127.0.0.1:9463'],
    ],
    { stdio: ['ignore', openSync('/tmp/nodenet/agent.log', 'a'), openSync('/tmp/nodenet/agent.log', 'a')] },
  );
  const t0 = performance.now();
  await clients.nodeConfig.create({
    apiVersion: API_VERSION,
    kind: 'NodeConfig',
    metadata: { name: NODE },
    spec,
  });
  for (const deadline = t0 + 1_500_000; ; await sleep(1000)) {
    const st = (await clients.nodeConfig.get(NODE)).status;
    if (st?.configStatus === 'provisioned' && st.lastAppliedRevision === spec.revision) break;
    if (st?.configStatus === 'invalid' || performance.now() > deadline || agent.exitCode !== null) {
      const log = readFileSync('/tmp/nodenet/agent.log', 'utf8').split('\n').slice(-15).join('\n');
      throw new Error(`not provisioned (${st?.configStatus}): ${st?.message}\nagent log:\n${log}`);
    }
  }
  const provisionedMs = Math.round(performance.now() - t0);
  // Settle: the first resync and observed writes after the apply are not idle cost.
  await sleep(15_000);
  const before = cpuSample(agent.pid!);
  const t1 = performance.now();
  await sleep(input.seconds * 1000);
  const after = cpuSample(agent.pid!);
  const minutes = (performance.now() - t1) / 60_000;
  const perMinute = (k: keyof typeof after): number => (after[k] - before[k]) / minutes;
  const vrfs = new Set(input.vrf.map((e) => e.vrf)).size;
  const result = {
    vrfs,
    seconds: input.seconds,
    cpuSecondsPerMinute: perMinute('agent') + perMinute('children'),
    agentPerMinute: perMinute('agent'),
    childrenPerMinute: perMinute('children'),
    frrPerMinute: perMinute('frr'),
    provisionedMs,
    calibration,
  };
  console.log(`@@ agent idle ${JSON.stringify(result)}`);
  agent.kill('SIGTERM');
  await dc.stop();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.log(`@@ FAILED ${JSON.stringify({ error: String((err as Error).stack ?? err).slice(0, 4000) })}`);
    process.exit(1);
  },
);
