/**
 * From a NodeConfig spec to the FRR model the sections are rendered from: entries grouped per VRF,
 * prefixes split per address family, every value re-checked against the strict grammar (invariant 6:
 * defence in depth — upstream validation should already have refused all of this). Pure.
 */
import {
  deviceNames,
  isCommunity,
  isRouteTarget,
  isVrfName,
  MAX_IFNAME_LENGTH,
  parsePrefix,
  VNI_MAX,
  type NodeConfigSpec,
  type PrefixItem,
} from '@nodenet/api';
import { FrrRenderError } from '../errors.js';
import type { Direction, Family } from './vocabulary.js';
import { addLoopbackLines } from './loopback-lines.js';
import { SeqLines, type PrefixLines } from './seq-lines.js';
import { sortStaticRoutes, staticRouteLines, type StaticRouteLine } from './static-routes.js';
import { buildPeerings, type PasswordLookup, type PeeringModel } from './peering-model.js';

/** Node-level values that are not part of the NodeConfig: they come from the agent's settings. */
export interface FrrNodeSettings {
  /** Local BGP autonomous system number (1–4294967295). */
  asn: number;
  /** BGP router id of the default instance (the template's `{{ router_id }}`), IPv4 dotted-quad. */
  routerId: string;
  /**
   * BGP router id of the per-VRF instances (`router bgp ASN vrf …`), IPv4 dotted-quad; required when
   * the config has VRFs, and must differ from `routerId` (routing-table instances, which have no
   * session, fall back to `routerId`). The leaking session
   * between the default instance and a VRF instance is iBGP, and FRR refuses an iBGP peer whose
   * router id equals its own (RFC 6286: OPEN Message Error / Bad BGP Identifier), so with one id
   * for both the session never leaves Idle. It also makes the automatic EVPN route distinguisher of
   * the VRF (`<id>:<n>`), so it must be unique per node: the VTEP address is the usual choice
   * (das-schiff does the same), with a node address as `routerId`.
   */
  vrfRouterId?: string;
  /**
   * The BGP passwords the agent read, by the revision's hash (secrets/password-book.ts); a hash
   * names one value, so a render stays a function of the spec. Absent: a peering with a password
   * is refused.
   */
  passwords?: PasswordLookup;
}

/** One VrfEntry's part of a route-map: its items of one family and direction. */
export interface RouteMapEntry {
  /** Route-map sequence (the entry's `seq`). */
  seq: number;
  /** Prefix-list lines, ordered by their sequence (the spec's items: seq-lines.ts says why). */
  lines: PrefixLines;
  /** Set on exported routes only. */
  community?: string;
}

export interface VrfModel {
  /** VRF name as in the spec (`red`); the device is `vr.red`. */
  name: string;
  device: string;
  /** Device name of the veth end in the default VRF (`vd.<vrf>`). */
  toVrfPort: string;
  /** Device name of the veth end in the VRF (`dv.<vrf>`). */
  toDefaultPort: string;
  vni: number;
  routeTargets: string[];
  aggregates: Record<Family, string[]>;
  /** route-map entries per direction and family, ordered by seq. */
  maps: Record<Direction, Record<Family, RouteMapEntry[]>>;
  /** staticd lines of the VRF's static routes, in FRR's order (static-routes.ts). */
  staticRoutes: StaticRouteLine[];
}

export interface FrrModel {
  asn: number;
  routerId: string;
  /** Router id of the `router bgp ASN vrf …` instances (set whenever there is one). */
  vrfRouterId: string;
  vrfs: VrfModel[];
  /** VRF device names of the routing tables (`taas.<id>`), ordered by table id. */
  routingTables: string[];
  /** BGPPeerings (peering-model.ts), by peer-group name. */
  peerings: PeeringModel[];
}

const isInt = (v: unknown, min: number, max: number): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

function refuse(field: string, value: unknown, reason: string): never {
  throw new FrrRenderError(field, value, reason);
}

function checkRouterId(field: string, value: unknown): void {
  const rid = typeof value === 'string' ? parsePrefix(`${value}/32`) : undefined;
  if (!rid?.ok || rid.prefix.family !== 4)
    refuse(field, value, 'must be an IPv4 address in dotted-quad notation');
}

