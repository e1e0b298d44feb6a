/**
 * The generated sections of frr.conf, each a list of lines with indentation relative to where its
 * placeholder stands in the base template. Pure and deterministic: the same model always gives the
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
import type { Direction, Family, FrrModel, PrefixLine, VrfModel } from './model.js';
import {
  peeringAfLines,
  peeringGroups,
  peeringListenRanges,
  peeringMembers,
  peeringPrefixLists,
  peeringRouteMaps,
} from './peering-sections.js';

export const SECTION_NAMES = [
  'vrfs',
  'prefix_lists',
  'route_maps',
  'bgp_default',
  'bgp_default_ipv4',
  'bgp_default_ipv6',
  'bgp_vrfs',
] as const;
export type SectionName = (typeof SECTION_NAMES)[number];
export type Sections = Record<SectionName, string[]>;

/** Route-map sequence of the deny-all entry rendered when a map would otherwise be empty. */
export const DENY_ALL_SEQ = 65535;

export const prefixListName = (vrf: string, dir: Direction, seq: number): string => `pl_${vrf}_${dir}_${seq}`;
export const routeMapName = (vrf: string, dir: Direction, family: Family): string =>
  `rm${family}_${vrf}_${dir}`;

const ipKeyword = (family: Family): string => (family === 4 ? 'ip' : 'ipv6');

function prefixListLine(family: Family, name: string, l: PrefixLine): string {
  const range = (l.ge !== undefined ? ` ge ${l.ge}` : '') + (l.le !== undefined ? ` le ${l.le}` : '');
  return `${ipKeyword(family)} prefix-list ${name} seq ${l.seq} ${l.action} ${l.prefix}${range}`;
}

/** `set community` for AA:NN and well-known names, `set large-community` for A:B:C; additive keeps the fabric's own. */
function communityLine(c: string): string {
  return c.split(':').length === 3 ? ` set large-community ${c} additive` : ` set community ${c} additive`;
}

// Every section appends to one array with plain pushes: `flatMap` and `push(...lines)` over tens of
// thousands of lines made the 200-VRF render superlinear (allocation and argument spreading).
function vrfSection(m: FrrModel): string[] {
  const out: string[] = [];
  for (const v of m.vrfs) {
    // zebra's `vni` first, then staticd's routes: the order vtysh merges the daemons' blocks in.
    out.push(`vrf ${v.device}`, ` vni ${v.vni}`);
    for (const r of v.staticRoutes) out.push(` ${r.line}`);
    out.push('exit-vrf', '!');
  }
  return out;
}

/** As FRR shows them: every `ip prefix-list` line, then every `ipv6` one, each group closed by `!`. */
function prefixListSection(m: FrrModel): string[] {
  const out: string[] = [];
  for (const family of [4, 6] as const) {
    const before = out.length;
    for (const v of m.vrfs) {
      for (const dir of ['import', 'export'] as const) {
        for (const e of v.maps[dir][family]) {
          const name = prefixListName(v.name, dir, e.seq);
          for (const l of e.lines) out.push(prefixListLine(family, name, l));
        }
      }
    }
    peeringPrefixLists(out, m.peerings, family);
    if (out.length > before) out.push('!');
  }
  return out;
}

function routeMapBlock(out: string[], v: VrfModel, dir: Direction, family: Family): void {
  const name = routeMapName(v.name, dir, family);
  const entries = v.maps[dir][family];
  // An explicit deny-all instead of a missing map: what FRR does with a reference to an undefined
  // route-map differs between places (neighbor policy, EVPN advertise), an existing map does not.
  if (entries.length === 0) {
    out.push(`route-map ${name} deny ${DENY_ALL_SEQ}`, 'exit', '!');
    return;
  }
  for (const e of entries) {
    out.push(
      `route-map ${name} permit ${e.seq}`,
      ` match ${ipKeyword(family)} address prefix-list ${prefixListName(v.name, dir, e.seq)}`,
    );
    if (e.community !== undefined) out.push(communityLine(e.community));
    out.push('exit', '!');
  }
}

function routeMapSection(m: FrrModel): string[] {
  const out: string[] = [];
  for (const v of m.vrfs) {
    for (const dir of ['import', 'export'] as const) {
      for (const family of [4, 6] as const) routeMapBlock(out, v, dir, family);
    }
  }
  peeringRouteMaps(out, m.peerings, DENY_ALL_SEQ);
  return out;
}

