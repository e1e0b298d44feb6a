/**
 * Kubernetes' CEL IP and CIDR libraries (k8s.io/apiserver pkg/cel/library ip.go and cidr.go, in
 * kube-apiserver since 1.31), for devcluster's CEL evaluator: `isIP`, `ip()`, `ip.isCanonical`,
 * `isCIDR`, `cidr()` and the member functions of the `net.IP` and `net.CIDR` types.
 *
 * Parsing follows Go's net/netip, which the API server uses: IPv4 as four decimal octets without
 * leading zeros; IPv6 in RFC 4291 text (hex groups of 1–4 digits, one `::`, a trailing dotted IPv4
 * part); prefix lengths in decimal without leading zeros. Like the library, it refuses zones and
 * IPv4-mapped IPv6 addresses (`::ffff:1.2.3.4`, also written in hex). Host bits in a CIDR are kept
 * (`cidr('10.0.0.1/24').ip()` is 10.0.0.1); `masked()` clears them.
 */
import type { Environment } from '@marcbachmann/cel-js';

export class NetIP {
  constructor(
    readonly family: 4 | 6,
    /** 4 or 16 bytes, network order. */
    readonly bytes: Uint8Array,
  ) {}

  /** Go's `netip.Addr.String()`: dotted IPv4, RFC 5952 IPv6. */
  toString(): string {
    if (this.family === 4) return [...this.bytes].join('.');
    const groups = Array.from({ length: 8 }, (_, i) => (this.bytes[2 * i]! << 8) | this.bytes[2 * i + 1]!);
    // The longest run of two or more zero groups (the first of equal runs) becomes "::".
    let best = -1;
    let bestLen = 1;
    for (let i = 0; i < 8;) {
      if (groups[i] !== 0) {
        i++;
        continue;
      }
      let j = i;
      while (j < 8 && groups[j] === 0) j++;
      if (j - i > bestLen) [best, bestLen] = [i, j - i];
      i = j;
    }
    const hex = (g: number[]): string => g.map((x) => x.toString(16)).join(':');
    if (best < 0) return hex(groups);
    return `${hex(groups.slice(0, best))}::${hex(groups.slice(best + bestLen))}`;
  }

  equals(other: NetIP): boolean {
    return this.family === other.family && this.bytes.every((b, i) => b === other.bytes[i]);
  }
}

export class NetCIDR {
  constructor(
    readonly ip: NetIP,
    readonly bits: number,
  ) {}

  toString(): string {
    return `${this.ip.toString()}/${this.bits}`;
  }

  masked(): NetCIDR {
    const bytes = this.ip.bytes.map((b, i) => {
      const keep = Math.max(0, Math.min(8, this.bits - 8 * i));
      return b & ((0xff << (8 - keep)) & 0xff);
    });
    return new NetCIDR(new NetIP(this.ip.family, bytes), this.bits);
  }

  containsIP(ip: NetIP): boolean {
    return ip.family === this.ip.family && new NetCIDR(ip, this.bits).masked().equals(this.masked());
  }

  /** As cidr.go: the other prefix is at least as long and its address lies in this one. */
  containsCIDR(other: NetCIDR): boolean {
    return this.bits <= other.bits && this.containsIP(other.ip);
  }

  equals(other: NetCIDR): boolean {
    return this.bits === other.bits && this.ip.equals(other.ip);
  }
}

/** Why `text` is not an IP address as the library accepts it, or the address. */
export function parseIP(text: string): NetIP | string {
  const quote = JSON.stringify(text);
  if (text.includes('%')) return `IP address ${quote} with zone value is not allowed`;
  const addr = text.includes(':') ? parseIPv6(text) : parseIPv4(text);
  if (!addr)
    return `IP Address ${quote} parse error during conversion from string: ParseAddr(${quote}): unable to parse IP`;
  if (isIPv4Mapped(addr)) return `IPv4-mapped IPv6 address ${quote} is not allowed`;
  return addr;
}