function checkSettings(s: FrrNodeSettings): void {
  if (!isInt(s.asn, 1, 4294967295)) refuse('settings.asn', s.asn, 'must be an integer from 1 to 4294967295');
  checkRouterId('settings.routerId', s.routerId);
  if (s.vrfRouterId !== undefined) checkRouterId('settings.vrfRouterId', s.vrfRouterId);
}

/** The VRF instances' router id; see FrrNodeSettings.vrfRouterId for why it must differ. */
function vrfRouterId(s: FrrNodeSettings, needed: boolean): string {
  if (!needed) return s.vrfRouterId ?? s.routerId;
  if (s.vrfRouterId === undefined) {
    refuse(
      'settings.vrfRouterId',
      undefined,
      'is required when the config has VRFs (a router id for the per-VRF BGP instances, different from settings.routerId)',
    );
  }
  if (s.vrfRouterId === s.routerId) {
    refuse(
      'settings.vrfRouterId',
      s.vrfRouterId,
      'must differ from settings.routerId: FRR refuses the iBGP leaking session between the default and the VRF instance when both use one router id (Bad BGP Identifier)',
    );
  }
  return s.vrfRouterId;
}

/** A checked network prefix: its family and range limits, and its canonical text. */
interface Network {
  family: Family;
  length: number;
  max: number;
  text: string;
}

// Checked network prefixes by their text as written, or why a text is not one: one lookup per
// prefix item (40,000 at 200 VRFs), no parse and no allocation. Bounded like parsePrefix's cache.
const networks = new Map<string, Network | string>();
const MAX_NETWORKS = 100_000;

function checkNetwork(text: string): Network | string {
  const r = parsePrefix(text);
  if (!r.ok) return r.reason;
  const p = r.prefix;
  if (p.address !== p.network) return `has host bits set; the network is ${p.network}/${p.length}`;
  return { family: p.family, length: p.length, max: p.max, text: `${p.network}/${p.length}` };
}

/** Names a list item's field (`vrf[3].export[7]`), built only when a refusal needs it. */
type FieldOf = (j: number) => string;

/** A network prefix (host bits clear); refuses anything else, naming field `fieldOf(j)`. */
function networkPrefix(value: unknown, fieldOf: FieldOf, j: number): Network {
  if (typeof value !== 'string') refuse(fieldOf(j), value, 'must be a string');
  let network = networks.get(value);
  if (network === undefined) {
    if (networks.size >= MAX_NETWORKS) networks.clear();
    networks.set(value, (network = checkNetwork(value)));
  }
  if (typeof network === 'string') refuse(fieldOf(j), value, network);
  return network;
}

/** Checks item `j` of a prefix list, its network checked already; its field is named only for a refusal. */
function checkPrefixItem(item: PrefixItem, n: Network, fieldOf: FieldOf, j: number): void {
  if (!isInt(item.seq, 1, 4294967295))
    refuse(`${fieldOf(j)}.seq`, item.seq, 'must be an integer from 1 to 4294967295');
  const action = item.action ?? 'permit';
  if (action !== 'permit' && action !== 'deny')
    refuse(`${fieldOf(j)}.action`, item.action, 'must be permit or deny');
  // FRR's own rule for ranges: length < ge <= le <= family maximum.
  if (item.ge !== undefined) {
    if (!isInt(item.ge, n.length + 1, n.max)) {
      refuse(
        `${fieldOf(j)}.ge`,
        item.ge,
        `must be an integer greater than the prefix length ${n.length} and at most ${n.max}`,
      );
    }
  }
  if (item.le !== undefined) {
    const min = Math.max(n.length, item.ge ?? 0);
    if (!isInt(item.le, min, n.max))
      refuse(`${fieldOf(j)}.le`, item.le, `must be an integer from ${min} to ${n.max}`);
  }
}

/**
 * A prefix list's items checked and split by family, item `j` named `fieldOf(j)` in a refusal. Runs
 * for every item (40,000 at 200 VRFs), so an item creates nothing: its line is the item itself.
 */
