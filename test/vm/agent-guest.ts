/**
 * Runs inside the real-kernel VM (see agent-vm.test.ts): devcluster in this process, a real FRR
 * (zebra + bgpd, pathspace `vm`, config under /tmp/frr), and the real `nodenet-agent` binary
 * (packages/agent/dist/main.js) as a child process. The NodeConfigs are written as the configurator
 * writes them (buildRevision → NetworkConfigRevision → nodeConfigFor), first a good one with two
 * VRFs, route leaking, a Layer-2 network in a VRF and a RoutingTable, then a bad VRF change. What
 * `ip -json`, vtysh and the API showed after each step is printed as one JSON line prefixed with
 * RESULT= for the test on the host to judge. Every wait is bounded (monotonic clock).
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { chownSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  nodeConfigSpec,
  type Inputs,
  type NetworkConfigRevision,
  type NodeConfig,
  type NodeConfigStatus,
} from '@nodenet/api';
import { startDevCluster } from '@nodenet/devcluster';
import { KubeClient, loadKubeConfig, makeClients, type Node } from '@nodenet/kube';
import { buildRevision, nodeConfigFor } from '@nodenet/configurator';
import { layer2, table, vrf } from '../../packages/api/test/fixtures.js';

/** Set by agent-vm.test.ts in the guest only. */
export const GUEST_ENV = 'NODENET_AGENT_VM_GUEST';
export const NODE = 'vm-node';
export const ASN = 65010;
export const VTEP = '10.50.0.1';
/** The hand-made VXLAN device (not nodenet's) that holds VNI 5099 on this host. */
export const FOREIGN_VXLAN = { name: 'legacy99', vni: 5099 };

// This script reconfigures the machine it runs on (hostname, addresses, devices): only ever in the VM.
if (process.env[GUEST_ENV] !== '1') {
  console.error(
    `agent-guest: refusing to run outside the VM (${GUEST_ENV} is not set); see agent-vm.test.ts`,
  );
  process.exit(2);
}

const repo = process.cwd();
const monotonic = (): number => performance.now();
const started = monotonic();
/** Milliseconds since the guest script started; `bootedAt`: the guest kernel's uptime then. */
const timings: Record<string, number> = {
  bootedAt: Math.round(Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]) * 1000),
};
const mark = (what: string): void => {
  timings[what] = Math.round(monotonic() - started);
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// Synchronous only before the API server runs in this process; afterwards a blocked event loop
// would stall the agent's API calls.
const run = (cmd: string, ...args: string[]): string => execFileSync(cmd, args, { encoding: 'utf8' });
const sh = (script: string): string => run('sh', '-ec', script);
const runAsync = async (cmd: string, ...args: string[]): Promise<string> =>
  (await promisify(execFile)(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20 })).stdout;
const ipJson = async (...args: string[]): Promise<unknown> =>
  JSON.parse((await runAsync('ip', '-json', '-details', ...args)) || '[]');
const vtysh = (cmd: string): Promise<string> =>
  runAsync('vtysh', '--config_dir', '/tmp/frr', '-N', 'vm', '-c', cmd);
const vtyshJson = async (cmd: string): Promise<unknown> => JSON.parse((await vtysh(cmd)) || '{}');

/** Good inputs: two VRFs with L3 VNIs and leaking to/from the default VRF, an L2 network in blue, a table. */
function goodInputs(): Inputs {
  const permit = (cidr: string, seq: number) => ({ cidr, seq, le: 32, action: 'permit' as const });
  return {
    vrf: [
      // blue leaks 10.60/16 into the default VRF (10.61/16 stays inside) and takes 10.70/16 from it.
      vrf('blue', {
        vrf: 'blue',
        vni: 5000,
        routeTarget: `${ASN}:1000`,
        import: [permit('10.60.0.0/16', 1)],
        export: [permit('10.70.0.0/16', 1)],
        aggregate: ['10.60.0.0/16'],
        seq: 10,
      }),
      vrf('red', {
        vrf: 'red',
        vni: 5001,
        routeTarget: `${ASN}:1001`,
        import: [permit('10.62.0.0/16', 1)],
        export: [permit('10.70.0.0/16', 1)],
        seq: 10,
      }),
    ],
    layer2: [
      layer2('blue-net', {
        id: 60,
        vni: 20060,
        vrf: 'blue',
        anycastMac: '02:00:00:00:60:01',
        anycastGateways: ['10.60.1.1/24', '10.61.1.1/24'],
      }),
    ],
    routingTable: [table('taas-77', 77)],
  };
}

