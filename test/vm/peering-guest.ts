/**
 * The BGPPeering part of the L3 VNI guest (l3vni-guest.ts, inside the VM): applies the NodeConfig
 * spec of peering-spec.ts (built on the host, handed over in NODENET_PEERING_SPEC) through the
 * agent's host drivers, then puts a "workload" network namespace on the Layer-2 network (a veth
 * port of its bridge) running its own FRR, which peers with the node's FRR through the listen range
 * in the VRF. Records what `ip -json` and vtysh show once the session is up, then makes the workload
 * announce more allowed prefixes than `maxPrefixes` and records the teardown.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import type { HostDrivers } from '@nodenet/agent';
import type { NodeConfigSpec } from '@nodenet/api';

export const PEERING_SPEC_ENV = 'NODENET_PEERING_SPEC';

export interface PeeringGuestResult {
  error?: string;
  netlinkOperations?: number;
  frrChanged?: boolean;
  /** `ip -json addr show dev vr.blue` */
  vrfAddresses?: { addr_info: { local: string; prefixlen: number }[] }[];
  /** `ip -json link show dev l2.70` */
  l2Link?: { master?: string }[];
  /** `ip -json route show vrf vr.blue` once the allowed prefix arrived. */
  vrfRoutes?: { dst: string; protocol?: string }[];
  /** The workload's BGP routes: what the node announced through the peering's export. */
  workloadRoutes?: { dst: string }[];
  /** The node's `show bgp vrf all summary json` (what the agent's observer reads), session up. */
  bgpSummary?: string;
  /** The node's bgpd log lines about the maximum, after the workload passed it. */
  maxPrefixLog?: string[];
  droppedBefore?: number;
  droppedAfter?: number;
  /** How long the scenario took in the guest (for the report; not asserted). */
  durationMs?: number;
}

const run = (cmd: string, ...args: string[]): string => execFileSync(cmd, args, { encoding: 'utf8' });
const sh = (script: string): string => run('sh', '-ec', script);
const ipJson = <T>(...args: string[]): T => JSON.parse(run('ip', '-json', ...args) || '[]') as T;
const vtysh = (pathspace: string, ...commands: string[]): string =>
  run('vtysh', '--config_dir', '/tmp/frr', '-N', pathspace, ...commands.flatMap((c) => ['-c', c]));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `fn` (every 500 ms, at most `timeoutMs`) until it returns a value; throws naming `what` and
 * the last error (a daemon that is not answering yet makes vtysh fail).
 */
