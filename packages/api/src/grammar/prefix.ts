/**
 * IP prefixes as nodenet accepts them: strict decimal dotted quads for IPv4 (no octal or hex forms
 * that some parsers accept and FRR would read differently), RFC 4291 text for IPv6, no zone ids.
 * Parsing is done by ipaddr.js; this module adds the strictness and the reasons a person can act on.
 */
import ipaddr from 'ipaddr.js';
import { hasCidrChars } from './patterns.js';
import { MIN_GATEWAY_PREFIX_LENGTH } from './limits.js';

export type Family = 4 | 6;

export interface Prefix {
  family: Family;
  /** Address as written, normalised (lower-case, compressed IPv6). */
  address: string;
  length: number;
  /** Family maximum: 32 or 128. */
  max: number;
  /** The network address of the prefix (host bits cleared). */
  network: string;
}

export type PrefixResult = { ok: true; prefix: Prefix } | { ok: false; reason: string };

// Revisions repeat the same prefixes (every node, every pass); parsing is pure, so cache it.
const prefixCache = new Map<string, PrefixResult>();
const MAX_CACHED = 100_000;

export function parsePrefix(text: string): PrefixResult {
  let r = prefixCache.get(text);
  if (r === undefined) {
    if (prefixCache.size >= MAX_CACHED) prefixCache.clear();
    prefixCache.set(text, (r = parsePrefixUncached(text)));
  }
  return r;
}

function parsePrefixUncached(text: string): PrefixResult {
  if (!hasCidrChars(text)) return { ok: false, reason: 'must be an IPv4 or IPv6 prefix in CIDR notation' };
  const slash = text.indexOf('/');
  const addr = text.slice(0, slash);
  const lenText = text.slice(slash + 1);
  if (!/^(0|[1-9][0-9]*)$/.test(lenText))
    return { ok: false, reason: `prefix length "${lenText}" is not a number` };
  const length = Number(lenText);
  let family: Family;
  if (addr.includes(':')) {
    if (!ipaddr.IPv6.isValid(addr)) return { ok: false, reason: `"${addr}" is not a valid IPv6 address` };
    const embedded = embeddedIpv4Problem(addr);
    if (embedded) return { ok: false, reason: embedded };
    family = 6;
  } else {
    if (!ipaddr.IPv4.isValidFourPartDecimal(addr)) {
      return { ok: false, reason: `"${addr}" is not a valid IPv4 address (four decimal octets)` };
    }
    family = 4;
  }
  const max = family === 4 ? 32 : 128;
  if (length > max) return { ok: false, reason: `prefix length ${length} exceeds ${max} for IPv${family}` };
  const parsed = ipaddr.parse(addr);
  const network = (family === 4 ? ipaddr.IPv4 : ipaddr.IPv6)
    .networkAddressFromCIDR(`${addr}/${length}`)
    .toString();
  return { ok: true, prefix: { family, address: parsed.toString(), length, max, network } };
}

/**
 * IPv6 text with an IPv4 part: refused, in every form. ipaddr.js reads the IPv4-compatible form
 * `::1.2.3.0` as the IPv4-mapped `::ffff:1.2.3.0` (a different prefix would reach FRR), and
 * kube-apiserver's `isCIDR`/`ip()` refuse IPv4-mapped addresses (`::ffff:0:0/96`), dotted or not;
 * so nodenet takes neither and tells the person how to write the address instead.
 */
function embeddedIpv4Problem(addr: string): string | undefined {
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(addr);
  if (dotted) {
    const [, head, quad] = dotted as unknown as [string, string, string];
    if (!ipaddr.IPv4.isValidFourPartDecimal(quad)) return `"${addr}" is not a valid IPv6 address`;
    const o = quad.split('.').map(Number) as [number, number, number, number];
    const hex = `${head}${((o[0] << 8) | o[1]).toString(16)}:${((o[2] << 8) | o[3]).toString(16)}`;
    if (!ipaddr.IPv6.isValid(hex)) return `"${addr}" is not a valid IPv6 address`;
    if (/^::ffff:$/i.test(head) || ipaddr.IPv6.parse(hex).isIPv4MappedAddress()) {
      return `"${addr}" is an IPv4-mapped IPv6 address; write the IPv4 address ${quad} instead`;
    }
    return `"${addr}" embeds an IPv4 address in dotted form, which is read differently by different parsers; write it in hex: ${ipaddr.IPv6.parse(hex).toString()}`;
  }
  const parsed = ipaddr.IPv6.parse(addr);
  if (parsed.isIPv4MappedAddress()) {
    return `"${addr}" is an IPv4-mapped IPv6 address; write the IPv4 address ${parsed.toIPv4Address().toString()} instead`;
  }
  return undefined;
}

/** A prefix whose host bits must be clear (prefix-list entries, aggregates). */
export function checkNetworkPrefix(text: string): string | undefined {
  const r = parsePrefix(text);
  if (!r.ok) return r.reason;
  const { prefix } = r;
  if (prefix.address !== prefix.network) {
    return `host bits are set; the network is ${prefix.network}/${prefix.length}`;
  }
  return undefined;
}

