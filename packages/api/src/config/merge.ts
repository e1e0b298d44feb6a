/**
 * Merging the input objects into the one configuration a revision carries. Defaults are applied and
 * every list whose order carries no meaning is sorted, so the canonical hash depends only on what the
 * inputs mean: the same objects in any order, with keys in any order, hash the same.
 */
import { canonicalJson, sha256Hex } from './canonical.js';
import { normalizeAddress, normalizePrefix } from '../grammar/prefix.js';
import type {
  AgentConfiguration,
  InputObject,
  Inputs,
  Layer2NetworkConfiguration,
  VRFRouteConfiguration,
} from '../resources/objects.js';
import { mergePeerings } from './bgp-peering-merge.js';
import type {
  Layer2Entry,
  NetworkConfig,
  PrefixItem,
  RoutingTableEntry,
  VrfEntry,
} from '../resources/schema.js';
import type { Loopback, StaticRoute } from '../resources/vrf-extras.js';
import type { PeeringPolicy } from '../resources/peering-policy.js';
import type { AgentConfigEntry } from '../resources/agent-configuration.js';

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
  const vrf: VrfEntry[] = inputs.vrf.map((o) => cachedEntry(o, vrfEntry)).sort(byName);
  const layer2: Layer2Entry[] = inputs.layer2.map((o) => cachedEntry(o, layer2Entry)).sort(byName);
  const routingTable: RoutingTableEntry[] = inputs.routingTable
    .map((o) => ({ name: o.metadata.name, tableId: o.spec.tableId }))
    .sort(byName);
  const bgpPeering = mergePeerings(inputs.bgpPeering ?? [], prefixItem);
  const agentConfig = (inputs.agentConfiguration ?? [])
    .map((o) => cachedEntry(o, agentConfigEntry))
    .sort(byName);
  // Absent when there are none: a config without peerings (or agent configurations) hashes as it
  // did before they existed.
  return {
    ...(agentConfig.length > 0 ? { agentConfig } : {}),
    ...(bgpPeering.length > 0 ? { bgpPeering } : {}),
    layer2,
    routingTable,
    vrf,
  };
}

/** The template as written (every byte reaches FRR as is); the health checks as given. */
function agentConfigEntry(o: AgentConfiguration): AgentConfigEntry {
  const s = o.spec;
  return {
    frrTemplate: s.frrTemplate,
    ...(s.healthChecks !== undefined ? { healthChecks: s.healthChecks } : {}),
    name: o.metadata.name,
    ...(s.nodeSelector !== undefined && !isEmptySelector(s.nodeSelector)
      ? { nodeSelector: s.nodeSelector }
      : {}),
  };
}

function vrfEntry(o: VRFRouteConfiguration): VrfEntry {
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
    ...(s.peering !== undefined && !isEmptyPolicy(s.peering) ? { peering: peeringPolicy(s.peering) } : {}),
    ...(s.routeTarget !== undefined ? { routeTarget: s.routeTarget } : {}),
    seq: s.seq,
    ...((s.staticRoutes ?? []).length > 0 ? { staticRoutes: mergedStaticRoutes(s.staticRoutes ?? []) } : {}),
    vni: s.vni,
    vrf: s.vrf,
  };
}

function layer2Entry(o: Layer2NetworkConfiguration): Layer2Entry {
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
    ...(s.peering !== undefined && !isEmptyPolicy(s.peering) ? { peering: peeringPolicy(s.peering) } : {}),
    vni: s.vni,
    ...(s.vrf !== undefined ? { vrf: s.vrf } : {}),
  };
}

/** Only what is allowed, keys sorted: a `false` or an empty list says the same as an absent field. */
const peeringPolicy = (p: PeeringPolicy): PeeringPolicy => ({
  ...((p.admit ?? []).length > 0 ? { admit: [...new Set(p.admit)].sort() } : {}),
  ...(p.defaultRoute === true ? { defaultRoute: true } : {}),
  ...(p.defaultVrf === true ? { defaultVrf: true } : {}),
});
const isEmptyPolicy = (p: PeeringPolicy): boolean => Object.keys(peeringPolicy(p)).length === 0;

/**
 * Entries merged from objects of the API server, by their spec: an object with the same uid and
 * resourceVersion has the same spec (the rule validate.ts keeps verdicts by), so a rebuild reuses
 * the entry of every unchanged input, and its canonical JSON (configJson). Entries, like the
 * configs that hold them, are never changed after they are made.
 */
const mergedEntries = new WeakMap<
  object,
  { kind: string; name: string; uid: string; resourceVersion: string; entry: object }
>();
/** The canonical JSON of each cached entry, written once. */
const entryJson = new WeakMap<object, string>();

function cachedEntry<O extends InputObject, E extends object>(o: O, merge: (o: O) => E): E {
  const { uid, resourceVersion, name } = o.metadata;
  const spec: unknown = o.spec;
  if (uid === undefined || resourceVersion === undefined || typeof spec !== 'object' || spec === null)
    return merge(o);
  // Compared field by field: no key string per object per build.
  const hit = mergedEntries.get(spec);
  if (hit?.uid === uid && hit.resourceVersion === resourceVersion && hit.name === name && hit.kind === o.kind)
    return hit.entry as E;
  const entry = merge(o);
  mergedEntries.set(spec, { kind: o.kind, name, uid, resourceVersion, entry });
  entryJson.set(entry, canonicalJson(entry));
  return entry;
}

/**
 * canonicalJson(config), written from the canonical JSON of each list entry: the top-level keys
 * sorted, each list as its entries' JSON joined by commas (what JSON.stringify writes for an
 * array), cached entries taken from entryJson. The hash stays that of canonicalJson (hash tests).
 */
function configJson(config: NetworkConfig): string {
  const members: string[] = [];
  const record = config as unknown as Record<string, unknown>;
  for (const k of Object.keys(record).sort()) {
    const v = record[k];
    if (v === undefined) continue;
    const json = Array.isArray(v)
      ? `[${v.map((e: unknown) => (typeof e === 'object' && e !== null ? entryJson.get(e) : undefined) ?? canonicalJson(e)).join(',')}]`
      : canonicalJson(v);
    members.push(`${JSON.stringify(k)}:${json}`);
  }
  return `{${members.join(',')}}`;
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

/**
 * Merge and hash in one step: what the configurator needs to decide whether a revision is new.
 * `bytes` is the UTF-8 length of the JSON hashed, which is the length of JSON.stringify(config)
 * too (the two differ only in the order of keys), so the size budget needs no second writing.
 */
export function buildConfig(inputs: Inputs): { config: NetworkConfig; hash: string; bytes: number } {
  const config = mergeInputs(inputs);
  const json = configJson(config);
  return { config, hash: sha256Hex(json), bytes: Buffer.byteLength(json) };
}
