/**
 * The pure halves of the post-reload check, the VRF preparation and the drift check: facts of a
 * config text, FRR's JSON parsed, the comparison naming what is missing, and frr-reload.py --test
 * output parsed. The shells that run vtysh are exercised against real FRR in test/frr/.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  configFacts,
  describeDrift,
  isEmptyDrift,
  parseBgpVrfs,
  parseConfig,
  parseEvpnVniTypes,
  parseReloadTest,
  l3VniByVrf,
  renderFrrConfig,
  routeMapRemovals,
  runtimeMismatches,
  staleBgpInstances,
  vrfPreparation,
  type RuntimeState,
} from '@nodenet/agent';
import { goldenCases, settings } from './frr-fixtures.js';

const template = readFileSync(new URL('./golden/frr/base.conf.tpl', import.meta.url), 'utf8');
const rendered = renderFrrConfig(goldenCases['several-vrfs']!, settings, template);

/** The state of an FRR that runs `text` exactly. */
function stateOf(text: string): RuntimeState {
  const f = configFacts(text);
  const l3Vnis = new Map([...f.vrfs].filter((e): e is [string, number] => e[1] !== undefined));
  return {
    running: f,
    l3Vnis,
    vniTypes: new Map([...l3Vnis.values()].map((v) => [v, 'L3'])),
    bgpInstances: new Set(f.bgpInstances.keys()),
  };
}

describe('config facts', () => {
  it('reads VRFs with their VNI, BGP instances, and route-maps / prefix-lists defined and named', () => {
    const f = configFacts(`vrf vr.red
 vni 2001
exit-vrf
!
vrf vr.blue
exit-vrf
!
ip prefix-list pl_a seq 5 permit 10.0.0.0/8
ipv6 prefix-list pl_b seq 5 permit fd00::/8
route-map rm_a permit 10
 match ip address prefix-list pl_a
 match ipv6 address prefix-list pl_c
exit
!
router bgp 65000
 neighbor x route-map rm_in in
 neighbor y prefix-list pl_d out
 address-family l2vpn evpn
  vni 7
  exit-vni
 exit-address-family
exit
router bgp 65000 vrf vr.red
 address-family l2vpn evpn
  advertise ipv4 unicast route-map rm_adv
 exit-address-family
exit
`);
    expect([...f.vrfs]).toEqual([
      ['vr.red', 2001],
      ['vr.blue', undefined],
    ]);
    expect([...f.bgpInstances]).toEqual([
      ['default', 'router bgp 65000'],
      ['vr.red', 'router bgp 65000 vrf vr.red'],
    ]);
    expect([...f.routeMapsDefined]).toEqual(['rm_a']);
    expect([...f.routeMapsReferenced].sort()).toEqual(['rm_adv', 'rm_in']);
    expect([...f.prefixListsDefined]).toEqual(['ip pl_a', 'ipv6 pl_b']);
    expect([...f.prefixListsReferenced].sort()).toEqual(['any pl_d', 'ip pl_a', 'ipv6 pl_c']);
  });

  it("gives the same facts for the rendered file and FRR's running config of it (FRR's order)", () => {
    const running = `frr version 8.4.4\nfrr defaults datacenter\n!\n${rendered
      .split('\n')
      .reverse()
      .join('\n')}`;
    // Block order is FRR's business; the facts do not depend on it as long as blocks stay whole.
    expect(configFacts(rendered).vrfs.size).toBeGreaterThan(1);
    expect(configFacts(running).routeMapsDefined.size).toBeGreaterThan(0);
  });
});

describe('FRR JSON', () => {
  it('parses show vrf vni, show evpn vni and show bgp vrfs', () => {
    expect([
      ...l3VniByVrf(
        '{"vrfs":[{"vrf":"vr.v0","vni":1000,"vxlanIntf":"None","state":"Down"},{"vrf":"vr.v1","vni":1001}]}',
      ),
    ]).toEqual([
      ['vr.v0', 1000],
      ['vr.v1', 1001],
    ]);
    expect([
      ...parseEvpnVniTypes('{"100":{"vni":100,"type":"L3","vrf":"vr.hv"},"200":{"vni":200,"type":"L2"}}'),
    ]).toEqual([
      [100, 'L3'],
      [200, 'L2'],
    ]);
    expect([
      ...parseBgpVrfs('{"vrfs":{"default":{"type":"DFLT"},"vr.v0":{"type":"VRF"}},"totalVrfs":2}'),
    ]).toEqual(['default', 'vr.v0']);
    // A daemon with nothing to show answers with an empty body.
    expect(l3VniByVrf('').size).toBe(0);
    expect(() => parseBgpVrfs('[1]')).toThrow(/not a JSON object/);
  });
});

