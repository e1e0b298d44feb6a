/**
 * The generated sections of frr.conf, each the lines it writes, with indentation relative to where
 * its placeholder stands in the base template. Pure and deterministic: the same model always gives the
 * same text, so an unchanged NodeConfig never rewrites the file or reloads FRR.
 *
 * Naming (close to das-schiff's): prefix-lists `pl_<vrf>_<import|export>_<seq>` (one name carries
 * both the `ip` and the `ipv6` list, FRR keeps them apart), route-maps `rm4_<vrf>_<dir>` and
 * `rm6_<vrf>_<dir>` with one entry per VRFRouteConfiguration at its `seq`.
 *
 * Leaking between a VRF and the default VRF runs over the veth pair `vd.<vrf>` (default side) /
 * `dv.<vrf>` (VRF side) as an iBGP session of the same FRR: `import` filters what the default VRF
 * accepts from the VRF, `export` what it hands to the VRF (with the optional community) and, inside
 * the VRF, what is advertised into EVPN as type-5 routes. The VRF instances carry their own router id
 * (settings.vrfRouterId): FRR refuses an iBGP peer with its own id, so one id would keep it Idle.
 */
import { TEMPLATE_SECTION_NAMES } from '@nodenet/api';
import type { LineBuilder } from './line-builder.js';
import type { FrrModel, VrfModel } from './model.js';
import type { Direction, Family } from './vocabulary.js';
import {
  peeringAfLines,
  peeringGroups,
  peeringListenRanges,
  peeringMembers,
  peeringPrefixLists,
  peeringRouteMaps,
} from './peering-sections.js';
import { ipKeyword, writePrefixList } from './prefix-list-lines.js';

/** The placeholders of the base template's sections (their syntax: @nodenet/api frr-template). */
export const SECTION_NAMES = TEMPLATE_SECTION_NAMES;
export type SectionName = (typeof SECTION_NAMES)[number];
/**
 * Each section as a writer of its lines into the one builder of the whole file (template.ts sets
 * the placeholder's indentation first): no section makes a list or a text of its own.
 */
export type Sections = Record<SectionName, (out: LineBuilder) => void>;

/** Route-map sequence of the deny-all entry rendered when a map would otherwise be empty. */
export const DENY_ALL_SEQ = 65535;

export const prefixListName = (vrf: string, dir: Direction, seq: number): string => `pl_${vrf}_${dir}_${seq}`;
export const routeMapName = (vrf: string, dir: Direction, family: Family): string =>
  `rm${family}_${vrf}_${dir}`;

/** `set community` for AA:NN and well-known names, `set large-community` for A:B:C; additive keeps the fabric's own. */
function communityLine(c: string): string {
  return c.split(':').length === 3 ? ` set large-community ${c} additive` : ` set community ${c} additive`;
}

function vrfSection(out: LineBuilder, m: FrrModel): void {
  for (const v of m.vrfs) {
    // zebra's `vni` first, then staticd's routes: the order vtysh merges the daemons' blocks in.
    out.line(`vrf ${v.device}`);
    out.line(` vni ${v.vni}`);
    for (const r of v.staticRoutes) out.line(` ${r.line}`);
    out.line('exit-vrf');
    out.line('!');
  }
}

/** As FRR shows them: every `ip prefix-list` line, then every `ipv6` one, each group closed by `!`. */
function prefixListSection(out: LineBuilder, m: FrrModel): void {
  for (const family of [4, 6] as const) {
    const before = out.length;
    for (const v of m.vrfs) {
      for (const dir of ['import', 'export'] as const) {
        for (const e of v.maps[dir][family]) {
          writePrefixList(out, family, prefixListName(v.name, dir, e.seq), e.lines);
        }
      }
    }
    peeringPrefixLists(out, m.peerings, family);
    if (out.length > before) out.line('!');
  }
}

function routeMapBlock(out: LineBuilder, v: VrfModel, dir: Direction, family: Family): void {
  const name = routeMapName(v.name, dir, family);
  const entries = v.maps[dir][family];
  // An explicit deny-all instead of a missing map: what FRR does with a reference to an undefined
  // route-map differs between places (neighbor policy, EVPN advertise), an existing map does not.
  if (entries.length === 0) {
    out.line(`route-map ${name} deny ${DENY_ALL_SEQ}`);
    out.line('exit');
    out.line('!');
    return;
  }
  for (const e of entries) {
    out.line(`route-map ${name} permit ${e.seq}`);
    out.line(` match ${ipKeyword(family)} address prefix-list ${prefixListName(v.name, dir, e.seq)}`);
    if (e.community !== undefined) out.line(communityLine(e.community));
    out.line('exit');
    out.line('!');
  }
}

function routeMapSection(out: LineBuilder, m: FrrModel): void {
  for (const v of m.vrfs) {
    for (const dir of ['import', 'export'] as const) {
      for (const family of [4, 6] as const) routeMapBlock(out, v, dir, family);
    }
  }
  peeringRouteMaps(out, m.peerings, DENY_ALL_SEQ);
}

