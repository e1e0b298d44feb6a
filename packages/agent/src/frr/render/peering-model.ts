/**
 * BGPPeerings of a NodeConfig as the FRR model renders them (issue #28): each peering one peer-group
 * `pp_<name>` in the BGP instance of its VRF (or the default one), its listen ranges and neighbours
 * members of the group, its filters route-maps `pp4_<name>_<dir>` / `pp6_…` over prefix-lists
 * `pp_<name>_<dir>` (default deny), its BFD settings a profile `pp_<name>`. Every value is checked
 * again against the grammar (invariant 6). Pure.
 */
import {
  isBgpPassword,
  isCommunity,
  isVrfName,
  MAX_BGP_PEERING_NAME_LENGTH,
  parsePrefix,
  deviceNames,
  type NodeBgpPeeringEntry,
  type PrefixItem,
} from '@nodenet/api';
import { FrrRenderError } from '../errors.js';
import type { Direction, Family } from './vocabulary.js';
import type { PrefixLines, SeqLines } from './seq-lines.js';

export interface BfdProfileModel {
  name: string;
  /** Lines inside `profile NAME`, in the order FRR shows them; FRR's defaults left out. */
  lines: string[];
}

export interface PeeringModel {
  name: string;
  /** Peer-group, prefix-list base and BFD profile name: `pp_<name>`. */
  group: string;
  /** VRF device of the BGP instance (`vr.<vrf>`); undefined: the default instance. */
  vrfDevice?: string;
  remoteAS: string;
  ebgpMultihop?: number;
  timers?: { keepalive: number; hold: number };
  bfd?: BfdProfileModel;
  /** TCP-MD5 password of the peer-group (the Secret's value the agent read; never logged). */
  password?: string;
  /** Listen ranges, IPv4 before IPv6 (as FRR lists them). */
  listenRanges: string[];
  /** Neighbour addresses, canonical text, in FRR's order (IPv4 before IPv6, by address). */
  neighbors: string[];
  families: Family[];
  maxPrefixes: Record<Family, number | undefined>;
  /** Prefix-list lines per direction and family, by sequence. */
  lists: Record<Direction, Record<Family, PrefixLines>>;
  /** `set community` / `set large-community` values on import. */
  communities: { standard: string[]; large: string[] };
  /**
   * Routes accepted from the peers carry the well-known community no-advertise, so bgpd announces
   * them to no peer — not the fabric, not EVPN, not the other VRFs — whatever the base template's
   * sessions say (issue #37). False only where the peering says `reannounce`.
   */
  keepLocal: boolean;
}

const NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
/** FRR's BFD defaults: not shown in its running config, so not rendered either. */
const BFD_DEFAULTS = { detectMultiplier: 3, receiveInterval: 300, transmitInterval: 300 };

function refuse(field: string, value: unknown, reason: string): never {
  throw new FrrRenderError(field, value, reason);
}

const isInt = (v: unknown, min: number, max: number): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

export const peeringGroup = (name: string): string => `pp_${name}`;
export const peeringListName = (name: string, dir: Direction): string => `pp_${name}_${dir}`;
export const peeringMapName = (name: string, dir: Direction, family: Family): string =>
  `pp${family}_${name}_${dir}`;

function address(field: string, value: unknown): { text: string; family: Family; bytes: number[] } {
  if (typeof value !== 'string') refuse(field, value, 'must be a string');
  const r = parsePrefix(`${value}/${value.includes(':') ? 128 : 32}`);
  if (!r.ok) refuse(field, value, r.reason);
  const text = r.prefix.address;
  const bytes =
    r.prefix.family === 4 ? text.split('.').map(Number) : expandV6(text).flatMap((h) => [h >> 8, h & 0xff]);
  return { text, family: r.prefix.family, bytes };
}

function expandV6(text: string): number[] {
  const [head, tail] = text.split('::') as [string, string | undefined];
  const h = head ? head.split(':').map((x) => parseInt(x, 16)) : [];
  const t = tail ? tail.split(':').map((x) => parseInt(x, 16)) : [];
  return [...h, ...Array<number>(8 - h.length - t.length).fill(0), ...t];
}

/** FRR's order of neighbours: IPv4 before IPv6, then by address. */
export function compareAddresses(a: string, b: string): number {
  return byAddress(address('a', a), address('b', b));
}

const byAddress = (
  a: { family: Family; bytes: number[] },
  b: { family: Family; bytes: number[] },
): number => {
  if (a.family !== b.family) return a.family - b.family;
  for (let i = 0; i < a.bytes.length; i++) if (a.bytes[i] !== b.bytes[i]) return a.bytes[i]! - b.bytes[i]!;
  return 0;
};