function readPrefixList(items: readonly PrefixItem[], fieldOf: FieldOf): Record<Family, SeqLines> {
  const lists: Record<Family, SeqLines> = { 4: new SeqLines(), 6: new SeqLines() };
  const cidrOf: FieldOf = (j) => `${fieldOf(j)}.cidr`;
  for (let j = 0; j < items.length; j++) {
    const item = items[j]!;
    const n = networkPrefix(item.cidr, cidrOf, j);
    // The same name carries both families (FRR keeps ip and ipv6 prefix-lists apart), so a
    // sequence number only has to be unique within a family.
    checkPrefixItem(item, n, fieldOf, j);
    if (!lists[n.family].add(item, n.text))
      refuse(`${fieldOf(j)}.seq`, item.seq, `is used twice in this IPv${n.family} list`);
  }
  return lists;
}

const emptyMaps = (): Record<Direction, Record<Family, RouteMapEntry[]>> => ({
  import: { 4: [], 6: [] },
  export: { 4: [], 6: [] },
});

type VrfSpecEntry = NodeConfigSpec['vrf'][number];

/** One VRF while its entries are read: the model and the sets its sorted lists are made from. */
interface VrfParts {
  vrf: VrfModel;
  seqs: Set<number>;
  aggregates: Record<Family, Set<string>>;
  routeTargets: Set<string>;
}

/** The entry's own fields: VRF name (and the device names it makes), VNI, seq, route target, community. */
function checkEntry(entry: VrfSpecEntry, at: string): void {
  if (typeof entry.vrf !== 'string' || !isVrfName(entry.vrf)) {
    refuse(`${at}.vrf`, entry.vrf, 'must be 1-12 characters of [A-Za-z0-9_-]');
  }
  const devices = [
    deviceNames.vrf(entry.vrf),
    deviceNames.vrfToDefault(entry.vrf),
    deviceNames.defaultToVrf(entry.vrf),
  ];
  for (const dev of devices) {
    if (dev.length > MAX_IFNAME_LENGTH)
      refuse(`${at}.vrf`, entry.vrf, `makes device name ${dev} longer than 15`);
  }
  if (!isInt(entry.vni, 1, VNI_MAX))
    refuse(`${at}.vni`, entry.vni, `must be an integer from 1 to ${VNI_MAX}`);
  if (!isInt(entry.seq, 1, 65534)) refuse(`${at}.seq`, entry.seq, 'must be an integer from 1 to 65534');
  if (
    entry.routeTarget !== undefined &&
    (typeof entry.routeTarget !== 'string' || !isRouteTarget(entry.routeTarget))
  ) {
    refuse(`${at}.routeTarget`, entry.routeTarget, 'must be a route target ASN:NN or IPv4:NN');
  }
  if (
    entry.community !== undefined &&
    (typeof entry.community !== 'string' || !isCommunity(entry.community))
  ) {
    refuse(
      `${at}.community`,
      entry.community,
      'must be a community AA:NN, a large community A:B:C or a well-known name',
    );
  }
}

/** The VRF an entry belongs to, created at its first entry; later entries must carry its VNI. */
function vrfOf(byVrf: Map<string, VrfParts>, entry: VrfSpecEntry, at: string): VrfParts {
  const known = byVrf.get(entry.vrf);
  if (known) {
    if (known.vrf.vni !== entry.vni)
      refuse(
        `${at}.vni`,
        entry.vni,
        `conflicts with VNI ${known.vrf.vni} of another entry for VRF ${entry.vrf}`,
      );
    return known;
  }
  const parts: VrfParts = {
    vrf: {
      name: entry.vrf,
      device: deviceNames.vrf(entry.vrf),
      toVrfPort: deviceNames.vrfToDefault(entry.vrf),
      toDefaultPort: deviceNames.defaultToVrf(entry.vrf),
      vni: entry.vni,
      routeTargets: [],
      aggregates: { 4: [], 6: [] },
      maps: emptyMaps(),
      staticRoutes: [],
    },
    seqs: new Set(),
    aggregates: { 4: new Set(), 6: new Set() },
    routeTargets: new Set(),
  };
  byVrf.set(entry.vrf, parts);
  return parts;
}