/** Why `text` is not a CIDR as the library accepts it, or the CIDR. */
export function parseCIDR(text: string): NetCIDR | string {
  const quote = JSON.stringify(text);
  const slash = text.indexOf('/');
  const bad = `network address parse error during conversion from string: netip.ParsePrefix(${quote})`;
  if (slash < 0) return `${bad}: no '/'`;
  const addrText = text.slice(0, slash);
  const bitsText = text.slice(slash + 1);
  if (addrText.includes('%')) return `${bad}: IPv6 zones cannot be present in a prefix`;
  const addr = addrText.includes(':') ? parseIPv6(addrText) : parseIPv4(addrText);
  if (!addr) return `${bad}: ParseAddr(${JSON.stringify(addrText)}): unable to parse IP`;
  if (!/^(0|[1-9][0-9]{0,2})$/.test(bitsText))
    return `${bad}: bad bits after slash: ${JSON.stringify(bitsText)}`;
  const bits = Number(bitsText);
  if (bits > (addr.family === 4 ? 32 : 128)) return `${bad}: prefix length out of range`;
  if (isIPv4Mapped(addr)) return `IPv4-mapped IPv6 address ${quote} is not allowed`;
  return new NetCIDR(addr, bits);
}

function isIPv4Mapped(ip: NetIP): boolean {
  if (ip.family !== 6) return false;
  return ip.bytes.slice(0, 10).every((b) => b === 0) && ip.bytes[10] === 0xff && ip.bytes[11] === 0xff;
}

function parseIPv4(text: string): NetIP | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const p = parts[i]!;
    if (!/^(0|[1-9][0-9]{0,2})$/.test(p) || Number(p) > 255) return undefined;
    bytes[i] = Number(p);
  }
  return new NetIP(4, bytes);
}

