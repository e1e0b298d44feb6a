/**
 * The parts of the rendered FRR config that need VRF devices, which only a full kernel has: the
 * per-VRF BGP instance, leaking between the VRF and the default VRF over the `vd.<vrf>`/`dv.<vrf>`
 * veth pair through the import route-map, the aggregate, and the EVPN L3VNI with type-5 routes
 * filtered by the export route-map and tagged with the route target. One real FRR (zebra + bgpd)
 * runs inside a throw-away VM (test/vm); the config is rendered here on the host by the renderer
 * and loaded whole with `vtysh -f`.
 * Kept to one boot: emulation is slow.
 */
import { expect, it } from 'vitest';
import type { PrefixItem } from '@nodenet/api';
import { renderFrrConfig } from '@nodenet/agent';
import { describePrivileged } from '../support/privileged.js';
import { runInVm, vmPrerequisites } from '../vm/vm.js';

const ASN = 65010;
const template = `frr defaults datacenter
hostname nn-vm
service integrated-vtysh-config
!
{{ vrfs }}
{{ prefix_lists }}
{{ route_maps }}
router bgp {{ asn }}
 bgp router-id {{ router_id }}
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

const p = (cidr: string, seq: number, le?: number): PrefixItem => ({
  cidr,
  seq,
  action: 'permit',
  ...(le !== undefined ? { le } : {}),
});

const config = renderFrrConfig(
  {
    vrf: [
      {
        name: 'hv',
        vrf: 'hv',
        vni: 100,
        routeTarget: `${ASN}:100`,
        import: [p('10.60.0.0/16', 1, 32), p('fd00:60::/48', 2, 128)],
        export: [p('10.60.0.0/16', 1, 32), p('fd00:60::/48', 2, 128)],
        aggregate: ['10.60.0.0/16', 'fd00:60::/48'],
        seq: 10,
        mtu: 9000,
      },
    ],
    routingTable: [],
  },
  { asn: ASN, routerId: '10.255.0.1' },
  template,
);

// Devices as the netlink driver builds them (names from @nodenet/api deviceNames), plus du.hv, a
// network inside the VRF: 10.60.1.0/24 is allowed by both route-maps, 10.61.1.0/24 by neither.
const script = `set -e
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
echo 'service integrated-vtysh-config' > /tmp/frr/vtysh.conf
cp /tmp/frr/vtysh.conf /tmp/frr/vm/vtysh.conf
cat > /tmp/frr/frr.conf <<'NODENET_EOF'
${config}NODENET_EOF
for d in zebra bgpd; do /usr/lib/frr/$d -d -N vm -P 0 -f /dev/null -i /run/frr/vm/$d.pid --log file:/tmp/frr/$d.log; done
i=0; until vtysh --config_dir /tmp/frr -N vm -c 'show running-config' >/dev/null 2>&1; do i=$((i+1)); [ $i -lt 60 ] || exit 3; sleep 1; done
# Loaded whole, as at boot (vtysh -b); the reload path itself is covered by the host suite.
vtysh --config_dir /tmp/frr -N vm -f /tmp/frr/frr.conf
v() { vtysh --config_dir /tmp/frr -N vm -c "$1"; }
i=0; until v 'show bgp ipv4 unicast json' | grep -q '10.60.0.0/16' && v 'show bgp l2vpn evpn route type prefix' | grep -q '10.60.1.0'; do i=$((i+1)); [ $i -lt 90 ] || break; sleep 1; done
sleep 3
for c in 'show bgp vrf all summary json' 'show bgp vrf vr.hv ipv4 unicast json' 'show bgp vrf vr.hv ipv6 unicast json' 'show bgp ipv4 unicast json' 'show bgp ipv6 unicast json' 'show bgp l2vpn evpn route type prefix json' 'show vrf vni json'; do
  echo "@@@ $c"; v "$c"
done
echo '@@@ end'
`;

/** Output of each `show …` command, keyed by the command. */
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
  it('brings up the VRF instance, leaks through the import map, aggregates and advertises EVPN type-5', async () => {
    const r = await runInVm({ script, timeoutMs: 400_000 });
    expect(r.exitCode, r.output + r.console).toBe(0);
    const s = sections(r.output);
    expect(s['end'], r.output).toBeDefined();

    const summary = JSON.parse(s['show bgp vrf all summary json']!) as Record<
      string,
      { ipv4Unicast?: { peers?: Record<string, { state: string }> } }
    >;
    expect(summary['default']?.ipv4Unicast?.peers?.['vd.hv']?.state).toBe('Established');
    expect(summary['vr.hv']?.ipv4Unicast?.peers?.['dv.hv']?.state).toBe('Established');

    const keys = (cmd: string): string[] =>
      Object.keys((JSON.parse(s[cmd]!) as { routes?: object }).routes ?? {});
    // Inside the VRF: connected networks and both aggregates.
    expect(keys('show bgp vrf vr.hv ipv4 unicast json')).toEqual(
      expect.arrayContaining(['10.60.0.0/16', '10.60.1.0/24', '10.61.1.0/24']),
    );
    expect(keys('show bgp vrf vr.hv ipv6 unicast json')).toEqual(
      expect.arrayContaining(['fd00:60::/48', 'fd00:60:0:1::/64']),
    );
    // Leaked into the default VRF: what the import map permits, aggregate included; not 10.61.1.0/24.
    const default4 = keys('show bgp ipv4 unicast json');
    expect(default4).toEqual(expect.arrayContaining(['10.60.0.0/16', '10.60.1.0/24']));
    expect(default4).not.toContain('10.61.1.0/24');
    expect(keys('show bgp ipv6 unicast json')).toEqual(expect.arrayContaining(['fd00:60::/48']));

    // EVPN: the L3VNI is up and type-5 routes carry only what the export map permits, with the RT.
    expect(s['show vrf vni json']).toMatch(/"vrf":\s*"vr\.hv"[\s\S]*"vni":\s*100[\s\S]*"state":\s*"Up"/);
    const evpn = s['show bgp l2vpn evpn route type prefix json']!;
    expect(evpn).toContain('[5]:[0]:[24]:[10.60.1.0]');
    expect(evpn).toContain('[5]:[0]:[16]:[10.60.0.0]');
    expect(evpn).not.toContain('[10.61.1.0]');
    expect(evpn).toContain(`RT:${ASN}:100`);
  }, 450_000);
});