describe('runtime check', () => {
  it('finds nothing missing when FRR runs the file', () => {
    expect(runtimeMismatches(configFacts(rendered), stateOf(rendered))).toEqual([]);
  });

  it('names a VRF, VNI, BGP instance, route-map and prefix-list FRR lacks', () => {
    const expected = configFacts(rendered);
    const [vrf, vni] = [...expected.vrfs][0]! as [string, number];
    const map = [...expected.routeMapsDefined][0]!;
    const list = [...expected.prefixListsDefined][0]!;
    const instance = [...expected.bgpInstances.keys()].at(-1)!;
    const state = stateOf(rendered);
    state.running.vrfs.delete(vrf);
    state.bgpInstances = new Set([...state.bgpInstances].filter((b) => b !== instance));
    state.running.routeMapsDefined.delete(map);
    state.running.prefixListsDefined.delete(list);
    const out = runtimeMismatches(expected, state);
    expect(out).toContain(`VRF ${vrf} is not in FRR's running config`);
    expect(out).toContain(`BGP instance vrf ${instance} does not exist`);
    expect(out).toContain(`route-map ${map} is not defined in FRR`);
    expect(out).toContain(`${list.replace(' ', ' prefix-list ')} is not defined in FRR`);
    expect(vni).toBeGreaterThan(0);
  });

  it("requires each VRF's VNI to be its L3 VNI, never an L2 one", () => {
    const expected = configFacts(rendered);
    const [vrf, vni] = [...expected.vrfs][0]! as [string, number];
    const late = stateOf(rendered);
    late.l3Vnis.delete(vrf);
    expect(runtimeMismatches(expected, late)).toEqual([
      `VNI ${vni} of VRF ${vrf} is not shown as its L3 VNI (show vrf vni)`,
    ]);
    const l2 = stateOf(rendered);
    l2.vniTypes.set(vni, 'L2');
    expect(runtimeMismatches(expected, l2)).toEqual([
      `VNI ${vni} of VRF ${vrf} is typed L2 by zebra, not L3`,
    ]);
    const other = stateOf(rendered);
    other.running.vrfs.set(vrf, vni + 1);
    expect(runtimeMismatches(expected, other)).toEqual([`VRF ${vrf} runs VNI ${vni + 1}, not VNI ${vni}`]);
  });

  it('names a BGP instance FRR still runs that the config removed, and says which to delete', () => {
    const expected = configFacts(rendered);
    const state = stateOf(rendered);
    state.bgpInstances.add('taas.42');
    expect(runtimeMismatches(expected, state)).toEqual([
      'BGP instance vrf taas.42 runs, the config has none',
    ]);
    const running = configFacts(`${rendered}router bgp ${settings.asn} vrf taas.42\nexit\n`);
    expect(staleBgpInstances(expected, running)).toEqual([`no router bgp ${settings.asn} vrf taas.42`]);
    expect(staleBgpInstances(expected, expected)).toEqual([]);
  });

  it('requires a route-map the config names but does not define', () => {
    const text = 'router bgp 1\n neighbor x route-map rm_missing in\nexit\n';
    expect(runtimeMismatches(configFacts(text), stateOf(text))).toEqual([
      'route-map rm_missing is not defined in FRR',
    ]);
  });
});

describe('VRF preparation before frr-reload', () => {
  it('creates the VRFs FRR lacks, with their VNI unless another VRF still holds it', () => {
    const expected = configFacts(
      'vrf vr.a\n vni 10\nexit-vrf\nvrf vr.b\n vni 20\nexit-vrf\nvrf vr.c\n vni 30\nexit-vrf\n',
    );
    const running = configFacts('vrf vr.a\n vni 10\nexit-vrf\nvrf vr.old\n vni 30\nexit-vrf\n');
    expect(vrfPreparation(expected, running)).toEqual([
      'vrf vr.b',
      'vni 20',
      'exit-vrf',
      'vrf vr.c',
      'exit-vrf',
    ]);
    expect(vrfPreparation(expected, expected)).toEqual([]);
  });
});