/** The entry's import and export items as route-map entries of its VRF, per family. */
function addEntryMaps(vrf: VrfModel, entry: VrfSpecEntry, at: string): void {
  for (const dir of ['import', 'export'] as const) {
    const perFamily = readPrefixList(entry[dir] ?? [], (j) => `${at}.${dir}[${j}]`);
    if (dir === 'export') addLoopbackLines(at, entry.loopbackAddresses, perFamily);
    for (const family of [4, 6] as const) {
      if (perFamily[family].length === 0) continue;
      const e: RouteMapEntry = { seq: entry.seq, lines: perFamily[family].sorted() };
      if (dir === 'export' && entry.community !== undefined) e.community = entry.community;
      vrf.maps[dir][family].push(e);
    }
  }
}

/** Read one entry into its VRF (checked first). */
function addEntry(byVrf: Map<string, VrfParts>, entry: VrfSpecEntry, at: string): void {
  checkEntry(entry, at);
  const parts = vrfOf(byVrf, entry, at);
  if (parts.seqs.has(entry.seq))
    refuse(`${at}.seq`, entry.seq, `is used by another entry for VRF ${entry.vrf}`);
  parts.seqs.add(entry.seq);
  if (entry.routeTarget !== undefined) parts.routeTargets.add(entry.routeTarget);
  parts.vrf.staticRoutes.push(...staticRouteLines(at, entry.staticRoutes));
  const aggregates = entry.aggregate ?? [];
  for (let j = 0; j < aggregates.length; j++) {
    const n = networkPrefix(aggregates[j], (k) => `${at}.aggregate[${k}]`, j);
    parts.aggregates[n.family].add(n.text);
  }
  addEntryMaps(parts.vrf, entry, at);
}

/** The VRF with its lists in the order they are rendered. */
function finishVrf(parts: VrfParts): VrfModel {
  const vrf = parts.vrf;
  vrf.routeTargets = [...parts.routeTargets].sort();
  vrf.aggregates = { 4: [...parts.aggregates[4]].sort(), 6: [...parts.aggregates[6]].sort() };
  vrf.staticRoutes = sortStaticRoutes(vrf.staticRoutes);
  for (const dir of ['import', 'export'] as const) {
    for (const family of [4, 6] as const) vrf.maps[dir][family].sort((a, b) => a.seq - b.seq);
  }
  return vrf;
}

/** The routing tables' VRF devices, by table id. */
function routingTableDevices(tables: NodeConfigSpec['routingTable']): string[] {
  const ids = new Set<number>();
  (tables ?? []).forEach((t, i) => {
    if (!isInt(t.tableId, 1, 4294967295))
      refuse(`routingTable[${i}].tableId`, t.tableId, 'must be an integer from 1 to 4294967295');
    ids.add(t.tableId);
  });
  return [...ids].sort((a, b) => a - b).map((id) => deviceNames.routingTable(id));
}

/**
 * Check every value and group the spec into the per-VRF model. Throws FrrRenderError. The model
 * refers to the spec's prefix items (seq-lines.ts): render it before the spec changes.
 */
export function buildModel(
  spec: Pick<NodeConfigSpec, 'vrf' | 'routingTable' | 'bgpPeering'>,
  settings: FrrNodeSettings,
): FrrModel {
  checkSettings(settings);
  const byVrf = new Map<string, VrfParts>();
  (spec.vrf ?? []).forEach((entry, i) => addEntry(byVrf, entry, `vrf[${i}]`));
  const vrfs = [...byVrf.values()]
    .map(finishVrf)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const routingTables = routingTableDevices(spec.routingTable);
  return {
    asn: settings.asn,
    routerId: settings.routerId,
    vrfRouterId: vrfRouterId(settings, vrfs.length > 0),
    vrfs,
    routingTables,
    peerings: buildPeerings(spec.bgpPeering ?? [], new Set(byVrf.keys()), readPrefixList, settings.passwords),
  };
}