function parseIPv6(text: string): NetIP | undefined {
  let rest = text;
  let tail: number[] = [];
  const lastColon = rest.lastIndexOf(':');
  if (rest.slice(lastColon + 1).includes('.')) {
    const v4 = parseIPv4(rest.slice(lastColon + 1));
    if (!v4) return undefined;
    tail = [(v4.bytes[0]! << 8) | v4.bytes[1]!, (v4.bytes[2]! << 8) | v4.bytes[3]!];
    rest = rest.slice(0, lastColon + 1);
    // "…:1.2.3.4": the colon before the IPv4 part belongs to it, unless it is half of "::".
    if (rest.endsWith(':') && !rest.endsWith('::')) rest = rest.slice(0, -1);
  }
  const halves = rest.split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (s: string): number[] | undefined => {
    if (s === '') return [];
    const out: number[] = [];
    for (const g of s.split(':')) {
      if (!/^[0-9A-Fa-f]{1,4}$/.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = groupsOf(halves[0]!);
  const after = halves.length === 2 ? groupsOf(halves[1]!) : [];
  if (!head || !after) return undefined;
  const given = head.length + after.length + tail.length;
  let groups: number[];
  if (halves.length === 2) {
    if (given > 7) return undefined;
    groups = [...head, ...Array<number>(8 - given).fill(0), ...after, ...tail];
  } else {
    if (given !== 8) return undefined;
    groups = [...head, ...tail];
  }
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    bytes[2 * i] = g >> 8;
    bytes[2 * i + 1] = g & 0xff;
  });
  return new NetIP(6, bytes);
}

/** Go's netip predicates, as the library's member functions expose them. */
export const ipPredicates = {
  isUnspecified: (ip: NetIP): boolean => ip.bytes.every((b) => b === 0),
  isLoopback: (ip: NetIP): boolean =>
    ip.family === 4 ? ip.bytes[0] === 127 : ip.bytes.every((b, i) => b === (i === 15 ? 1 : 0)),
  isLinkLocalMulticast: (ip: NetIP): boolean =>
    ip.family === 4
      ? ip.bytes[0] === 224 && ip.bytes[1] === 0 && ip.bytes[2] === 0
      : ip.bytes[0] === 0xff && (ip.bytes[1]! & 0x0f) === 0x02,
  isLinkLocalUnicast: (ip: NetIP): boolean =>
    ip.family === 4
      ? ip.bytes[0] === 169 && ip.bytes[1] === 254
      : ip.bytes[0] === 0xfe && (ip.bytes[1]! & 0xc0) === 0x80,
  isGlobalUnicast: (ip: NetIP): boolean => {
    if (ip.family === 4 && ip.bytes.every((b) => b === 255)) return false;
    const multicast = ip.family === 4 ? ip.bytes[0]! >= 224 && ip.bytes[0]! < 240 : ip.bytes[0] === 0xff;
    return (
      !ipPredicates.isUnspecified(ip) &&
      !ipPredicates.isLoopback(ip) &&
      !multicast &&
      !ipPredicates.isLinkLocalUnicast(ip)
    );
  },
};

/** The `ip` identifier of `ip.isCanonical(…)`: a namespace value whose one member is isCanonical. */
class IPNamespace {}

function ipOf(text: string): NetIP {
  const r = parseIP(text);
  if (typeof r === 'string') throw new Error(r);
  return r;
}

function cidrOf(text: string): NetCIDR {
  const r = parseCIDR(text);
  if (typeof r === 'string') throw new Error(r);
  return r;
}

/** kube-apiserver's `kubernetes.net.ip` and `net.cidr` CEL libraries (see cel-net.ts). */
export function registerNetLibraries(e: Environment): void {
  e.registerType('net.IP', NetIP).registerType('net.CIDR', NetCIDR).registerType('IPNamespace', IPNamespace);
  e.registerConstant('ip', 'IPNamespace', new IPNamespace());
  e.registerFunction('ip(string): net.IP', ipOf);
  e.registerFunction('isIP(string): bool', (s: string) => typeof parseIP(s) !== 'string');
  e.registerFunction(
    'IPNamespace.isCanonical(string): bool',
    (_: IPNamespace, s: string) => ipOf(s).toString() === s,
  );
  e.registerFunction('net.IP.family(): int', (ip: NetIP) => BigInt(ip.family));
  for (const [name, test] of Object.entries(ipPredicates)) {
    e.registerFunction(`net.IP.${name}(): bool`, (ip: NetIP) => test(ip));
  }
  e.registerFunction('string(net.IP): string', (ip: NetIP) => ip.toString());
  e.registerOperator('net.IP == net.IP', (a: NetIP, b: NetIP) => a.equals(b));

  e.registerFunction('cidr(string): net.CIDR', cidrOf);
  e.registerFunction('isCIDR(string): bool', (s: string) => typeof parseCIDR(s) !== 'string');
  e.registerFunction('net.CIDR.containsIP(string): bool', (c: NetCIDR, s: string) => c.containsIP(ipOf(s)));
  e.registerFunction('net.CIDR.containsIP(net.IP): bool', (c: NetCIDR, ip: NetIP) => c.containsIP(ip));
  e.registerFunction('net.CIDR.containsCIDR(string): bool', (c: NetCIDR, s: string) =>
    c.containsCIDR(cidrOf(s)),
  );
  e.registerFunction('net.CIDR.containsCIDR(net.CIDR): bool', (c: NetCIDR, o: NetCIDR) => c.containsCIDR(o));
  e.registerFunction('net.CIDR.ip(): net.IP', (c: NetCIDR) => c.ip);
  e.registerFunction('net.CIDR.masked(): net.CIDR', (c: NetCIDR) => c.masked());
  e.registerFunction('net.CIDR.prefixLength(): int', (c: NetCIDR) => BigInt(c.bits));
  e.registerFunction('string(net.CIDR): string', (c: NetCIDR) => c.toString());
  e.registerOperator('net.CIDR == net.CIDR', (a: NetCIDR, b: NetCIDR) => a.equals(b));
}