/** The bad change: red's L3 VNI moves to 5099, valid for the API, but held on this host by legacy99. */
function badInputs(): Inputs {
  const inputs = goodInputs();
  inputs.vrf[1] = vrf('red', { ...inputs.vrf[1]!.spec, vni: FOREIGN_VXLAN.vni });
  return inputs;
}

const TEMPLATE = `frr defaults datacenter
hostname nn-vm
service integrated-vtysh-config
!
{{ vrfs }}
{{ prefix_lists }}
{{ route_maps }}
router bgp {{ asn }}
 bgp router-id {{ router_id }}
 no bgp network import-check
 {{ bgp_default }}
 !
 address-family ipv4 unicast
  network 10.70.1.0/24
  {{ bgp_default_ipv4 }}
 exit-address-family
 !
 address-family ipv6 unicast
  {{ bgp_default_ipv6 }}
 exit-address-family
 !
 address-family l2vpn evpn
  advertise-all-vni
 exit-address-family
exit
!
{{ bgp_vrfs }}
`;

// ------------------------------------------------------------------ host: underlay, foreign device, FRR

// FRR takes the hostname from the kernel; the guest's "(none)" is a line frr-reload.py refuses.
run('hostname', 'nn-vm');
sh(`ip addr add 10.255.0.1/32 dev lo
ip link add vtep0 type dummy
ip link set vtep0 mtu 9100 up
ip addr add ${VTEP}/32 dev vtep0
ip link add ${FOREIGN_VXLAN.name} type vxlan id ${FOREIGN_VXLAN.vni} local ${VTEP} dstport 4789 nolearning`);
const frrUser = readFileSync('/etc/passwd', 'utf8')
  .split('\n')
  .find((l) => l.startsWith('frr:'))!
  .split(':');
for (const d of ['/run/frr', '/run/frr/vm', '/tmp/frr', '/tmp/frr/vm']) {
  mkdirSync(d, { recursive: true });
  chownSync(d, Number(frrUser[2]), Number(frrUser[3]));
}
for (const d of ['/tmp/frr', '/tmp/frr/vm'])
  writeFileSync(join(d, 'vtysh.conf'), 'service integrated-vtysh-config\n');
for (const d of ['zebra', 'bgpd']) {
  run(
    `/usr/lib/frr/${d}`,
    ...['-d', '-N', 'vm', '-P', '0', '-f', '/dev/null', '-i', `/run/frr/vm/${d}.pid`],
    ...['--log', `file:/tmp/frr/${d}.log`],
  );
}
mark('frrStarted');

// ------------------------------------------------------------------ API server and the agent

const dc = await startDevCluster({ crdsDir: join(repo, 'crds') });
const clients = makeClients(new KubeClient(loadKubeConfig(dc.kubeconfigPath)));
const node = (await clients.node.create({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: NODE, labels: { 'kubernetes.io/hostname': NODE } },
} as Node)) as Node;
mark('apiServerUp');

mkdirSync('/tmp/nodenet', { recursive: true });
writeFileSync('/tmp/nodenet/frr.conf.tpl', TEMPLATE);
writeFileSync('/tmp/nodenet/health.yaml', 'interfaces: [vtep0]\napiServer: {timeoutMs: 5000, retries: 2}\n');
const agentLog = openSync('/tmp/nodenet/agent.log', 'a');
const agent = spawn(
  process.execPath,
  [
    join(repo, 'packages/agent/dist/main.js'),
    ...['--kubeconfig', dc.kubeconfigPath, '--node-name', NODE, '--state-dir', '/tmp/nodenet/state'],
    ...['--health-config', '/tmp/nodenet/health.yaml', '--frr-template', '/tmp/nodenet/frr.conf.tpl'],
    ...['--frr-confdir', '/tmp/frr', '--frr-pathspace', 'vm', '--frr-rundir', '/run/frr/vm'],
    ...['--asn', String(ASN), '--router-id', '10.255.0.1', '--vtep-interface', 'vtep0'],
    ...['--resync-period', '10s', '--confirm-window', '0s', '--heartbeat-interval', '5s'],
    ...['--metrics-addr', '127.0.0.1:9462', '--health-addr', '127.0.0.1:9463', '--log-level', 'info'],
  ],
  { stdio: ['ignore', agentLog, agentLog] },
);
let agentExit: string | undefined;
agent.once('exit', (code, signal) => (agentExit = `exited with ${code ?? signal}`));