/** Lines inside the operator's `router bgp ASN` (default VRF), before any address-family. */
function bgpDefaultSection(out: LineBuilder, m: FrrModel): void {
  for (const l of peeringGroups(m.peerings, undefined)) out.line(l);
  for (const l of peeringMembers(m.peerings, undefined)) out.line(l);
  for (const v of m.vrfs) out.line(`neighbor ${v.toVrfPort} interface remote-as internal`);
  for (const l of peeringListenRanges(m.peerings, undefined)) out.line(l);
}

/** Lines inside the default VRF's `address-family ipv4|ipv6 unicast`. */
function bgpDefaultAfSection(
  out: LineBuilder,
  m: FrrModel,
  { family, ipv4ActivatedByDefault }: { family: Family; ipv4ActivatedByDefault: boolean },
): void {
  for (const l of peeringAfLines(m.peerings, undefined, family, ipv4ActivatedByDefault)) out.line(l);
  for (const v of m.vrfs) {
    // FRR leaves `activate` out of its running config where it is the default (IPv4 unless the
    // template says `no bgp default ipv4-unicast`); rendering it anyway would make frr-reload.py see
    // a difference on every reload and re-send it out of context.
    if (family === 6 || !ipv4ActivatedByDefault) out.line(`neighbor ${v.toVrfPort} activate`);
    out.line(`neighbor ${v.toVrfPort} route-map ${routeMapName(v.name, 'import', family)} in`);
    out.line(`neighbor ${v.toVrfPort} route-map ${routeMapName(v.name, 'export', family)} out`);
  }
  for (const t of m.routingTables) out.line(`import vrf ${t}`);
}

/** The address-families of one VRF's `router bgp ASN vrf …` block. */
function bgpVrfAddressFamilies(out: LineBuilder, m: FrrModel, v: VrfModel): void {
  for (const family of [4, 6] as const) {
    // In the order FRR shows them (aggregates, redistribution, neighbors), so that the file reads
    // like `show running-config`.
    out.line(' !');
    out.line(` address-family ipv${family} unicast`);
    for (const a of v.aggregates[family]) out.line(`  aggregate-address ${a}`);
    out.line('  redistribute connected');
    for (const l of peeringAfLines(m.peerings, v.device, family, true)) out.line(`  ${l}`);
    // IPv4 is activated by default in this instance (see bgpDefaultAfSection).
    if (family === 6) out.line(`  neighbor ${v.toDefaultPort} activate`);
    out.line(' exit-address-family');
  }
  out.line(' !');
  out.line(' address-family l2vpn evpn');
  for (const family of [4, 6] as const) {
    out.line(`  advertise ipv${family} unicast route-map ${routeMapName(v.name, 'export', family)}`);
  }
  // One route target per line: frr-reload.py can not diff several targets on one line. Imports
  // first, as FRR shows them.
  for (const rt of v.routeTargets) out.line(`  route-target import ${rt}`);
  for (const rt of v.routeTargets) out.line(`  route-target export ${rt}`);
  out.line(' exit-address-family');
}

function bgpVrfSection(out: LineBuilder, m: FrrModel): void {
  for (const v of m.vrfs) {
    out.line(`router bgp ${m.asn} vrf ${v.device}`);
    out.line(` bgp router-id ${m.vrfRouterId}`);
    // FRR's order: peer-groups, neighbours by address, interface neighbours, listen ranges.
    for (const l of peeringGroups(m.peerings, v.device)) out.line(` ${l}`);
    for (const l of peeringMembers(m.peerings, v.device)) out.line(` ${l}`);
    out.line(` neighbor ${v.toDefaultPort} interface remote-as internal`);
    for (const l of peeringListenRanges(m.peerings, v.device)) out.line(` ${l}`);
    bgpVrfAddressFamilies(out, m, v);
    out.line('exit');
    out.line('!');
  }
  // A routing table is a VRF whose kernel routes the default VRF imports (`import vrf taas.<id>`);
  // the BGP instance in that VRF is what turns its kernel routes into BGP routes to import.
  for (const t of m.routingTables) {
    out.line(`router bgp ${m.asn} vrf ${t}`);
    out.line(` bgp router-id ${m.vrfRouterId}`);
    for (const family of [4, 6] as const) {
      out.line(' !');
      out.line(` address-family ipv${family} unicast`);
      out.line('  redistribute kernel');
      out.line(' exit-address-family');
    }
    out.line('exit');
    out.line('!');
  }
}

/** `ipv4ActivatedByDefault`: the template's default `router bgp` keeps `bgp default ipv4-unicast`. */
export function renderSections(m: FrrModel, ipv4ActivatedByDefault = true): Sections {
  return {
    vrfs: (out) => vrfSection(out, m),
    prefix_lists: (out) => prefixListSection(out, m),
    route_maps: (out) => routeMapSection(out, m),
    bgp_default: (out) => bgpDefaultSection(out, m),
    bgp_default_ipv4: (out) => bgpDefaultAfSection(out, m, { family: 4, ipv4ActivatedByDefault }),
    bgp_default_ipv6: (out) => bgpDefaultAfSection(out, m, { family: 6, ipv4ActivatedByDefault }),
    bgp_vrfs: (out) => bgpVrfSection(out, m),
  };
}
