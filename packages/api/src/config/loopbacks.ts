/**
 * Per-node loopback addresses (pure): the allocation a revision carries, derived from the previous
 * revision's allocation, the VRF entries' loopbacks and the Nodes that exist. A revision holds the
 * whole allocation (`config.loopbackAddresses`), so a revision alone reproduces every node's config,
 * and the configurator needs no state of its own: a restart or a new leader derives the same
 * answer from the newest revision.
 *
 * Rules: an address stays with its node as long as the Node exists, the entry selects it and the
 * address is inside the loopback's subnet (NotReady changes nothing: only a deleted Node frees its
 * address); a node without one gets the lowest free address of the subnet (nodes in name order);
 * no address is ever given to two nodes of one loopback. A node that finds the subnet exhausted gets
 * none and is reported.
 */
import ipaddr from 'ipaddr.js';
import { parsePrefix } from '../grammar/prefix.js';
import { matchesSelector } from './selector.js';
import { hashConfig } from './canonical.js';
import type { NetworkConfig, VrfEntry } from '../resources/schema.js';
import type { LoopbackAddress } from '../resources/vrf-extras.js';

export interface AllocationNode {
  name: string;
  labels: Record<string, string>;
}

export interface LoopbackShortage {
  /** Name of the VRFRouteConfiguration (the entry). */
  entry: string;
  vrf: string;
  loopback: string;
  subnet: string;
  /** Nodes left without an address, in name order. */
  nodes: string[];
}

export interface LoopbackAllocationResult {
  /** Sorted by entry, loopback, node. */
  addresses: LoopbackAddress[];
  shortages: LoopbackShortage[];
}

const key = (entry: string, loopback: string): string => `${entry}\u0000${loopback}`;

/** The first usable address of the subnet as a bigint, and how many there are. */
function usableRange(subnet: string): { first: bigint; count: bigint; family: 4 | 6 } | undefined {
  const r = parsePrefix(subnet);
  if (!r.ok) return undefined;
  const { family, length, max, network } = r.prefix;
  const size = 1n << BigInt(max - length);
  const base = toBigInt(network);
  // IPv4 below /31: not the network and broadcast address; IPv6 below /127: not the subnet-router
  // anycast address (the network address). Smaller subnets use every address.
  const skipFirst = length < max - 1 ? 1n : 0n;
  const skipLast = family === 4 && length < 31 ? 1n : 0n;
  return { first: base + skipFirst, count: size - skipFirst - skipLast, family };
}

function toBigInt(address: string): bigint {
  return ipaddr
    .parse(address)
    .toByteArray()
    .reduce((n, b) => (n << 8n) | BigInt(b), 0n);
}

function fromBigInt(n: bigint, family: 4 | 6): string {
  const bytes: number[] = [];
  for (let i = 0; i < (family === 4 ? 4 : 16); i++) {
    bytes.unshift(Number(n & 0xffn));
    n >>= 8n;
  }
  return ipaddr.fromByteArray(bytes).toString();
}

/**
 * The allocation for `vrf` entries over `nodes` (every Node that exists, Ready or not), keeping
 * what `previous` gave; see the module comment.
 */
