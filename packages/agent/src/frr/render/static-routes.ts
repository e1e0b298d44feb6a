/**
 * A VRF's static routes as FRR staticd lines inside its `vrf vr.<vrf>` block, checked again against
 * the strict grammar (defence in depth: validation refused all of this already) and ordered as
 * `show running-config` lists them (FRR 8.4, seen on the golden test: IPv4 before IPv6, then by
 * prefix length, then by network address; next hops of one prefix by address), so a reload finds no
 * difference. Forms (FRR 8): `ip route P GW`, `… GW onlink`, `… GW [onlink] nexthop-vrf V`, and
 * for a route into another VRF's table without a gateway `ip route P vr.X nexthop-vrf vr.X` (the
 * kernel route points at that VRF's device, and the lookup continues in its table). Pure.
 */
import { deviceNames, isVrfName, parsePrefix, type StaticRoute } from '@nodenet/api';
import { FrrRenderError } from '../errors.js';

export interface StaticRouteLine {
  family: 4 | 6;
  /** Prefix length, network address bytes, gateway bytes: FRR's order. */
  sortKey: number[];
  /** The line without indentation, e.g. `ip route 10.50.0.0/16 10.10.0.9`. */
  line: string;
}

function refuse(field: string, value: unknown, reason: string): never {
  throw new FrrRenderError(field, value, reason);
}

/** Bytes of an address, each a number: what FRR's table compares. */
function addressBytes(address: string, family: 4 | 6): number[] {
  if (family === 4) return address.split('.').map(Number);
  const r = parsePrefix(`${address}/128`);
  if (!r.ok) return [];
  // Expand `::` into the eight groups, then split each group into two bytes.
  const [head = '', tail = ''] = r.prefix.address.split('::');
  const groups = (s: string): string[] => (s === '' ? [] : s.split(':'));
  const h = groups(head);
  const t = groups(tail);
  const all = r.prefix.address.includes('::')
    ? [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t]
    : h;
  return all.flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
}

const vrfDevice = (name: string): string => (name === 'default' ? 'default' : deviceNames.vrf(name));

/** The gateway address of a route (undefined: none), in the prefix's family. */
function gatewayOf(field: string, r: StaticRoute, family: 4 | 6): string | undefined {
  if (r.nextHop === undefined) return undefined;
  const g =
    typeof r.nextHop === 'string' ? parsePrefix(`${r.nextHop}/${family === 4 ? 32 : 128}`) : undefined;
  if (!g?.ok || g.prefix.family !== family)
    refuse(`${field}.nextHop`, r.nextHop, `must be an IPv${family} address, the prefix's family`);
  return g.prefix.address;
}

/** What follows the prefix in the route's line: the gateway (onlink, next-hop VRF) or the VRF alone. */
function viaOf(field: string, r: StaticRoute, gateway: string | undefined): string {
  if (r.nextHopVRF !== undefined && (typeof r.nextHopVRF !== 'string' || !isVrfName(r.nextHopVRF)))
    refuse(`${field}.nextHopVRF`, r.nextHopVRF, 'must be 1-12 characters of [A-Za-z0-9_-]');
  if (gateway === undefined && (r.nextHopVRF === undefined || r.nextHopVRF === 'default'))
    refuse(`${field}.nextHop`, r.nextHop, 'is required unless nextHopVRF names a VRF');
  if (r.onlink === true && gateway === undefined)
    refuse(`${field}.onlink`, r.onlink, 'needs a nextHop address');
  if (gateway === undefined) return `${vrfDevice(r.nextHopVRF!)} nexthop-vrf ${vrfDevice(r.nextHopVRF!)}`;
  const onlink = r.onlink === true ? ' onlink' : '';
  const vrf = r.nextHopVRF !== undefined ? ` nexthop-vrf ${vrfDevice(r.nextHopVRF)}` : '';
  return `${gateway}${onlink}${vrf}`;
}

/** The lines of one VRF entry's static routes; throws FrrRenderError. */
export function staticRouteLines(at: string, routes: readonly StaticRoute[] | undefined): StaticRouteLine[] {
  return (routes ?? []).map((r, i) => {
    const field = `${at}.staticRoutes[${i}]`;
    const p = typeof r.prefix === 'string' ? parsePrefix(r.prefix) : undefined;
    if (!p?.ok) refuse(`${field}.prefix`, r.prefix, p?.reason ?? 'must be a string');
    const { family, network, length, address } = p.prefix;
    if (address !== network)
      refuse(`${field}.prefix`, r.prefix, `has host bits set; the network is ${network}/${length}`);
    const gateway = gatewayOf(field, r, family);
    const via = viaOf(field, r, gateway);
    const gatewayKey = gateway === undefined ? [] : addressBytes(gateway, family);
    return {
      family,
      sortKey: [length, ...addressBytes(network, family), ...gatewayKey],
      line: `${family === 4 ? 'ip' : 'ipv6'} route ${network}/${length} ${via}`,
    };
  });
}

/** FRR's order (see the module comment), duplicates dropped. */
export function sortStaticRoutes(lines: readonly StaticRouteLine[]): StaticRouteLine[] {
  const unique = [...new Map(lines.map((l) => [l.line, l])).values()];
  return unique.sort((a, b) => {
    if (a.family !== b.family) return a.family - b.family;
    const n = Math.max(a.sortKey.length, b.sortKey.length);
    for (let i = 0; i < n; i++) {
      const d = (a.sortKey[i] ?? -1) - (b.sortKey[i] ?? -1);
      if (d !== 0) return d;
    }
    return a.line < b.line ? -1 : a.line > b.line ? 1 : 0;
  });
}