async function until<T>(what: string, fn: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  let last = '';
  for (;;) {
    try {
      const v = fn();
      if (v !== undefined) return v;
    } catch (err) {
      last = `; last error: ${(err as Error).message}`;
    }
    if (performance.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last}`);
    await sleep(500);
  }
}

const NODE_ASN = 65010;
/** The workload (its namespace and FRR pathspace are both `wl`), shared with peering-spec.ts. */
export const WORKLOAD = {
  ns: 'wl',
  pathspace: 'wl',
  address: '10.70.0.5',
  asn: 65100,
  gateway: '10.70.0.1',
  /** Announced at first: one prefix the import items allow, one they do not. */
  allowed: '10.96.1.0/24',
  refused: '10.200.0.0/16',
};

function workloadConfig(networks: string[]): string {
  return `frr defaults datacenter
hostname nn-workload
service integrated-vtysh-config
!
router bgp ${WORKLOAD.asn}
 bgp router-id ${WORKLOAD.address}
 no bgp ebgp-requires-policy
 no bgp network import-check
 neighbor ${WORKLOAD.gateway} remote-as ${NODE_ASN}
 !
 address-family ipv4 unicast
${networks.map((n) => `  network ${n}`).join('\n')}
 exit-address-family
exit
!
`;
}

/** The workload: a namespace on bridge l2.70 (gateway 10.70.0.1) with zebra and bgpd of its own. */
function startWorkload(networks: string[]): void {
  sh(`ip netns add ${WORKLOAD.ns}
ip link add wl0 type veth peer name eth0 netns ${WORKLOAD.ns}
ip link set wl0 master l2.70
ip link set wl0 up
ip -n ${WORKLOAD.ns} link set lo up
ip -n ${WORKLOAD.ns} addr add ${WORKLOAD.address}/24 dev eth0
ip -n ${WORKLOAD.ns} link set eth0 up
mkdir -p /run/frr/${WORKLOAD.pathspace} /tmp/frr/${WORKLOAD.pathspace}
chown frr:frr /run/frr/${WORKLOAD.pathspace}
echo 'service integrated-vtysh-config' > /tmp/frr/${WORKLOAD.pathspace}/vtysh.conf`);
  writeFileSync('/tmp/frr/wl.conf', workloadConfig(networks));
  for (const d of ['zebra', 'bgpd'])
    sh(
      `ip netns exec ${WORKLOAD.ns} /usr/lib/frr/${d} -d -N ${WORKLOAD.pathspace} -P 0 -f /tmp/frr/wl.conf ` +
        `-i /run/frr/${WORKLOAD.pathspace}/${d}.pid --log file:/tmp/frr/wl-${d}.log`,
    );
}

/** Adds `network` lines to the workload's running config. */
function announce(networks: string[]): void {
  vtysh(
    WORKLOAD.pathspace,
    'configure terminal',
    `router bgp ${WORKLOAD.asn}`,
    'address-family ipv4 unicast',
    ...networks.map((n) => `network ${n}`),
  );
}

interface Neighbor {
  bgpState: string;
  connectionsDropped: number;
}
const workloadNeighbor = (): Neighbor | undefined =>
  (
    JSON.parse(vtysh(WORKLOAD.pathspace, `show bgp neighbors ${WORKLOAD.gateway} json`)) as Record<
      string,
      Neighbor
    >
  )[WORKLOAD.gateway];
const vrfRoutes = () => ipJson<{ dst: string; protocol?: string }[]>('route', 'show', 'vrf', 'vr.blue');
const hasRoute = (dst: string) => vrfRoutes().some((r) => r.dst === dst && r.protocol === 'bgp');

/** Runs the scenario; never throws (a failure is recorded in `error`, with what was seen so far). */
export async function peeringScenario(drivers: HostDrivers): Promise<PeeringGuestResult> {
  const out: PeeringGuestResult = {};
  const started = performance.now();
  try {
    const spec = JSON.parse(process.env[PEERING_SPEC_ENV] ?? '') as NodeConfigSpec;
    out.netlinkOperations = (await drivers.netlink.apply(spec)).operations;
    out.frrChanged = (await drivers.frr.apply(spec)).changed;
    out.vrfAddresses = ipJson('addr', 'show', 'dev', 'vr.blue');
    out.l2Link = ipJson('link', 'show', 'dev', 'l2.70');

    startWorkload([WORKLOAD.allowed, WORKLOAD.refused]);
    const established = () => (workloadNeighbor()?.bgpState === 'Established' ? true : undefined);
    await until('the workload session', established, 90_000);
    const arrived = () => (hasRoute(WORKLOAD.allowed) ? true : undefined);
    await until(`${WORKLOAD.allowed} in the VRF table`, arrived, 60_000);
    out.bgpSummary = vtysh('vm', 'show bgp vrf all summary json');
    const loopbacks = (spec.vrf[0]?.loopbackAddresses ?? []).map((l) => `${l.address}`);
    const workloadRoutes = () =>
      ipJson<{ dst: string }[]>('-n', WORKLOAD.ns, 'route', 'show', 'proto', 'bgp');
    await until(
      'the loopback at the workload',
      () => (workloadRoutes().some((r) => loopbacks.includes(r.dst)) ? true : undefined),
      30_000,
    );
    out.workloadRoutes = workloadRoutes();
    // Give the refused prefix the same time to (not) arrive.
    out.vrfRoutes = vrfRoutes();

    // Past the maximum: bgpd checks the limit on the UPDATE after its count passed it (see
    // test/frr/frr-peering-host.test.ts), so the allowed prefixes go in two announcements.
    const before = workloadNeighbor()?.connectionsDropped ?? 0;
    out.droppedBefore = before;
    announce(['10.96.2.0/24', '10.96.3.0/24', '10.96.4.0/24']);
    await sleep(3000);
    announce(['10.96.5.0/24']);
    const dropped = () => {
      const n = workloadNeighbor();
      return n && n.connectionsDropped > before ? n.connectionsDropped : undefined;
    };
    out.droppedAfter = await until('the session teardown', dropped, 60_000);
    out.maxPrefixLog = readFileSync('/tmp/frr/bgpd.log', 'utf8')
      .split('\n')
      .filter((l) => /Maximum Number of Prefixes/i.test(l));
  } catch (err) {
    out.error = (err as Error).stack ?? String(err);
  }
  out.durationMs = Math.round(performance.now() - started);
  return out;
}
