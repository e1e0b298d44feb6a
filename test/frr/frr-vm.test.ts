/**
 * The parts of the rendered FRR config that need VRF devices, which only a full kernel has: the
 * per-VRF BGP instance and its leaking session with the default VRF over the `vd.<vrf>`/`dv.<vrf>`
 * veth pair (iBGP unnumbered), leaking through the import and export route-maps, the aggregate, and
 * the EVPN L3VNI with type-5 routes filtered by the export route-map and tagged with the route target.
 *
 * One real FRR (zebra + bgpd) runs inside a throw-away VM (test/vm). The config goes in the way the
 * agent puts it in: `FrrDriver.applySpec` (render, `vtysh -C -f` check, atomic write,
 * `frr-reload.py --reload`) run by node inside the guest from the built package, and the session
 * states come from `FrrDriver.status`. Everything else is read from FRR's own `show … json`.
 * Kept to one boot: emulation is slow.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import type { PrefixItem } from '@nodenet/api';
import type { FrrApplyResult, FrrStatus } from '@nodenet/agent';
import { describePrivileged } from '../support/privileged.js';
import { runInVm, vmPrerequisites, testTemplate } from '@nodenet/testkit';

const ASN = 65010;
const template = testTemplate({ hostname: 'nn-vm', ipv4Networks: ['10.70.1.0/24', '10.71.1.0/24'] });

const p = (cidr: string, seq: number, le?: number): PrefixItem => ({
  cidr,
  seq,
  action: 'permit',
  ...(le !== undefined ? { le } : {}),
});

// Import (VRF → default): 10.60/16 and fd00:60::/48. Export (default → VRF, and VRF → EVPN): the
// same plus 10.70/16, so the default VRF's 10.70.1.0/24 reaches the VRF and its 10.71.1.0/24 does not.
const spec = {
  vrf: [
    {
      name: 'hv',
      vrf: 'hv',
      vni: 100,
      routeTarget: `${ASN}:100`,
      import: [p('10.60.0.0/16', 1, 32), p('fd00:60::/48', 2, 128)],
      export: [p('10.60.0.0/16', 1, 32), p('10.70.0.0/16', 2, 32), p('fd00:60::/48', 3, 128)],
      aggregate: ['10.60.0.0/16', 'fd00:60::/48'],
      seq: 10,
      mtu: 9000,
    },
  ],
  routingTable: [],
};
// Distinct router ids: the leaking session is iBGP, and FRR refuses an iBGP peer with its own id.
const settings = { asn: ASN, routerId: '10.255.0.1', vrfRouterId: '10.255.1.1' };

const repo = resolve(import.meta.dirname, '../..');
const sessions = [{ peer: 'vd.hv' }, { peer: 'dv.hv', vrf: 'vr.hv' }];

// Runs in the guest under node: the agent's FRR driver from the built package, as the agent uses it.
const applyScript = `import { FrrDriver } from ${JSON.stringify(`${repo}/packages/agent/dist/frr/index.js`)};
const input = ${JSON.stringify({ template, settings, spec, sessions })};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const out = (key, value) => console.log('@@@ ' + key + '\\n' + JSON.stringify(value));
const driver = new FrrDriver({
  template: input.template,
  settings: input.settings,
  confdir: '/tmp/frr',
  pathspace: 'vm',
  rundir: '/run/frr/vm',
  timeoutMs: 120000,
});
for (let i = 0; i < 120 && !(await driver.status()).answering; i++) await sleep(500);
try {
  out('apply', await driver.applySpec(input.spec));
  out('reapply', await driver.applySpec(input.spec));
} catch (e) {
  out('apply error', { name: e.name, message: e.message });
  process.exit(1);
}
let st;
for (let i = 0; i < 90; i++) {
  st = await driver.status({ sessions: input.sessions });
  if (st.healthy) break;
  await sleep(1000);
}
out('status', st);
`;

// Devices as the netlink driver builds them (names from @nodenet/api deviceNames), plus du.hv, a
// network inside the VRF: 10.60.1.0/24 is allowed by both route-maps, 10.61.1.0/24 by neither.
const script = `set -e
# FRR takes its hostname from the kernel; the guest never sets one, and the kernel's "(none)" in
# FRR's running config is a line frr-reload.py's 'vtysh -m' refuses (exit 13).
hostname nn-vm
ip link set lo up
ip addr add 10.255.0.1/32 dev lo
ip link add vr.hv type vrf table 100
ip link set vr.hv up
ip link add vd.hv type veth peer name dv.hv
ip link set dv.hv master vr.hv
ip link set vd.hv up
ip link set dv.hv up
ip link add du.hv type dummy
ip link set du.hv master vr.hv
ip addr add 10.60.1.1/24 dev du.hv
ip addr add 10.61.1.1/24 dev du.hv
ip -6 addr add fd00:60:0:1::1/64 dev du.hv nodad
ip link set du.hv up
ip link add br.hv type bridge
ip link set br.hv master vr.hv
ip link set br.hv up
ip link add vx.hv type vxlan id 100 local 10.255.0.1 dstport 4789 nolearning
ip link set vx.hv master br.hv
ip link set vx.hv up
mkdir -p /run/frr/vm /tmp/frr/vm
chown frr:frr /run/frr /run/frr/vm /tmp/frr
echo 'service integrated-vtysh-config' > /tmp/frr/vm/vtysh.conf
# Started empty, as on a node before the agent's first apply.
for d in zebra bgpd; do /usr/lib/frr/$d -d -N vm -P 0 -f /dev/null -i /run/frr/vm/$d.pid --log file:/tmp/frr/$d.log; done
cat > /tmp/apply.mjs <<'NODENET_EOF'
${applyScript}NODENET_EOF
node /tmp/apply.mjs
v() { vtysh --config_dir /tmp/frr -N vm "$@"; }
# Converged: the VRF's network leaked into the default VRF and advertised as a type-5 route.
conv() { v -c 'show bgp ipv4 unicast json' -c 'show bgp l2vpn evpn route type prefix' > /tmp/conv; grep -q '"10.60.1.0/24"' /tmp/conv && grep -q '\\[10.60.1.0\\]' /tmp/conv; }
i=0; until conv; do i=$((i+1)); [ $i -lt 45 ] || break; sleep 2; done
sleep 2
for c in 'show bgp vrf all summary json' 'show bgp vrf vr.hv ipv4 unicast json' 'show bgp vrf vr.hv ipv6 unicast json' 'show bgp ipv4 unicast json' 'show bgp ipv6 unicast json' 'show bgp l2vpn evpn route type prefix json' 'show vrf vni json' 'show evpn vni json'; do
  echo "@@@ $c"; v -c "$c"
done
echo '@@@ end'
`;

/** Output of each section (`@@@ key` lines), keyed by the key. */
function sections(output: string): Record<string, string> {
  const out: Record<string, string> = {};
  const parts = output.split(/^@@@ /m).slice(1);
  for (const part of parts) {
    const nl = part.indexOf('\n');
    out[part.slice(0, nl)] = part.slice(nl + 1);
  }
  return out;
}

