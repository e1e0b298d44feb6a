/**
 * Runs inside the real-kernel VM (see l3vni-vm.test.ts) with a real FRR (zebra + bgpd, pathspace
 * `vm`, started by the test's shell script): applies a VRF through the agent's host drivers
 * (`hostDrivers`: netlink apply, FRR reload, L3 VNI bring-up) and records, with `ip -json` and
 * `vtysh`, the state after the netlink step, at the moment the agent brings the L3 VNI devices up,
 * and at the end; then a VNI that FRR is never told about, with a short bound, to see the timeout;
 * then the BGPPeering scenario of peering-guest.ts with the same drivers and FRR.
 * Prints one JSON line prefixed with RESULT=.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createNetlinkDriver, FrrDriver, hostDrivers, type NetlinkDriver } from '@nodenet/agent';
import type { NodeConfigSpec } from '@nodenet/api';
import { peeringScenario } from './peering-guest.js';

const template = `frr defaults datacenter
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

const vrf = (vni: number) => ({
  name: 'cfg-blue',
  vrf: 'blue',
  vni,
  routeTarget: '65010:5000',
  import: [],
  export: [],
  aggregate: [],
  seq: 10,
  mtu: 1500,
});
const spec = (vni: number) =>
  ({ revision: 'r', vrf: [vrf(vni)], layer2: [], routingTable: [] }) as unknown as NodeConfigSpec;

const ip = (...args: string[]): { ifname: string; flags: string[]; ifalias?: string }[] =>
  JSON.parse(execFileSync('ip', ['-json', 'link', 'show', ...args], { encoding: 'utf8' }) || '[]');
const state = () =>
  Object.fromEntries(
    ip()
      .filter((l) => /^(vr|br|vx|vd|dv)\.blue$/.test(l.ifname))
      .map((l) => [l.ifname, { up: l.flags.includes('UP'), alias: l.ifalias }]),
  );
const vtysh = (cmd: string): unknown => {
  const out = execFileSync('vtysh', ['--config_dir', '/tmp/frr', '-N', 'vm', '-c', cmd], {
    encoding: 'utf8',
  });
  return JSON.parse(out.trim() || '{}') as unknown;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

mkdirSync('/tmp/nodenet', { recursive: true });
const out: Record<string, unknown> = {};
const netlink = createNetlinkDriver({
  settings: { vtepAddress: '10.255.0.1', vrfTableRange: { min: 100, max: 199 } },
  tableStatePath: '/tmp/nodenet/vrf-tables.json',
});
const frr = new FrrDriver({
  template,
  settings: { asn: 65010, routerId: '10.255.0.1', vrfRouterId: '10.255.1.1' },
  confdir: '/tmp/frr',
  pathspace: 'vm',
  rundir: '/run/frr/vm',
  timeoutMs: 120_000,
});
for (let i = 0; i < 120 && !(await frr.status()).answering; i++) await sleep(500);

/** The netlink driver, recording what FRR and the kernel show when the agent brings devices up. */
const bringUps: unknown[] = [];
// Delegation, not a spread: the driver is a class instance, its methods live on the prototype.
const traced: NetlinkDriver = {
  plan: (s) => netlink.plan(s),
  apply: (s) => netlink.apply(s),
  removeAdded: (s) => netlink.removeAdded(s),
  applyModel: (m) => netlink.applyModel(m),
  read: () => netlink.read(),
  close: () => netlink.close(),
  bringUp: async (devices) => {
    bringUps.push({
      devices,
      links: state(),
      vrfVni: vtysh('show vrf vni json'),
      evpnVni: vtysh('show evpn vni json'),
    });
    await netlink.bringUp(devices);
  },
};
// Emulation is slow: a generous bound for the real order, a short one for the timeout case.
const drivers = hostDrivers(traced, frr, { timeoutMs: 120_000, pollMs: 500 });

const first = await drivers.netlink.apply(spec(5000));
out.netlink = { operations: first.operations, links: state(), evpnVni: vtysh('show evpn vni json') };
await drivers.frr.apply(spec(5000));
out.bringUps = bringUps.splice(0);
out.after = { links: state(), vrfVni: vtysh('show vrf vni json'), evpnVni: vtysh('show evpn vni json') };
out.again = { operations: (await drivers.netlink.apply(spec(5000))).operations };
await drivers.frr.apply(spec(5000));
out.againBringUps = bringUps.splice(0);

// The VXLAN gets VNI 5001 but FRR is reloaded with a config that still says 5000 (as if FRR had
// refused the change): the agent must not bring vx.blue up, and must say which VRF and VNI.
const short = hostDrivers(traced, frr, { timeoutMs: 3000, pollMs: 500 });
const changed = await short.netlink.apply(spec(5001));
out.changed = { operations: changed.operations };
try {
  await short.frr.apply(spec(5000));
  out.timeout = { error: null };
} catch (err) {
  out.timeout = { error: (err as Error).message, name: (err as Error).name };
}
out.afterTimeout = { links: state(), bringUps: bringUps.splice(0) };
out.peering = await peeringScenario(drivers);
netlink.close();
console.log(`RESULT=${JSON.stringify(out)}`);