/** An interface address with its prefix length (anycast gateways): a usable host address in the prefix. */
export function checkHostAddress(text: string): string | undefined {
  const r = parsePrefix(text);
  if (!r.ok) return r.reason;
  const { prefix } = r;
  if (prefix.family === 4 && prefix.length < 31) {
    if (prefix.address === prefix.network) {
      return `${prefix.address} is the network address of ${prefix.network}/${prefix.length}, not a host address`;
    }
    const broadcast = ipaddr.IPv4.broadcastAddressFromCIDR(text).toString();
    if (prefix.address === broadcast) {
      return `${prefix.address} is the broadcast address of ${prefix.network}/${prefix.length}, not a host address`;
    }
  }
  if (prefix.family === 6 && prefix.length < 127 && prefix.address === prefix.network) {
    return `${prefix.address} is the subnet-router anycast address of ${prefix.network}/${prefix.length}, not a host address`;
  }
  return undefined;
}

/** The canonical text of a prefix already known to be valid: lower-case, compressed IPv6. */
export function normalizePrefix(text: string): string {
  const r = parsePrefix(text);
  return r.ok ? `${r.prefix.address}/${r.prefix.length}` : text;
}

/** A bare address (no prefix length) in canonical text; the text itself when it does not parse. */
export function normalizeAddress(text: string): string {
  const r = parsePrefix(`${text}/${text.includes(':') ? 128 : 32}`);
  return r.ok ? r.prefix.address : text;
}

/**
 * Address ranges the kernel refuses on an interface or that can not serve as a subnet's gateway:
 * multicast ("Cannot assign multicast address"), loopback, link-local (every interface has its own
 * fe80::/10 and 169.254/16 is not routed), "this network" 0/8, IPv4-mapped IPv6, class E and the
 * limited broadcast address.
 */
const GATEWAY_REFUSED_RANGES: Record<string, string> = {
  unspecified: 'is in the unspecified ("this network") range',
  broadcast: 'is the limited broadcast address',
  multicast: 'is a multicast address',
  linkLocal: 'is a link-local address',
  loopback: 'is a loopback address',
  ipv4Mapped: 'is an IPv4-mapped IPv6 address',
};

// Every revision build checks every gateway again; the answer depends on the text alone.
const gatewayChecks = new Map<string, string | undefined>();

/** An anycast gateway: a host address (see checkHostAddress) in a range an interface can carry. */
export function checkGatewayAddress(text: string): string | undefined {
  if (gatewayChecks.has(text)) return gatewayChecks.get(text);
  if (gatewayChecks.size >= MAX_CACHED) gatewayChecks.clear();
  const reason = checkGatewayAddressUncached(text);
  gatewayChecks.set(text, reason);
  return reason;
}

function checkGatewayAddressUncached(text: string): string | undefined {
  const r0 = parsePrefix(text);
  if (r0.ok && r0.prefix.length < MIN_GATEWAY_PREFIX_LENGTH[r0.prefix.family]) {
    const min = MIN_GATEWAY_PREFIX_LENGTH;
    return `prefix length /${r0.prefix.length} is shorter than /${min[r0.prefix.family]}, the shortest gateway subnet for IPv${r0.prefix.family} (IPv4 /${min[4]}, IPv6 /${min[6]}): it would put a route for that much of the address space on every node`;
  }
  const hostReason = checkHostAddress(text);
  if (hostReason) return hostReason;
  const r = parsePrefix(text);
  if (!r.ok) return r.reason;
  const addr = ipaddr.parse(r.prefix.address);
  const range = addr.range();
  const refused = GATEWAY_REFUSED_RANGES[range];
  if (refused) return `${r.prefix.address} ${refused}; a gateway needs a unicast address`;
  if (addr.kind() === 'ipv4' && (addr as ipaddr.IPv4).octets[0]! >= 240) {
    return `${r.prefix.address} is in the reserved class E range 240.0.0.0/4; a gateway needs a unicast address`;
  }
  return undefined;
}

/** True when the two prefixes (valid, same or different family) share any address. */
export function prefixesOverlap(a: string, b: string): boolean {
  const pa = parsePrefix(a);
  const pb = parsePrefix(b);
  if (!pa.ok || !pb.ok || pa.prefix.family !== pb.prefix.family) return false;
  const bits = Math.min(pa.prefix.length, pb.prefix.length);
  const x = networkBytes(pa.prefix.network);
  const y = networkBytes(pb.prefix.network);
  // The two share an address when their networks agree on the shorter prefix's bits.
  let i = 0;
  for (; (i + 1) * 8 <= bits; i++) if (x[i] !== y[i]) return false;
  const rest = bits - i * 8;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return ((x[i] as number) & mask) === ((y[i] as number) & mask);
}

const bytesOf = new Map<string, number[]>();
/** The bytes of a network address (memoized: the same networks are compared on every build). */
function networkBytes(network: string): number[] {
  let b = bytesOf.get(network);
  if (b === undefined) {
    if (bytesOf.size >= MAX_CACHED) bytesOf.clear();
    bytesOf.set(network, (b = ipaddr.parse(network).toByteArray()));
  }
  return b;
}