const out: Record<string, unknown> = { timings };
const finish = async (exitCode: number): Promise<never> => {
  if (agent.exitCode === null && agent.signalCode === null) {
    const gone = new Promise((r) => agent.once('exit', r));
    agent.kill('SIGTERM');
    await Promise.race([gone, sleep(20_000)]);
    mark('agentStopped');
  }
  out.agentLog = readFileSync('/tmp/nodenet/agent.log', 'utf8').split('\n').slice(-80);
  console.log(`RESULT=${JSON.stringify(out)}`);
  await dc.stop();
  process.exit(exitCode);
};

/** Polls `fn` until it returns a value; on timeout records the failure and ends the run. */
async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = monotonic() + timeoutMs;
  while (monotonic() < deadline) {
    if (agentExit) break;
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    await sleep(500);
  }
  out.failure = `timed out waiting for ${what}${agentExit ? ` (agent ${agentExit})` : ''}`;
  out.lastStatus = (await clients.nodeConfig.get(NODE).catch(() => undefined))?.status;
  return finish(1);
}

// ------------------------------------------------------------------ the configurator's writes

/** The part of status.observed (helper branch evpn-observed) this scenario waits for. */
interface ObservedLike {
  vnis?: { vni: number; type: string }[];
  bgpSessions?: { vrf: string; peer: string; state: string }[];
}

const revisions: NetworkConfigRevision[] = [];
let assignments = 0;
/** Builds the revision from `inputs` as the configurator does and hands it to the node. */
async function assign(inputs: Inputs): Promise<{ revision: NetworkConfigRevision; nodeConfig: NodeConfig }> {
  const built = buildRevision(inputs, revisions, Date.now());
  if (built.decision.action !== 'create')
    throw new Error(`configurator would not create a revision: ${JSON.stringify(built.decision)}`);
  const revision = await clients.revision.create(built.decision.revision);
  revisions.push(revision);
  const spec = nodeConfigSpec(revision.spec, node.metadata.labels ?? {});
  const desired = nodeConfigFor(revision, node, {
    spec,
    move: 'forward',
    now: Date.now() + assignments++, // a later assigned-at each time
    identity: 'agent-vm-test',
  });
  const existing = await clients.nodeConfig.get(NODE).catch(() => undefined);
  const nodeConfig = existing
    ? await clients.nodeConfig.update({
        ...desired,
        metadata: { ...desired.metadata, resourceVersion: existing.metadata.resourceVersion },
      })
    : await clients.nodeConfig.create(desired);
  return { revision, nodeConfig };
}

const vrfTables = async (): Promise<Record<string, number>> => {
  const links = (await ipJson('link', 'show', 'type', 'vrf')) as {
    ifname: string;
    linkinfo?: { info_data?: { table?: number } };
  }[];
  return Object.fromEntries(links.map((l) => [l.ifname, l.linkinfo?.info_data?.table ?? -1]));
};

/** What the judges see: ip -json and vtysh. */
async function snapshot(): Promise<Record<string, unknown>> {
  const tables = await vrfTables();
  const routes: Record<string, unknown> = { main: await ipJson('route', 'show', 'table', 'main') };
  for (const [dev, t] of Object.entries(tables))
    routes[dev] = await ipJson('route', 'show', 'table', String(t));
  return {
    links: await ipJson('link', 'show'),
    addrs: await ipJson('addr', 'show'),
    vrfTables: tables,
    routes,
    evpnVni: await vtyshJson('show evpn vni json'),
    vrfVni: await vtyshJson('show vrf vni json'),
    bgpSummary: await vtyshJson('show bgp vrf all summary json'),
    bgpDefault: await vtyshJson('show bgp ipv4 unicast json'),
    runningConfig: await vtysh('show running-config'),
  };
}

