/**
 * The lines of the BGPPeerings (peering-model.ts) in the sections of frr.conf, in the order FRR's
 * `show running-config` shows them, so that frr-reload.py finds nothing to change on a second
 * reload:
 * - inside `router bgp`: per peer-group `peer-group`, `remote-as`, `bfd`, `bfd profile`, `password`,
 *   `ebgp-multihop`, `timers`; then the member neighbours (FRR: every peer-group before any neighbour);
 *   then the listen ranges;
 * - inside each address-family: `activate`, `maximum-prefix`, `route-map … in`, `route-map … out`.
 * BFD is rendered as both `neighbor G bfd` and `neighbor G bfd profile P`: with the profile line
 * alone, FRR shows the implicit `bfd` line too, frr-reload.py then removes it on every reload, and
 * the session flaps (frr-k8s learned this). The profile itself is a `bfd` block.
 */
import type { LineBuilder } from './line-builder.js';
import type { Direction, Family } from './vocabulary.js';
import { compareAddresses, peeringListName, peeringMapName, type PeeringModel } from './peering-model.js';
import { ipKeyword, writePrefixList } from './prefix-list-lines.js';

/** Prefix-list lines of one family (the caller closes the family's group with `!`). */
export function peeringPrefixLists(
  out: LineBuilder,
  peerings: readonly PeeringModel[],
  family: Family,
): void {
  for (const p of peerings) {
    for (const dir of ['import', 'export'] as const) {
      writePrefixList(out, family, peeringListName(p.name, dir), p.lists[dir][family]);
    }
  }
}

/** Route-maps of every peering (an empty list: the deny-all entry), then the BFD profiles. */
export function peeringRouteMaps(
  out: LineBuilder,
  peerings: readonly PeeringModel[],
  denyAllSeq: number,
): void {
  for (const p of peerings) {
    for (const dir of ['import', 'export'] as const) {
      for (const family of [4, 6] as const) routeMap(out, p, { dir, family }, denyAllSeq);
    }
  }
  const profiles = peerings.flatMap((p) => (p.bfd ? [p.bfd] : []));
  if (profiles.length === 0) return;
  out.line('bfd');
  for (const b of profiles) {
    out.line(` profile ${b.name}`);
    for (const l of b.lines) out.line(`  ${l}`);
    out.line(' exit');
    out.line(' !');
  }
  out.line('exit');
  out.line('!');
}

function routeMap(
  out: LineBuilder,
  p: PeeringModel,
  { dir, family }: { dir: Direction; family: Family },
  denyAllSeq: number,
): void {
  const name = peeringMapName(p.name, dir, family);
  if (p.lists[dir][family].length === 0) {
    out.line(`route-map ${name} deny ${denyAllSeq}`);
    out.line('exit');
    out.line('!');
    return;
  }
  out.line(`route-map ${name} permit 10`);
  out.line(` match ${ipKeyword(family)} address prefix-list ${peeringListName(p.name, dir)}`);
  // The outbound guard: no-advertise is honoured by bgpd itself, so it holds for every session of
  // the template too (issue #37).
  const standard =
    dir === 'import' ? [...p.communities.standard, ...(p.keepLocal ? ['no-advertise'] : [])] : [];
  if (standard.length > 0) out.line(` set community ${standard.join(' ')} additive`);
  if (dir === 'import' && p.communities.large.length > 0)
    out.line(` set large-community ${p.communities.large.join(' ')} additive`);
  out.line('exit');
  out.line('!');
}

const inInstance = (peerings: readonly PeeringModel[], vrfDevice: string | undefined): PeeringModel[] =>
  peerings.filter((p) => p.vrfDevice === vrfDevice);

/** The peer-groups of one BGP instance (`vrfDevice` undefined: the default one). */
export function peeringGroups(peerings: readonly PeeringModel[], vrfDevice: string | undefined): string[] {
  const out: string[] = [];
  for (const p of inInstance(peerings, vrfDevice)) {
    const g = `neighbor ${p.group}`;
    out.push(`${g} peer-group`, `${g} remote-as ${p.remoteAS}`);
    if (p.bfd) out.push(`${g} bfd`, `${g} bfd profile ${p.bfd.name}`);
    // FRR shows the password after BFD, before ebgp-multihop and timers (FRR 8.4's running config).
    if (p.password !== undefined) out.push(`${g} password ${p.password}`);
    if (p.ebgpMultihop !== undefined) out.push(`${g} ebgp-multihop ${p.ebgpMultihop}`);
    if (p.timers) out.push(`${g} timers ${p.timers.keepalive} ${p.timers.hold}`);
  }
  return out;
}

/** The member neighbours, every peering's, in FRR's address order. */
export function peeringMembers(peerings: readonly PeeringModel[], vrfDevice: string | undefined): string[] {
  return inInstance(peerings, vrfDevice)
    .flatMap((p) => p.neighbors.map((n) => ({ n, group: p.group })))
    .sort((a, b) => compareAddresses(a.n, b.n))
    .map((m) => `neighbor ${m.n} peer-group ${m.group}`);
}

/** The listen ranges, by peer-group. */
export function peeringListenRanges(
  peerings: readonly PeeringModel[],
  vrfDevice: string | undefined,
): string[] {
  return inInstance(peerings, vrfDevice).flatMap((p) =>
    p.listenRanges.map((r) => `bgp listen range ${r} peer-group ${p.group}`),
  );
}

/**
 * Lines inside `address-family ipvF unicast` of one instance. `ipv4ActivatedByDefault`: the instance
 * activates IPv4 for new peers by itself (then `activate` is not shown, and a peering without IPv4
 * needs `no … activate`).
 */
export function peeringAfLines(
  peerings: readonly PeeringModel[],
  vrfDevice: string | undefined,
  family: Family,
  ipv4ActivatedByDefault: boolean,
): string[] {
  const out: string[] = [];
  const byDefault = family === 4 && ipv4ActivatedByDefault;
  for (const p of inInstance(peerings, vrfDevice)) {
    const g = `neighbor ${p.group}`;
    if (!p.families.includes(family)) {
      if (byDefault) out.push(`no ${g} activate`);
      continue;
    }
    if (!byDefault) out.push(`${g} activate`);
    const max = p.maxPrefixes[family];
    if (max !== undefined) out.push(`${g} maximum-prefix ${max}`);
    out.push(
      `${g} route-map ${peeringMapName(p.name, 'import', family)} in`,
      `${g} route-map ${peeringMapName(p.name, 'export', family)} out`,
    );
  }
  return out;
}
