/** prefixesOverlap against the definition: the longer network lies in the shorter prefix (ipaddr.js match). */
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { checkGatewayAddress } from '@nodenet/api';
import { prefixesOverlap } from '../src/grammar/prefix.js';

const reference = (a: string, b: string): boolean => {
  const [pa, la] = ipaddr.parseCIDR(a);
  const [pb, lb] = ipaddr.parseCIDR(b);
  if (pa.kind() !== pb.kind()) return false;
  const [shorter, sl, longer] = la <= lb ? [pa, la, pb] : [pb, lb, pa];
  return longer.match(shorter, sl);
};

// Few distinct octets, so that overlaps are common.
const v4 = fc
  .tuple(fc.constantFrom(10, 11), fc.constantFrom(0, 1, 128), fc.nat(3), fc.nat(3), fc.nat(32))
  .map(([a, b, c, d, len]) => `${a}.${b}.${c}.${d}/${len}`);
const v6 = fc
  .tuple(fc.constantFrom('fd00', 'fd01'), fc.constantFrom('0', '8000', 'ff'), fc.nat(128))
  .map(([a, b, len]) => `${a}:${b}::/${len}`);
const prefix = fc.oneof(v4, v6);

describe('prefixesOverlap', () => {
  it('agrees with the containment of the networks, for IPv4 and IPv6 and mixed families', () => {
    fc.assert(
      fc.property(prefix, prefix, (a, b) => {
        expect(prefixesOverlap(a, b)).toBe(reference(a, b));
        expect(prefixesOverlap(b, a)).toBe(reference(a, b));
      }),
      { numRuns: 3000 },
    );
  });

  it('a gateway check gives the same answer when asked again (memoized)', () => {
    for (const gw of ['10.0.0.0/24', '224.0.0.1/24', '10.0.0.1/24', '10.0.0.255/24'])
      expect(checkGatewayAddress(gw)).toBe(checkGatewayAddress(gw));
    expect(checkGatewayAddress('10.0.0.1/24')).toBeUndefined();
    expect(checkGatewayAddress('10.0.0.0/24')).toMatch(/network address/);
  });
});
