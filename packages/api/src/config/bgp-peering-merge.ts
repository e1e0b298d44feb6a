/**
 * BGPPeerings in a revision (`mergePeerings`) and on a node (`nodePeerings`): the revision keeps the
 * spec with defaults applied; a node receives each peering that reaches it resolved against the
 * revision (a listen range's subnets and VRF come from its Layer-2 network).
 */
import type { BGPPeering } from '../resources/objects.js';
import {
  BGP_ADDRESS_FAMILIES,
  type BgpPasswordRef,
  type BgpPeeringEntry,
  type NodeBgpPeeringEntry,
} from '../resources/bgp-peering.js';
import { parsePrefix } from '../grammar/prefix.js';
import { DEFAULT_BGP_MAX_PREFIXES } from '../grammar/limits.js';
import type { NetworkConfig, PrefixItem } from '../resources/schema.js';
import { matchesSelector } from './selector.js';

const bySeq = (a: PrefixItem, b: PrefixItem): number => a.seq - b.seq;
const byName = (a: { name: string }, b: { name: string }): number =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

/** A peer address in canonical text (lower-case, compressed IPv6). */
export function normalizeAddress(address: string): string {
  const host = address.includes(':') ? 128 : 32;
  const p = parsePrefix(`${address}/${host}`);
  return p.ok ? p.prefix.address : address;
}

/** The subnet of a gateway address (`10.0.0.1/24` → `10.0.0.0/24`). */
function subnetOf(gateway: string): string {
  const p = parsePrefix(gateway);
  return p.ok ? `${p.prefix.network}/${p.prefix.length}` : gateway;
}

/** The resolved password reference of a peering's spec (bgp-password.ts), with its keys in order. */
function passwordOf(spec: object): BgpPasswordRef | undefined {
  const p = (spec as { password?: BgpPasswordRef }).password;
  return p === undefined ? undefined : { hash: p.hash, key: p.key, secret: p.secret };
}

const isEmpty = (sel: { matchLabels?: object; matchExpressions?: unknown[] } | undefined): boolean =>
  sel === undefined ||
  (Object.keys(sel.matchLabels ?? {}).length === 0 && (sel.matchExpressions ?? []).length === 0);

export function mergePeerings(
  peerings: readonly BGPPeering[],
  prefixItem: (p: PrefixItem) => PrefixItem,
): BgpPeeringEntry[] {
  return peerings
    .map((o): BgpPeeringEntry => {
      const s = o.spec;
      const families = new Set(s.addressFamilies ?? BGP_ADDRESS_FAMILIES);
      // Keys in sorted order: canonicalJson then hashes without copying.
      return {
        addressFamilies: BGP_ADDRESS_FAMILIES.filter((f) => families.has(f)),
        ...(s.bfd !== undefined ? { bfd: s.bfd } : {}),
        export: (s.export ?? []).map(prefixItem).sort(bySeq),
        ...(s.holdTime !== undefined ? { holdTime: s.holdTime } : {}),
        import: (s.import ?? []).map(prefixItem).sort(bySeq),
        importCommunities: [...new Set(s.importCommunities ?? [])].sort(),
        ...(s.keepaliveTime !== undefined ? { keepaliveTime: s.keepaliveTime } : {}),
        ...(s.listenRange !== undefined ? { listenRange: { layer2: s.listenRange.layer2 } } : {}),
        // Always a limit: a peer may not push any number of routes (issue #37).
        maxPrefixes: {
          ipv4: s.maxPrefixes?.ipv4 ?? DEFAULT_BGP_MAX_PREFIXES,
          ipv6: s.maxPrefixes?.ipv6 ?? DEFAULT_BGP_MAX_PREFIXES,
        },
        name: o.metadata.name,
        ...(s.neighbor !== undefined
          ? {
              neighbor: {
                addresses: [...new Set(s.neighbor.addresses.map(normalizeAddress))].sort(),
                ...(s.neighbor.ebgpMultihop !== undefined ? { ebgpMultihop: s.neighbor.ebgpMultihop } : {}),
                ...(s.neighbor.vrf !== undefined ? { vrf: s.neighbor.vrf } : {}),
              },
            }
          : {}),
        ...(s.nodeSelector !== undefined && !isEmpty(s.nodeSelector) ? { nodeSelector: s.nodeSelector } : {}),
        // Set only by resolvePeeringPasswords (bgp-password.ts), or the held-back entry's own.
        ...(passwordOf(s) !== undefined ? { password: passwordOf(s) } : {}),
        ...(s.owner !== undefined ? { owner: s.owner } : {}),
        ...(s.reannounce === true ? { reannounce: true } : {}),
        ...(s.remoteAS !== undefined ? { remoteAS: s.remoteAS } : {}),
        ...(s.remoteASN !== undefined ? { remoteASN: s.remoteASN } : {}),
      };
    })
    .sort(byName);
}

/**
 * The peerings that reach a node with these labels: its own selector must match, and a listen
 * range's Layer-2 network must reach the node too (else the node has no gateway to listen on).
 * A VRF the node does not carry takes its peerings with it.
 */
export function nodePeerings(
  config: NetworkConfig,
  nodeLabels: Record<string, string>,
  nodeVrfs: ReadonlySet<string>,
): NodeBgpPeeringEntry[] {
  const out: NodeBgpPeeringEntry[] = [];
  for (const p of config.bgpPeering ?? []) {
    if (!matchesSelector(p.nodeSelector, nodeLabels)) continue;
    let vrf: string | undefined;
    let listenRanges: string[] = [];
    if (p.listenRange !== undefined) {
      const l2 = config.layer2.find((e) => e.name === p.listenRange!.layer2);
      if (!l2 || !matchesSelector(l2.nodeSelector, nodeLabels)) continue;
      vrf = l2.vrf;
      listenRanges = [...new Set(l2.anycastGateways.map(subnetOf))].sort();
      if (listenRanges.length === 0) continue;
    } else vrf = p.neighbor?.vrf;
    if (vrf !== undefined && !nodeVrfs.has(vrf)) continue;
    out.push({
      addressFamilies: p.addressFamilies,
      ...(p.bfd !== undefined ? { bfd: p.bfd } : {}),
      ...(p.neighbor?.ebgpMultihop !== undefined ? { ebgpMultihop: p.neighbor.ebgpMultihop } : {}),
      export: p.export,
      ...(p.holdTime !== undefined ? { holdTime: p.holdTime } : {}),
      import: p.import,
      importCommunities: p.importCommunities,
      ...(p.keepaliveTime !== undefined ? { keepaliveTime: p.keepaliveTime } : {}),
      listenRanges,
      ...(p.maxPrefixes !== undefined ? { maxPrefixes: p.maxPrefixes } : {}),
      name: p.name,
      neighbors: p.neighbor?.addresses ?? [],
      ...(p.password !== undefined ? { password: p.password } : {}),
      ...(p.reannounce === true ? { reannounce: true } : {}),
      remoteAS: p.remoteASN !== undefined ? String(p.remoteASN) : (p.remoteAS ?? 'external'),
      ...(vrf !== undefined ? { vrf } : {}),
    });
  }
  return out;
}