describePrivileged('FRR rendered config on a real kernel with VRFs (VM)', vmPrerequisites(), () => {
  beforeAll(() => {
    // The guest runs the driver from dist/.
    execFileSync('npx', ['tsc', '-b', 'packages/agent'], { cwd: repo, stdio: 'pipe' });
  }, 120_000);

  it('applies with FrrDriver, brings up the VRF session, leaks per the prefix-lists, aggregates and advertises EVPN type-5', async () => {
    const r = await runInVm({ script, cwd: repo, timeoutMs: 400_000 });
    const log = r.output + r.console;
    expect(r.exitCode, log).toBe(0);
    const s = sections(r.output);
    expect(s['end'], r.output).toBeDefined();
    // What the in-guest node script printed: one line of JSON per key.
    const fromNode = <T>(key: string): T => JSON.parse(s[key]!.split('\n')[0]!) as T;

    // The real apply path: checked, written, reloaded with frr-reload.py; a second apply is a no-op.
    expect(fromNode<FrrApplyResult>('apply').changed, r.output).toBe(true);
    expect(fromNode<FrrApplyResult>('reapply').changed).toBe(false);
    // Both ends of the leaking session are up, as the agent's health check reads them.
    const status = fromNode<FrrStatus>('status');
    expect(status, r.output).toMatchObject({
      answering: true,
      healthy: true,
      sessions: [
        { peer: 'vd.hv', vrf: 'default', state: 'Established' },
        { peer: 'dv.hv', vrf: 'vr.hv', state: 'Established' },
      ],
    });
    const summary = JSON.parse(s['show bgp vrf all summary json']!) as Record<
      string,
      { ipv6Unicast?: { peers?: Record<string, { state: string; pfxRcd?: number }> } }
    >;
    // IPv6 runs over the same unnumbered session.
    expect(summary['default']?.ipv6Unicast?.peers?.['vd.hv']?.state).toBe('Established');

    const keys = (cmd: string): string[] =>
      Object.keys((JSON.parse(s[cmd]!) as { routes?: object }).routes ?? {});
    // Inside the VRF: connected networks, both aggregates, and from the default VRF only what the
    // export map permits.
    const vrf4 = keys('show bgp vrf vr.hv ipv4 unicast json');
    expect(vrf4, r.output).toEqual(
      expect.arrayContaining(['10.60.0.0/16', '10.60.1.0/24', '10.61.1.0/24', '10.70.1.0/24']),
    );
    expect(vrf4).not.toContain('10.71.1.0/24');
    expect(keys('show bgp vrf vr.hv ipv6 unicast json')).toEqual(
      expect.arrayContaining(['fd00:60::/48', 'fd00:60:0:1::/64']),
    );
    // Leaked into the default VRF: what the import map permits, aggregates included; not 10.61.1.0/24.
    const default4 = keys('show bgp ipv4 unicast json');
    expect(default4, r.output).toEqual(expect.arrayContaining(['10.60.0.0/16', '10.60.1.0/24']));
    expect(default4).not.toContain('10.61.1.0/24');
    expect(keys('show bgp ipv6 unicast json')).toEqual(
      expect.arrayContaining(['fd00:60::/48', 'fd00:60:0:1::/64']),
    );

    // EVPN: the L3VNI is up and type-5 routes carry only what the export map permits, with the RT.
    const vni = JSON.parse(s['show vrf vni json']!) as {
      vrfs?: { vrf: string; vni: number; state: string }[];
    };
    expect(vni.vrfs, s['show vrf vni json']).toEqual([
      expect.objectContaining({ vrf: 'vr.hv', vni: 100, state: 'Up' }),
    ]);
    // zebra took it as the VRF's L3 VNI, not as an L2 one (the driver's post-reload check requires it).
    const evpnVnis = JSON.parse(s['show evpn vni json']!) as Record<
      string,
      { type?: string; tenantVrf?: string }
    >;
    expect(evpnVnis['100'], s['show evpn vni json']).toMatchObject({ type: 'L3', tenantVrf: 'vr.hv' });
    const evpn = s['show bgp l2vpn evpn route type prefix json']!;
    expect(evpn, r.output).toContain('[5]:[0]:[24]:[10.60.1.0]');
    expect(evpn).toContain('[5]:[0]:[16]:[10.60.0.0]');
    expect(evpn).toContain('[5]:[0]:[48]:[fd00:60::]');
    expect(evpn).not.toContain('[10.61.1.0]');
    expect(evpn).toContain(`RT:${ASN}:100`);
  }, 450_000);
});
