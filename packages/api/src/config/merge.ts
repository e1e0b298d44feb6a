/**
 * Merging the input objects into the one configuration a revision carries. Defaults are applied and
 * every list whose order carries no meaning is sorted, so the canonical hash depends only on what the
 * inputs mean: the same objects in any order, with keys in any order, hash the same.
 */
import { hashConfig } from './canonical.js';
import { normalizeAddress, normalizePrefix } from '../grammar/prefix.js';
import type { Inputs } from '../resources/objects.js';
import { mergePeerings } from './bgp-peering-merge.js';
import type {
  Layer2Entry,
  NetworkConfig,
  PrefixItem,
  RoutingTableEntry,
  VrfEntry,
} from '../resources/schema.js';
import type { Loopback, StaticRoute } from '../resources/vrf-extras.js';

const byName = <T extends { name: string }>(a: T, b: T): number =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
const bySeq = (a: PrefixItem, b: PrefixItem): number => a.seq - b.seq;
const sortedPrefixes = (xs: readonly string[] | undefined): string[] =>
  (xs ?? []).map(normalizePrefix).sort();

const prefixItem = (p: PrefixItem): PrefixItem => ({
  action: p.action ?? 'permit',
  cidr: normalizePrefix(p.cidr),
  ...(p.ge !== undefined ? { ge: p.ge } : {}),
  ...(p.le !== undefined ? { le: p.le } : {}),
  seq: p.seq,
});

export function mergeInputs(inputs: Inputs): NetworkConfig {
  const vrf: VrfEntry[] = inputs.vrf
    .map((o) => {
      const s = o.spec;
      // Keys in sorted order here and below: canonicalJson then hashes without copying.
      return {
        aggregate: sortedPrefixes(s.aggregate),
        ...(s.community !== undefined ? { community: s.community } : {}),
        export: (s.export ?? []).map(prefixItem).sort(bySeq),
        import: (s.import ?? []).map(prefixItem).sort(bySeq),
        ...((s.loopbacks ?? []).length > 0 ? { loopbacks: mergedLoopbacks(s.loopbacks ?? []) } : {}),
        mtu: s.mtu ?? 9000,
        name: o.metadata.name,
        ...(s.nodeSelector !== undefined && !isEmptySelector(s.nodeSelector)
          ? { nodeSelector: s.nodeSelector }
          : {}),
        ...(s.routeTarget !== undefined ? { routeTarget: s.routeTarget } : {}),
        seq: s.seq,
        ...((s.staticRoutes ?? []).length > 0
          ? { staticRoutes: mergedStaticRoutes(s.staticRoutes ?? []) }
          : {}),
        vni: s.vni,
        vrf: s.vrf,
      };
    })
    .sort(byName);
  const layer2: Layer2Entry[] = inputs.layer2
    .map((o) => {
      const s = o.spec;
      return {
        advertiseNeighbors: s.advertiseNeighbors ?? false,
        anycastGateways: sortedPrefixes(s.anycastGateways),
        ...(s.anycastMac !== undefined ? { anycastMac: s.anycastMac.toLowerCase() } : {}),
        createMacVLANInterface: s.createMacVLANInterface ?? false,
        id: s.id,
        mtu: s.mtu ?? 1500,
        name: o.metadata.name,
        neighSuppression: s.neighSuppression ?? false,
        ...(s.nodeSelector !== undefined && !isEmptySelector(s.nodeSelector)
          ? { nodeSelector: s.nodeSelector }
          : {}),
        vni: s.vni,
        ...(s.vrf !== undefined ? { vrf: s.vrf } : {}),
      };
    })
    .sort(byName);
  const routingTable: RoutingTableEntry[] = inputs.routingTable
    .map((o) => ({ name: o.metadata.name, tableId: o.spec.tableId }))
    .sort(byName);
  const bgpPeering = mergePeerings(inputs.bgpPeering ?? [], prefixItem);
  // Absent when there are none: a config without peerings hashes as it did before they existed.
  return { ...(bgpPeering.length > 0 ? { bgpPeering } : {}), layer2, routingTable, vrf };
}

/** Loopbacks by name, subnets in canonical text. */
const mergedLoopbacks = (xs: readonly Loopback[]): Loopback[] =>
  xs.map((l) => ({ name: l.name, subnet: normalizePrefix(l.subnet) })).sort(byName);

/** Static routes in canonical text, sorted: their order carries no meaning. */
function mergedStaticRoutes(xs: readonly StaticRoute[]): StaticRoute[] {
  const key = (r: StaticRoute): string => `${r.prefix} ${r.nextHopVRF ?? ''} ${r.nextHop ?? ''}`;
  return xs
    .map((r) => ({
      ...(r.nextHop !== undefined ? { nextHop: normalizeAddress(r.nextHop) } : {}),
      ...(r.nextHopVRF !== undefined ? { nextHopVRF: r.nextHopVRF } : {}),
      ...(r.onlink === true ? { onlink: true } : {}),
      prefix: normalizePrefix(r.prefix),
    }))
    .sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

function isEmptySelector(sel: {
  matchLabels?: Record<string, string>;
  matchExpressions?: unknown[];
}): boolean {
  return Object.keys(sel.matchLabels ?? {}).length === 0 && (sel.matchExpressions ?? []).length === 0;
}

/** Merge and hash in one step: what the configurator needs to decide whether a revision is new. */
export function buildConfig(inputs: Inputs): { config: NetworkConfig; hash: string } {
  const config = mergeInputs(inputs);
  return { config, hash: hashConfig(config) };
}