function bfdProfile(
  field: string,
  group: string,
  b: NodeBgpPeeringEntry['bfd'],
): BfdProfileModel | undefined {
  if (b === undefined) return undefined;
  const lines: string[] = [];
  const num = (key: keyof typeof BFD_DEFAULTS, min: number, max: number, keyword: string): void => {
    const v = b[key];
    if (v === undefined) return;
    if (!isInt(v, min, max)) refuse(`${field}.${key}`, v, `must be an integer from ${min} to ${max}`);
    if (v !== BFD_DEFAULTS[key]) lines.push(`${keyword} ${v}`);
  };
  num('detectMultiplier', 2, 255, 'detect-multiplier');
  num('transmitInterval', 10, 60000, 'transmit-interval');
  num('receiveInterval', 10, 60000, 'receive-interval');
  if (b.passiveMode === true) lines.push('passive-mode');
  if (b.echoMode === true) lines.push('echo-mode');
  return { name: group, lines };
}

function remoteAs(field: string, v: unknown): string {
  if (v === 'internal' || v === 'external') return v;
  if (typeof v === 'string' && /^[1-9][0-9]{0,9}$/.test(v) && Number(v) <= 4294967295) return v;
  return refuse(field, v, 'must be an AS number from 1 to 4294967295, internal or external');
}

/** The VRF model's own reading of a prefix list (model.ts), item `j` named `fieldOf(j)` in a refusal. */
type PrefixListRead = (
  items: readonly PrefixItem[],
  fieldOf: (j: number) => string,
) => Record<Family, SeqLines>;

function listenRangesOf(at: string, e: NodeBgpPeeringEntry): { family: Family; text: string }[] {
  return (e.listenRanges ?? []).map((r, j) => {
    const p = typeof r === 'string' ? parsePrefix(r) : undefined;
    if (!p?.ok || p.prefix.address !== p.prefix.network)
      refuse(`${at}.listenRanges[${j}]`, r, 'must be a network prefix');
    return { family: p.prefix.family, text: `${p.prefix.network}/${p.prefix.length}` };
  });
}

function timersOf(at: string, e: NodeBgpPeeringEntry): PeeringModel['timers'] {
  if (e.holdTime === undefined && e.keepaliveTime === undefined) return undefined;
  if (!isInt(e.holdTime, 3, 65535) || !isInt(e.keepaliveTime, 1, 21845) || e.keepaliveTime * 3 > e.holdTime)
    refuse(`${at}.keepaliveTime`, e.keepaliveTime, 'must be set with holdTime and be at most a third of it');
  return { keepalive: e.keepaliveTime, hold: e.holdTime };
}

function maxPrefixesOf(at: string, e: NodeBgpPeeringEntry): Record<Family, number | undefined> {
  const maxPrefixes: Record<Family, number | undefined> = { 4: e.maxPrefixes?.ipv4, 6: e.maxPrefixes?.ipv6 };
  for (const f of [4, 6] as const) {
    const m = maxPrefixes[f];
    if (m !== undefined && !isInt(m, 1, 4294967295))
      refuse(`${at}.maxPrefixes.ipv${f}`, m, 'must be an integer from 1 to 4294967295');
  }
  return maxPrefixes;
}

function listsOf(at: string, e: NodeBgpPeeringEntry, readPrefixList: PrefixListRead): PeeringModel['lists'] {
  const read = (dir: Direction): Record<Family, PrefixLines> => {
    const byFamily = readPrefixList(e[dir] ?? [], (j) => `${at}.${dir}[${j}]`);
    return { 4: byFamily[4].sorted(), 6: byFamily[6].sorted() };
  };
  const imports = read('import');
  return { import: imports, export: read('export') };
}

function communitiesOf(at: string, e: NodeBgpPeeringEntry): PeeringModel['communities'] {
  const communities = { standard: [] as string[], large: [] as string[] };
  (e.importCommunities ?? []).forEach((c, j) => {
    if (typeof c !== 'string' || !isCommunity(c))
      refuse(`${at}.importCommunities[${j}]`, c, 'must be a community');
    (c.split(':').length === 3 ? communities.large : communities.standard).push(c);
  });
  return communities;
}

