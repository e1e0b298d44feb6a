/**
 * FRR rendering: golden files per feature, determinism, the template's placeholder rules, and the
 * renderer's own refusal of every value outside its grammar (defence in depth, invariant 6).
 * Regenerate the golden files with UPDATE_GOLDEN=1 after an intended change, and review the diff.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FrrRenderError, FrrTemplateError, parseTemplate, renderFrrConfig } from '@nodenet/agent';
import { describePrivileged } from '../../../test/support/privileged.js';
import { goldenCases, settings, vrf, type FrrSpec } from './frr-fixtures.js';

const goldenDir = new URL('./golden/frr/', import.meta.url);
const template = readFileSync(new URL('base.conf.tpl', goldenDir), 'utf8');
const update = process.env.UPDATE_GOLDEN === '1';

describe('FRR rendering: golden files', () => {
  for (const [name, spec] of Object.entries(goldenCases)) {
    it(`renders ${name} as in golden/frr/${name}.conf`, () => {
      const out = renderFrrConfig(spec, settings, template);
      const file = new URL(`${name}.conf`, goldenDir);
      if (update) writeFileSync(file, out);
      expect(out).toBe(readFileSync(file, 'utf8'));
    });
  }

  it('is deterministic: entry and list order in the spec do not change the output', () => {
    const spec = goldenCases['several-vrfs']!;
    const shuffled: FrrSpec = {
      vrf: [...spec.vrf]
        .reverse()
        .map((e) => ({ ...e, export: [...e.export].reverse(), aggregate: [...e.aggregate].reverse() })),
      routingTable: [...spec.routingTable].reverse(),
    };
    expect(renderFrrConfig(shuffled, settings, template)).toBe(renderFrrConfig(spec, settings, template));
  });

  it('leaves no placeholder and no empty-section line in the output', () => {
    const out = renderFrrConfig(goldenCases.empty!, settings, template);
    expect(out).not.toMatch(/\{\{|\}\}/);
    expect(out).toContain('router bgp 4200065001\n bgp router-id 10.50.0.11\n');
    expect(out).not.toMatch(/^\s+$/m);
  });

  it('orders route-map entries of one VRF by their seq and sets each entry its own community', () => {
    const out = renderFrrConfig(goldenCases.communities!, settings, template);
    const entries = [...out.matchAll(/^route-map rm4_edge_export permit (\d+)$/gm)].map((m) => Number(m[1]));
    expect(entries).toEqual([1, 2, 3]);
    expect(out).toContain(
      'route-map rm4_edge_export permit 1\n match ip address prefix-list pl_edge_export_1\n set community 65000:100 additive\n',
    );
    expect(out).toContain(
      'route-map rm6_edge_export permit 2\n match ipv6 address prefix-list pl_edge_export_2\n set large-community 4200065001:1:2 additive\n',
    );
  });
});

describePrivileged('FRR rendering: golden files pass vtysh -C', { commands: ['vtysh'] }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'nn-frr-golden-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  for (const name of Object.keys(goldenCases)) {
    it(`vtysh -C accepts ${name}.conf`, () => {
      const file = join(dir, `${name}.conf`);
      writeFileSync(file, readFileSync(new URL(`${name}.conf`, goldenDir), 'utf8'));
      // Throws (non-zero exit) with vtysh's message when a line is not valid FRR syntax.
      execFileSync('vtysh', ['-C', '-f', file], { encoding: 'utf8' });
    });
  }
});

describe('FRR rendering: values outside the grammar are refused', () => {
  const base = (over: Partial<Parameters<typeof vrf>[0]>): FrrSpec => ({
    vrf: [vrf({ vrf: 'red', ...over })],
    routingTable: [],
  });
  const item = (cidr: unknown, extra: Record<string, unknown> = {}) => ({
    cidr,
    seq: 1,
    action: 'permit',
    ...extra,
  });
  const cases: [string, FrrSpec, string, unknown][] = [
    ['newline in vrf', base({ vrf: 'red\nrouter bgp 1' }), 'vrf[0].vrf', 'red\nrouter bgp 1'],
    ['space in vrf', base({ vrf: 'red blue' }), 'vrf[0].vrf', 'red blue'],
    ['! in vrf', base({ vrf: 'red!' }), 'vrf[0].vrf', 'red!'],
    ['# in vrf', base({ vrf: 'red#x' }), 'vrf[0].vrf', 'red#x'],
    ['non-ASCII vrf', base({ vrf: 'réd' }), 'vrf[0].vrf', 'réd'],
    ['13-char vrf', base({ vrf: 'abcdefghijklm' }), 'vrf[0].vrf', 'abcdefghijklm'],
    ['empty vrf', base({ vrf: '' }), 'vrf[0].vrf', ''],
    ['vni 0', base({ vni: 0 }), 'vrf[0].vni', 0],
    ['vni as string', base({ vni: '1\nexit' as unknown as number }), 'vrf[0].vni', '1\nexit'],
    ['vni too large', base({ vni: 16777216 }), 'vrf[0].vni', 16777216],
    ['entry seq 65535', base({ seq: 65535 }), 'vrf[0].seq', 65535],
    [
      'route target with newline',
      base({ routeTarget: '65000:1\nexit' }),
      'vrf[0].routeTarget',
      '65000:1\nexit',
    ],
    [
      'route target with space',
      base({ routeTarget: '65000:1 65000:2' }),
      'vrf[0].routeTarget',
      '65000:1 65000:2',
    ],
    [
      'community with newline',
      base({ community: '65000:1\nno router bgp' }),
      'vrf[0].community',
      '65000:1\nno router bgp',
    ],
    [
      'community with extra word',
      base({ community: '65000:1 additive' }),
      'vrf[0].community',
      '65000:1 additive',
    ],
    ['community out of range', base({ community: '70000:1' }), 'vrf[0].community', '70000:1'],
    [
      'cidr with newline',
      base({ export: [item('10.0.0.0/8\nip route 0.0.0.0/0 blackhole')] as never }),
      'vrf[0].export[0].cidr',
      '10.0.0.0/8\nip route 0.0.0.0/0 blackhole',
    ],
    [
      'cidr with trailing words',
      base({ import: [item('10.0.0.0/8 le 32')] as never }),
      'vrf[0].import[0].cidr',
      '10.0.0.0/8 le 32',
    ],
    [
      'cidr with host bits',
      base({ export: [item('10.0.0.1/8')] as never }),
      'vrf[0].export[0].cidr',
      '10.0.0.1/8',
    ],
    [
      'octal-looking IPv4',
      base({ export: [item('010.0.0.0/8')] as never }),
      'vrf[0].export[0].cidr',
      '010.0.0.0/8',
    ],
    [
      'prefix length too long',
      base({ export: [item('10.0.0.0/33')] as never }),
      'vrf[0].export[0].cidr',
      '10.0.0.0/33',
    ],
    [
      'IPv6 zone',
      base({ export: [item('fe80::%eth0/64')] as never }),
      'vrf[0].export[0].cidr',
      'fe80::%eth0/64',
    ],
    [
      'aggregate with keyword',
      base({ aggregate: ['10.0.0.0/8 summary-only'] }),
      'vrf[0].aggregate[0]',
      '10.0.0.0/8 summary-only',
    ],
    [
      'ge not above length',
      base({ export: [item('10.0.0.0/16', { ge: 8 })] as never }),
      'vrf[0].export[0].ge',
      8,
    ],
    [
      'ge beyond family',
      base({ export: [item('10.0.0.0/16', { ge: 33 })] as never }),
      'vrf[0].export[0].ge',
      33,
    ],
    [
      'le below ge',
      base({ export: [item('10.0.0.0/16', { ge: 24, le: 20 })] as never }),
      'vrf[0].export[0].le',
      20,
    ],
    [
      'fractional le',
      base({ export: [item('10.0.0.0/16', { le: 24.5 })] as never }),
      'vrf[0].export[0].le',
      24.5,
    ],
    ['item seq 0', base({ export: [item('10.0.0.0/16', { seq: 0 })] as never }), 'vrf[0].export[0].seq', 0],
    [
      'action with extra word',
      base({ export: [item('10.0.0.0/16', { action: 'permit any' })] as never }),
      'vrf[0].export[0].action',
      'permit any',
    ],
    [
      'duplicate item seq',
      base({ export: [item('10.0.0.0/16'), item('10.1.0.0/16')] as never }),
      'vrf[0].export[1].seq',
      1,
    ],
    [
      'table id as string',
      { vrf: [], routingTable: [{ name: 't', tableId: '1 foo' as unknown as number }] },
      'routingTable[0].tableId',
      '1 foo',
    ],
    ['table id 0', { vrf: [], routingTable: [{ name: 't', tableId: 0 }] }, 'routingTable[0].tableId', 0],
    [
      'static route with a newline in its next hop',
      base({ staticRoutes: [{ prefix: '10.0.0.0/8', nextHop: '10.1.1.1\nexit' }] }),
      'vrf[0].staticRoutes[0].nextHop',
      '10.1.1.1\nexit',
    ],
    [
      'static route with host bits set',
      base({ staticRoutes: [{ prefix: '10.0.0.1/8', nextHop: '10.1.1.1' }] }),
      'vrf[0].staticRoutes[0].prefix',
      '10.0.0.1/8',
    ],
    [
      'static route with an IPv6 next hop for an IPv4 prefix',
      base({ staticRoutes: [{ prefix: '10.0.0.0/8', nextHop: 'fd00::1' }] }),
      'vrf[0].staticRoutes[0].nextHop',
      'fd00::1',
    ],
    [
      'static route into the default VRF without a next hop',
      base({ staticRoutes: [{ prefix: '10.0.0.0/8', nextHopVRF: 'default' }] }),
      'vrf[0].staticRoutes[0].nextHop',
      undefined,
    ],
    [
      'static route with a bad next-hop VRF',
      base({ staticRoutes: [{ prefix: '10.0.0.0/8', nextHopVRF: 'a b' }] }),
      'vrf[0].staticRoutes[0].nextHopVRF',
      'a b',
    ],
    [
      'two entries with the same seq',
      { vrf: [vrf({ vrf: 'red' }), vrf({ vrf: 'red', name: 'other' })], routingTable: [] },
      'vrf[1].seq',
      10,
    ],
    [
      'two entries of one VRF with different VNIs',
      { vrf: [vrf({ vrf: 'red', vni: 1 }), vrf({ vrf: 'red', vni: 2, seq: 20 })], routingTable: [] },
      'vrf[1].vni',
      2,
    ],
  ];
  for (const [what, spec, field, value] of cases) {
    it(`refuses ${what} (${field})`, () => {
      let err: unknown;
      try {
        renderFrrConfig(spec, settings, template);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(FrrRenderError);
      expect((err as FrrRenderError).field).toBe(field);
      expect((err as FrrRenderError).value).toEqual(value);
      expect((err as Error).message).toContain(field);
    });
  }

  const badSettings: [string, unknown, string][] = [
    ['asn 0', { ...settings, asn: 0 }, 'settings.asn'],
    ['asn with newline', { ...settings, asn: '65000\nexit' }, 'settings.asn'],
    ['router id with newline', { ...settings, routerId: '10.0.0.1\nexit' }, 'settings.routerId'],
    ['IPv6 router id', { ...settings, routerId: '::1' }, 'settings.routerId'],
    ['three-part router id', { ...settings, routerId: '1.2.3' }, 'settings.routerId'],
    ['VRF router id with newline', { ...settings, vrfRouterId: '10.0.0.2\nexit' }, 'settings.vrfRouterId'],
  ];
  // The leaking session is iBGP between two instances of one bgpd: FRR refuses it (Bad BGP
  // Identifier) when both use one router id, so a config with VRFs needs a distinct one.
  it('refuses a config with VRFs without a VRF router id, or with the default one', () => {
    const spec = goldenCases.ipv4!;
    const { vrfRouterId: _unused, ...noVrfId } = settings;
    expect(() => renderFrrConfig(spec, noVrfId, template)).toThrow(
      expect.objectContaining({ name: 'FrrRenderError', field: 'settings.vrfRouterId' }),
    );
    expect(() => renderFrrConfig(spec, { ...settings, vrfRouterId: settings.routerId }, template)).toThrow(
      expect.objectContaining({ field: 'settings.vrfRouterId', value: settings.routerId }),
    );
    // Without VRFs the setting is not needed.
    expect(() => renderFrrConfig(goldenCases.empty!, noVrfId, template)).not.toThrow();
  });
  for (const [what, s, field] of badSettings) {
    it(`refuses ${what} (${field})`, () => {
      expect(() => renderFrrConfig(goldenCases.empty!, s as typeof settings, template)).toThrow(
        expect.objectContaining({ name: 'FrrRenderError', field }),
      );
    });
  }
});

describe('FRR base template', () => {
  const sections = '{{ bgp_vrfs }}\n';
  const bgp =
    '{{ vrfs }}\n{{ prefix_lists }}\n{{ route_maps }}\nrouter bgp {{asn}}\n {{ bgp_default }}\n address-family ipv4 unicast\n  {{ bgp_default_ipv4 }}\n address-family ipv6 unicast\n  {{ bgp_default_ipv6 }}\n';
  const ok = bgp + sections;

  it('accepts a template with every section once and value placeholders anywhere', () => {
    expect(() => parseTemplate(ok + 'hostname r{{ asn }}-{{router_id}}\n')).not.toThrow();
  });
  it('activates IPv4 sessions explicitly only when the template turns the IPv4 default off', () => {
    expect(renderFrrConfig(goldenCases.ipv4!, settings, ok)).not.toContain(
      'neighbor vd.red activate\n  neighbor vd.red route-map rm4',
    );
    const off = ok.replace(' {{ bgp_default }}', ' no bgp default ipv4-unicast\n {{ bgp_default }}');
    expect(renderFrrConfig(goldenCases.ipv4!, settings, off)).toContain(
      '  neighbor vd.red activate\n  neighbor vd.red route-map rm4_red_import in\n',
    );
  });
  it('indents each section line with the placeholder indentation', () => {
    const out = renderFrrConfig(goldenCases.ipv4!, settings, ok);
    expect(out).toContain('\n  neighbor vd.red route-map rm4_red_import in\n');
    expect(out).toContain('\n neighbor vd.red interface remote-as internal\n');
  });
  const bad: [string, string, RegExp][] = [
    ['unknown placeholder', ok + '{{ hostname }}\n', /unknown placeholder \{\{ hostname \}\}/],
    ['section used inline', ok.replace('{{ vrfs }}', 'x {{ vrfs }}'), /must stand alone/],
    ['section twice', ok + '{{ vrfs }}\n', /appears twice/],
    [
      'missing section',
      ok.replace('{{ route_maps }}\n', ''),
      /missing section placeholder\(s\): \{\{ route_maps \}\}/,
    ],
    [
      'vrfs after router bgp',
      ok.replace('{{ vrfs }}\n', '') + '{{ vrfs }}\n',
      /\{\{ vrfs \}\} must come before the first `router bgp`/,
    ],
    ['stray braces', ok + 'hostname {{ asn\n', /malformed placeholder/],
    ['upper-case name', ok + '{{ ASN }}\n', /malformed placeholder/],
  ];
  for (const [what, text, re] of bad) {
    it(`refuses a template with ${what}`, () => {
      expect(() => parseTemplate(text)).toThrow(FrrTemplateError);
      expect(() => parseTemplate(text)).toThrow(re);
    });
  }
});