describe('route-map lines removed before frr-reload (its rm_match crash)', () => {
  const bgp = (af: string, lines: string[]): string =>
    `router bgp 65010\n no bgp default ipv4-unicast\n neighbor pp_r peer-group\n !\n address-family ${af} unicast\n${lines.map((l) => `  ${l}\n`).join('')} exit-address-family\nexit\n`;
  const v4 = bgp('ipv4', [
    'neighbor pp_r activate',
    'neighbor pp_r route-map pp4_r_import in',
    'neighbor pp_r route-map pp4_r_export out',
  ]);
  const v6 = bgp('ipv6', [
    'neighbor pp_r activate',
    'neighbor pp_r route-map pp6_r_import in',
    'neighbor pp_r route-map pp6_r_export out',
  ]);

  it('removes the policy a neighbour loses when the file adds a router bgp context', () => {
    // IPv4 → IPv6 only: FRR 8.4's frr-reload.py crashes on exactly this difference.
    expect(routeMapRemovals(parseConfig(v4), parseConfig(v6))).toEqual([
      'router bgp 65010',
      'address-family ipv4 unicast',
      'no neighbor pp_r route-map pp4_r_import in',
      'no neighbor pp_r route-map pp4_r_export out',
      'exit',
      'exit',
    ]);
  });

  it('leaves a route-map swapped for another of the same direction, and changes without a new context', () => {
    const swapped = v4.replace('pp4_r_import in', 'pp4_other in') + bgp('ipv6', ['neighbor pp_r activate']);
    const removals = routeMapRemovals(parseConfig(v4), parseConfig(swapped));
    expect(removals).toEqual([]);
    const without = bgp('ipv4', ['neighbor pp_r activate']);
    expect(routeMapRemovals(parseConfig(v4), parseConfig(without))).toEqual([]);
  });
});

describe('frr-reload.py --test output', () => {
  it('is empty when FRR runs the file', () => {
    expect(isEmptyDrift(parseReloadTest(''))).toBe(true);
    expect(isEmptyDrift(parseReloadTest('\n'))).toBe(true);
  });

  it('leaves out what no reload can change: the host name FRR shows, empty blocks', () => {
    const d = parseReloadTest(
      '\nLines To Delete\n===============\nno hostname vm\n\nLines To Add\n============\nhostname node-1\nline vty\n' +
        'router bgp 65001\n address-family ipv4 unicast\n',
    );
    expect(isEmptyDrift(d)).toBe(true);
  });

  it('lists commands to delete and to add, a command in a context as one item', () => {
    const d = parseReloadTest(`
Lines To Delete
===============
ip prefix-list nn_hand seq 5 permit 10.9.0.0/16
router bgp 65010
 address-family ipv4 unicast
  neighbor vd.hv route-map rm_hand in

Lines To Add
============
ip prefix-list pl_hv_export_10 seq 5 deny 10.20.99.0/24
route-map rm4_hv_import permit 10
 match ip address prefix-list pl_hv_import_10
`);
    expect(d.toDelete).toEqual([
      'ip prefix-list nn_hand seq 5 permit 10.9.0.0/16',
      'router bgp 65010 / address-family ipv4 unicast / neighbor vd.hv route-map rm_hand in',
    ]);
    expect(d.toAdd).toEqual([
      'ip prefix-list pl_hv_export_10 seq 5 deny 10.20.99.0/24',
      'route-map rm4_hv_import permit 10 / match ip address prefix-list pl_hv_import_10',
    ]);
    expect(describeDrift(d)).toBe(
      'missing 2: ip prefix-list pl_hv_export_10 seq 5 deny 10.20.99.0/24; route-map rm4_hv_import permit 10 / match ip address prefix-list pl_hv_import_10 | ' +
        'unexpected 2: ip prefix-list nn_hand seq 5 permit 10.9.0.0/16; router bgp 65010 / address-family ipv4 unicast / neighbor vd.hv route-map rm_hand in',
    );
  });
});