/** The name is a DNS-1123 name no other peering of the spec uses; the VRF one the spec carries. */
function checkIdentity(
  at: string,
  e: NodeBgpPeeringEntry,
  seen: Set<string>,
  vrfs: ReadonlySet<string>,
): void {
  if (typeof e.name !== 'string' || e.name.length > MAX_BGP_PEERING_NAME_LENGTH || !NAME.test(e.name))
    refuse(
      `${at}.name`,
      e.name,
      `must be a DNS-1123 name of at most ${MAX_BGP_PEERING_NAME_LENGTH} characters`,
    );
  if (seen.has(e.name)) refuse(`${at}.name`, e.name, 'is used by another peering');
  seen.add(e.name);
  if (e.vrf !== undefined && (typeof e.vrf !== 'string' || !isVrfName(e.vrf) || !vrfs.has(e.vrf)))
    refuse(`${at}.vrf`, e.vrf, 'must name a VRF of this config');
}

/**
 * The password of a peering with a reference: the value the agent read for the revision's hash
 * (secrets/password-book.ts), checked against the grammar again. A refusal names the Secret, never a value.
 */
function passwordOf(at: string, e: NodeBgpPeeringEntry, passwords: PasswordLookup): string | undefined {
  if (e.password === undefined) return undefined;
  const value = passwords(e.password.hash);
  if (value === undefined)
    refuse(`${at}.password`, e.password.secret, 'has no password read for this revision (Secret not read)');
  if (!isBgpPassword(value))
    refuse(`${at}.password`, e.password.secret, 'holds a value that is not a TCP-MD5 password FRR takes');
  return value;
}

/** The password read for a revision's hash; undefined when none was. */
export type PasswordLookup = (hash: string) => string | undefined;

/** One peering, checked in field order (its name and VRF checked by the caller). */
function peeringOf(
  at: string,
  e: NodeBgpPeeringEntry,
  readPrefixList: PrefixListRead,
  passwords: PasswordLookup,
): PeeringModel {
  const group = peeringGroup(e.name);
  const ranges = listenRangesOf(at, e);
  const neighbors = (e.neighbors ?? []).map((a, j) => address(`${at}.neighbors[${j}]`, a)).sort(byAddress);
  if (ranges.length === 0 && neighbors.length === 0)
    refuse(`${at}`, e.name, 'has neither a listen range nor a neighbour');
  if (e.ebgpMultihop !== undefined && !isInt(e.ebgpMultihop, 1, 255))
    refuse(`${at}.ebgpMultihop`, e.ebgpMultihop, 'must be an integer from 1 to 255');
  const timers = timersOf(at, e);
  const families = (['ipv4', 'ipv6'] as const)
    .filter((f) => (e.addressFamilies ?? []).includes(f))
    .map((f): Family => (f === 'ipv4' ? 4 : 6));
  const maxPrefixes = maxPrefixesOf(at, e);
  const lists = listsOf(at, e, readPrefixList);
  const communities = communitiesOf(at, e);
  const bfd = bfdProfile(`${at}.bfd`, group, e.bfd);
  const password = passwordOf(at, e, passwords);
  return {
    name: e.name,
    group,
    ...(e.vrf !== undefined ? { vrfDevice: deviceNames.vrf(e.vrf) } : {}),
    remoteAS: remoteAs(`${at}.remoteAS`, e.remoteAS),
    ...(e.ebgpMultihop !== undefined ? { ebgpMultihop: e.ebgpMultihop } : {}),
    ...(timers ? { timers } : {}),
    ...(bfd ? { bfd } : {}),
    ...(password !== undefined ? { password } : {}),
    listenRanges: [...ranges.filter((r) => r.family === 4), ...ranges.filter((r) => r.family === 6)].map(
      (r) => r.text,
    ),
    neighbors: neighbors.map((n) => n.text),
    families,
    maxPrefixes,
    lists,
    communities,
    keepLocal: e.reannounce !== true,
  };
}

/**
 * The peerings of a spec. `readPrefixList` is the VRF model's own reading of a prefix list; `vrfs` the VRFs
 * the spec carries (a peering in another VRF would name a BGP instance nodenet does not render).
 */
export function buildPeerings(
  entries: readonly NodeBgpPeeringEntry[],
  vrfs: ReadonlySet<string>,
  readPrefixList: PrefixListRead,
  passwords: PasswordLookup = () => undefined,
): PeeringModel[] {
  const seen = new Set<string>();
  const out = entries.map((e, i): PeeringModel => {
    const at = `bgpPeering[${i}]`;
    checkIdentity(at, e, seen, vrfs);
    return peeringOf(at, e, readPrefixList, passwords);
  });
  return out.sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
}
