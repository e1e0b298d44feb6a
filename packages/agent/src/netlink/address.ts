/**
 * Address and MAC normalization, so that an address written by a user (`2001:DB8::1/64`) and the
 * same address read back from the kernel compare equal.
 */
import ipaddr from 'ipaddr.js';

/** `addr/len` with the address in canonical form; throws on anything else. */
export function normalizeCidr(cidr: string): string {
  const [addr, len] = ipaddr.parseCIDR(cidr);
  return `${addr.toString()}/${len}`;
}

export function normalizeAddress(address: string): string {
  return ipaddr.parse(address).toString();
}

export const isIpv6 = (address: string): boolean => ipaddr.parse(address.split('/')[0]!).kind() === 'ipv6';

/** IPv6 link-local: added by the kernel itself to every up device, never managed by nodenet. */
export function isLinkLocal6(cidr: string): boolean {
  const addr = ipaddr.parse(cidr.split('/')[0]!);
  return addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).range() === 'linkLocal';
}

export function addressBytes(address: string): Buffer {
  return Buffer.from(ipaddr.parse(address).toByteArray());
}

export function addressFromBytes(bytes: Uint8Array): string {
  return ipaddr.fromByteArray(Array.from(bytes)).toString();
}

export const normalizeMac = (mac: string): string => mac.toLowerCase();

export function macBytes(mac: string): Buffer {
  return Buffer.from(mac.split(':').map((h) => parseInt(h, 16)));
}

export function macFromBytes(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(':');
}

/** Compares addresses so that lists sort the same way on both sides of a diff. */
export const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
