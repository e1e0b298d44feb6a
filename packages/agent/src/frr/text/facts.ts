/**
 * What an FRR configuration text declares, in the terms the post-reload check compares: VRFs and their
 * L3 VNIs, BGP instances, and the route-maps and prefix-lists it defines and names. The same parser
 * reads the rendered file and FRR's `show running-config` (one syntax), so "the file says X, FRR runs
 * Y" is a comparison of two `ConfigFacts`. Pure.
 */

export type IpFamily = 'ip' | 'ipv6';

export interface ConfigFacts {
  /** VRF device → its `vni` line (undefined: a `vrf` block without one). */
  vrfs: Map<string, number | undefined>;
  /** BGP instances by VRF (`default` for `router bgp ASN`, the VRF name for `router bgp ASN vrf X`) → that line. */
  bgpInstances: Map<string, string>;
  routeMapsDefined: Set<string>;
  /** Route-maps named anywhere else (neighbor policy, `advertise … route-map`, `redistribute … route-map`, …). */
  routeMapsReferenced: Set<string>;
  /** Prefix-lists defined, as `ip NAME` / `ipv6 NAME` (FRR keeps the two families apart). */
  prefixListsDefined: Set<string>;
  /** Prefix-lists named by a `match ip|ipv6 address prefix-list` (family known) or elsewhere (`any NAME`). */
  prefixListsReferenced: Set<string>;
  /** Whether there is a top-level `bfd` block, and whether anything stands inside it. */
  bfd: 'none' | 'empty' | 'used';
}

const VRF = /^vrf (\S+)$/;
const VNI = /^vni (\d+)\b/;
const ROUTER_BGP = /^router bgp \d+(?: vrf (\S+))?/;
const ROUTE_MAP_DEF = /^route-map (\S+) (?:permit|deny) \d+$/;
const PREFIX_LIST_DEF = /^(ip|ipv6) prefix-list (\S+) /;
const ROUTE_MAP_REF = /\broute-map (\S+)/;
const MATCH_PREFIX_LIST = /^match (ip|ipv6) address prefix-list (\S+)/;
const PREFIX_LIST_REF = /\bprefix-list (\S+)/;

export function configFacts(text: string): ConfigFacts {
  const facts: ConfigFacts = {
    vrfs: new Map(),
    bgpInstances: new Map(),
    routeMapsDefined: new Set(),
    routeMapsReferenced: new Set(),
    prefixListsDefined: new Set(),
    prefixListsReferenced: new Set(),
    bfd: 'none',
  };
  let vrf: string | undefined;
  let inBfd = false;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('!')) continue;
    const topLevel = raw === raw.trimStart();
    if (topLevel) vrf = undefined;
    if (topLevel) inBfd = line === 'bfd';
    if (inBfd) {
      if (topLevel) facts.bfd = facts.bfd === 'used' ? 'used' : 'empty';
      else if (line !== 'exit') facts.bfd = 'used';
      continue;
    }
    let m: RegExpExecArray | null;
    if (topLevel && (m = VRF.exec(line))) {
      vrf = m[1]!;
      if (!facts.vrfs.has(vrf)) facts.vrfs.set(vrf, undefined);
    } else if (vrf !== undefined && (m = VNI.exec(line))) {
      facts.vrfs.set(vrf, Number(m[1]));
    } else if (topLevel && (m = ROUTER_BGP.exec(line))) {
      facts.bgpInstances.set(m[1] ?? 'default', line);
    } else if (topLevel && (m = ROUTE_MAP_DEF.exec(line))) {
      facts.routeMapsDefined.add(m[1]!);
    } else if (topLevel && (m = PREFIX_LIST_DEF.exec(line))) {
      facts.prefixListsDefined.add(`${m[1]} ${m[2]}`);
    } else if ((m = MATCH_PREFIX_LIST.exec(line))) {
      facts.prefixListsReferenced.add(`${m[1]} ${m[2]}`);
    } else {
      const rm = ROUTE_MAP_REF.exec(line);
      if (rm) facts.routeMapsReferenced.add(rm[1]!);
      const pl = PREFIX_LIST_REF.exec(line);
      if (pl) facts.prefixListsReferenced.add(`any ${pl[1]}`);
    }
  }
  return facts;
}