/** Lines inside the operator's `router bgp ASN` (default VRF), before any address-family. */
function bgpDefaultSection(m: FrrModel): string[] {
  return [
    ...peeringGroups(m.peerings, undefined),
    ...peeringMembers(m.peerings, undefined),
    ...m.vrfs.map((v) => `neighbor ${v.toVrfPort} interface remote-as internal`),
    ...peeringListenRanges(m.peerings, undefined),
  ];
}

/** Lines inside the default VRF's `address-family ipv4|ipv6 unicast`. */
function bgpDefaultAfSection(m: FrrModel, family: Family, ipv4ActivatedByDefault: boolean): string[] {
  const out: string[] = peeringAfLines(m.peerings, undefined, family, ipv4ActivatedByDefault);
  for (const v of m.vrfs) {
    // FRR leaves `activate` out of its running config where it is the default (IPv4 unless the
    // template says `no bgp default ipv4-unicast`); rendering it anyway would make frr-reload.py see
    // a difference on every reload and re-send it out of context.
    if (family === 6 || !ipv4ActivatedByDefault) out.push(`neighbor ${v.toVrfPort} activate`);
    out.push(
      `neighbor ${v.toVrfPort} route-map ${routeMapName(v.name, 'import', family)} in`,
      `neighbor ${v.toVrfPort} route-map ${routeMapName(v.name, 'export', family)} out`,
    );
  }
  for (const t of m.routingTables) out.push(`import vrf ${t}`);
  return out;
}

function bgpVrfSection(m: FrrModel): string[] {
  const out: string[] = [];
  for (const v of m.vrfs) {
    out.push(`router bgp ${m.asn} vrf ${v.device}`, ` bgp router-id ${m.vrfRouterId}`);
    // FRR's order: peer-groups, neighbours by address, interface neighbours, listen ranges.
    for (const l of peeringGroups(m.peerings, v.device)) out.push(` ${l}`);
    for (const l of peeringMembers(m.peerings, v.device)) out.push(` ${l}`);
    out.push(` neighbor ${v.toDefaultPort} interface remote-as internal`);
    for (const l of peeringListenRanges(m.peerings, v.device)) out.push(` ${l}`);
    for (const family of [4, 6] as const) {
      // In the order FRR shows them (aggregates, redistribution, neighbors), so that the file reads
      // like `show running-config`.
      out.push(' !', ` address-family ipv${family} unicast`);
      for (const a of v.aggregates[family]) out.push(`  aggregate-address ${a}`);
      out.push('  redistribute connected');
      for (const l of peeringAfLines(m.peerings, v.device, family, true)) out.push(`  ${l}`);
      // IPv4 is activated by default in this instance (see bgpDefaultAfSection).
      if (family === 6) out.push(`  neighbor ${v.toDefaultPort} activate`);
      out.push(' exit-address-family');
    }
    out.push(' !', ' address-family l2vpn evpn');
    for (const family of [4, 6] as const) {
      out.push(`  advertise ipv${family} unicast route-map ${routeMapName(v.name, 'export', family)}`);
    }
    // One route target per line: frr-reload.py can not diff several targets on one line. Imports
    // first, as FRR shows them.
    for (const rt of v.routeTargets) out.push(`  route-target import ${rt}`);
    for (const rt of v.routeTargets) out.push(`  route-target export ${rt}`);
    out.push(' exit-address-family', 'exit', '!');
  }
  // A routing table is a VRF whose kernel routes the default VRF imports (`import vrf taas.<id>`);
  // the BGP instance in that VRF is what turns its kernel routes into BGP routes to import.
  for (const t of m.routingTables) {
    out.push(`router bgp ${m.asn} vrf ${t}`, ` bgp router-id ${m.vrfRouterId}`);
    for (const family of [4, 6] as const) {
      out.push(' !', ` address-family ipv${family} unicast`, '  redistribute kernel', ' exit-address-family');
    }
    out.push('exit', '!');
  }
  return out;
}

/** `ipv4ActivatedByDefault`: the template's default `router bgp` keeps `bgp default ipv4-unicast`. */
export function renderSections(m: FrrModel, ipv4ActivatedByDefault = true): Sections {
  return {
    vrfs: vrfSection(m),
    prefix_lists: prefixListSection(m),
    route_maps: routeMapSection(m),
    bgp_default: bgpDefaultSection(m),
    bgp_default_ipv4: bgpDefaultAfSection(m, 4, ipv4ActivatedByDefault),
    bgp_default_ipv6: bgpDefaultAfSection(m, 6, ipv4ActivatedByDefault),
    bgp_vrfs: bgpVrfSection(m),
  };
}
