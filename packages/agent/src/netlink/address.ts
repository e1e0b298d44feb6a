/**
 * Address and MAC normalization, so that an address written by a user (`2001:DB8::1/64`) and the
 * same address read back from the kernel compare equal.
 */
import ipaddr from 'ipaddr.js';

/** Memo of normalized forms: a converged re-apply normalizes the same few thousand strings again. */
const memo = new Map<string, string>();
const MEMO_LIMIT = 100_000;

function memoized(key: string, compute: () => string): string {
  let v = memo.get(key);
  if (v === undefined) {
    v = compute();
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(key, v);
  }
  return v;
}

/** `addr/len` with the address in canonical form; throws on anything else. */
export function normalizeCidr(cidr: string): string {
  return memoized(`c${cidr}`, () => {
    const [addr, len] = ipaddr.parseCIDR(cidr);
    return `${addr.toString()}/${len}`;
  });
}

export function normalizeAddress(address: string): string {
  return memoized(`a${address}`, () => ipaddr.parse(address).toString());
}

/** For normalized addresses (as desired.ts and read.ts produce): only IPv6 has colons. */
export const isIpv6 = (address: string): boolean => address.includes(':');

/** IPv6 link-local: added by the kernel itself to every up device, never managed by nodenet. */
export function isLinkLocal6(cidr: string): boolean {
  const addr = ipaddr.parse(cidr.split('/')[0]!);
  return addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).range() === 'linkLocal';
}

export function addressBytes(address: string): Buffer {
  return Buffer.from(ipaddr.parse(address).toByteArray());
}

export function addressFromBytes(bytes: Uint8Array): string {
  if (bytes.length === 4) return `${bytes[0]}.${bytes[1]}.${bytes[2]}.${bytes[3]}`;
  return ipaddr.fromByteArray(Array.from(bytes)).toString();
}

export const normalizeMac = (mac: string): string => mac.toLowerCase();

export function macBytes(mac: string): Buffer {
  return Buffer.from(mac.split(':').map((h) => parseInt(h, 16)));
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export function macFromBytes(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += (i ? ':' : '') + HEX[bytes[i]!];
  return s;
}

/** Compares addresses so that lists sort the same way on both sides of a diff. */
export const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