export function allocateLoopbacks(
  previous: readonly LoopbackAddress[],
  vrf: readonly VrfEntry[],
  nodes: readonly AllocationNode[],
): LoopbackAllocationResult {
  const before = new Map<string, Map<string, string>>();
  for (const a of previous) {
    const k = key(a.entry, a.loopback);
    if (!before.has(k)) before.set(k, new Map());
    before.get(k)!.set(a.node, a.address);
  }
  const sortedNodes = [...nodes].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const addresses: LoopbackAddress[] = [];
  const shortages: LoopbackShortage[] = [];
  for (const entry of vrf) {
    const selected = sortedNodes.filter((n) => matchesSelector(entry.nodeSelector, n.labels));
    for (const lo of entry.loopbacks ?? []) {
      const range = usableRange(lo.subnet);
      if (!range) continue;
      const last = range.first + range.count - 1n;
      const kept = before.get(key(entry.name, lo.name)) ?? new Map<string, string>();
      const taken = new Set<bigint>();
      const given = new Map<string, string>();
      // Kept first, for every node, so a new node never takes an address a known one holds.
      for (const n of selected) {
        const old = kept.get(n.name);
        if (old === undefined) continue;
        const parsed = parsePrefix(`${old}/${range.family === 4 ? 32 : 128}`);
        if (!parsed.ok || parsed.prefix.family !== range.family) continue;
        const v = toBigInt(parsed.prefix.address);
        if (v < range.first || v > last || taken.has(v)) continue;
        taken.add(v);
        given.set(n.name, parsed.prefix.address);
      }
      let next = range.first;
      const short: string[] = [];
      for (const n of selected) {
        if (given.has(n.name)) continue;
        while (next <= last && taken.has(next)) next++;
        if (next > last) {
          short.push(n.name);
          continue;
        }
        taken.add(next);
        given.set(n.name, fromBigInt(next, range.family));
      }
      for (const n of selected) {
        const address = given.get(n.name);
        if (address !== undefined)
          addresses.push({ address, entry: entry.name, loopback: lo.name, node: n.name });
      }
      if (short.length > 0)
        shortages.push({
          entry: entry.name,
          vrf: entry.vrf,
          loopback: lo.name,
          subnet: lo.subnet,
          nodes: short,
        });
    }
  }
  const cmp = (a: LoopbackAddress, b: LoopbackAddress): number =>
    a.entry !== b.entry
      ? a.entry < b.entry
        ? -1
        : 1
      : a.loopback !== b.loopback
        ? a.loopback < b.loopback
          ? -1
          : 1
        : a.node < b.node
          ? -1
          : a.node > b.node
            ? 1
            : 0;
  return { addresses: addresses.sort(cmp), shortages };
}

/** One line per shortage, for a condition: which VRF, loopback and subnet, which nodes. */
export function shortageMessage(s: LoopbackShortage): string {
  const shown =
    s.nodes.slice(0, 10).join(', ') + (s.nodes.length > 10 ? `, … (${s.nodes.length} in all)` : '');
  return `VRFRouteConfiguration ${s.entry}: loopback ${s.loopback} of VRF ${s.vrf}: subnet ${s.subnet} is exhausted; no address for node(s) ${shown}`;
}

/** The newest revision (by number), whatever its state: its allocation is the one nodes may use. */
export function newestRevision<R extends { spec: { number: number } }>(
  revisions: readonly R[],
): R | undefined {
  return revisions.reduce<R | undefined>(
    (a, r) => (a === undefined || r.spec.number > a.spec.number ? r : a),
    undefined,
  );
}

const usesLoopbacks = (config: NetworkConfig | undefined): boolean =>
  (config?.vrf ?? []).some((e) => (e.loopbacks ?? []).length > 0);

/**
 * A built config with its loopback addresses and its hash again (unchanged when no VRF has
 * loopbacks): the allocation derived from the newest revision's and the Nodes. The configurator's
 * build and `kubectl nodenet diff`'s preview both use it, so the preview shows the addresses the
 * configurator will give.
 */
export function configWithLoopbacks(
  built: { config: NetworkConfig; hash: string },
  revisions: readonly { spec: { number: number; config: NetworkConfig } }[],
  nodes: readonly AllocationNode[],
): { config: NetworkConfig; hash: string; shortages: LoopbackShortage[] } {
  if (!usesLoopbacks(built.config)) return { ...built, shortages: [] };
  const previous = newestRevision(revisions)?.spec.config.loopbackAddresses ?? [];
  const { addresses, shortages } = allocateLoopbacks(previous, built.config.vrf, nodes);
  const config: NetworkConfig =
    addresses.length > 0 ? { ...built.config, loopbackAddresses: addresses } : built.config;
  return { config, hash: config === built.config ? built.hash : hashConfig(config), shortages };
}