const events = async () =>
  (await clients.event.list({ namespace: 'default' })).items.map((e) => {
    const ev = e as unknown as {
      reason?: string;
      type?: string;
      message?: string;
      involvedObject?: { kind?: string; name?: string };
    };
    return { reason: ev.reason, type: ev.type, message: ev.message, involvedObject: ev.involvedObject };
  });

// ------------------------------------------------------------------ 1. the good config

const good = await assign(goodInputs());
out.good = { hash: good.revision.spec.hash, name: good.revision.metadata.name };
const provisioned = await until(
  'status provisioned',
  async () => {
    const s = (await clients.nodeConfig.get(NODE)).status;
    return s?.configStatus === 'provisioned' && s.lastAppliedRevision === good.revision.spec.hash
      ? s
      : undefined;
  },
  240_000,
);
out.provisioned = provisioned;
mark('provisioned');

// A routing table is filled by someone else (e.g. a workload's routes): the default VRF imports it.
await until('taas.77', async () => ((await vrfTables())['taas.77'] === 77 ? true : undefined), 10_000);
await runAsync('ip', 'route', 'add', 'blackhole', '10.77.0.0/24', 'table', '77');

// Converged: blue's 10.60.1.0/24 leaked into the main table, the default VRF's 10.70.1.0/24 into
// red's table, the routing table's 10.77.0.0/24 imported into the default VRF's BGP table.
const converged = async (): Promise<true | undefined> => {
  const tables = await vrfTables();
  const has = async (t: number | string | undefined, dst: string) =>
    t !== undefined &&
    ((await ipJson('route', 'show', 'table', String(t))) as { dst: string }[]).some((r) => r.dst === dst);
  const bgp = await vtysh('show bgp ipv4 unicast json');
  return (await has('main', '10.60.1.0/24')) &&
    (await has(tables['vr.red'], '10.70.1.0/24')) &&
    bgp.includes('"10.77.0.0/24"')
    ? true
    : undefined;
};
// Not fatal here: the test names what did not converge from the snapshot.
out.converged = false;
for (const deadline = monotonic() + 150_000; monotonic() < deadline; await sleep(2000)) {
  if (await converged().catch(() => undefined)) {
    out.converged = true;
    break;
  }
}
mark('converged');
out.afterGood = await snapshot();
// status.observed (FRR's run-time state) exists where this checkout's CRD declares it; the agent
// writes it on change, at most every --observe-interval (default 10 s).
const crd = parseYaml(readFileSync(join(repo, 'crds/nodeconfigs.yaml'), 'utf8')) as {
  spec: { versions: { schema: { openAPIV3Schema: { properties: { status: { properties: object } } } } }[] };
};
out.observedSupported =
  'observed' in crd.spec.versions[0]!.schema.openAPIV3Schema.properties.status.properties;
if (out.observedSupported) {
  await until(
    'status.observed with both L3 VNIs and the leaking sessions',
    async () => {
      const status = (await clients.nodeConfig.get(NODE)).status as { observed?: ObservedLike } | undefined;
      const observed = status?.observed;
      const l3 = (vni: number) => observed?.vnis?.some((v) => v.vni === vni && v.type === 'L3');
      const session = observed?.bgpSessions?.some(
        (b) => b.peer === 'vd.blue' && b.vrf === 'default' && b.state === 'Established',
      );
      return l3(5000) && l3(5001) && session ? true : undefined;
    },
    90_000,
  );
  mark('observed');
}
out.statusAfterGood = (await clients.nodeConfig.get(NODE)).status;

// ------------------------------------------------------------------ 2. the bad VRF change

const bad = await assign(badInputs());
out.bad = { hash: bad.revision.spec.hash, name: bad.revision.metadata.name };
const rejected: NodeConfigStatus = await until(
  'status invalid',
  async () => {
    const s = (await clients.nodeConfig.get(NODE)).status;
    return s?.configStatus === 'invalid' ? s : undefined;
  },
  180_000,
);
out.rejected = rejected;
mark('rejected');
out.afterBad = await snapshot();
out.events = await events();
mark('judged');
await finish(0);
