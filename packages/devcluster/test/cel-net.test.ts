/**
 * Kubernetes' CEL IP and CIDR libraries in devcluster's evaluator: the examples of
 * k8s.io/apiserver pkg/cel/library ip.go and cidr.go, with the results kube-apiserver gives, and
 * the edges of Go's net/netip parsing (leading zeros, zones, IPv4-mapped, embedded IPv4).
 */
import { describe, expect, it } from 'vitest';
import { compileCel, validate, type Schema } from '@nodenet/devcluster';

const run = (expr: string, self?: unknown): unknown => compileCel(expr)({ self });

describe('CEL IP library (ip.go)', () => {
  it.each([
    ["isIP('127.0.0.1')", true],
    ["isIP('::1')", true],
    ["isIP('127.0.0.256')", false],
    ["isIP(':::1')", false],
    ["isIP('01.2.3.4')", false],
    ["isIP('fe80::1%eth0')", false],
    ["isIP('::ffff:1.2.3.4')", false],
    ["isIP('::ffff:102:304')", false],
    ["isIP('::1.2.3.4')", true],
    ["isIP('1:2:3:4:5:6:7:8')", true],
    ["isIP('1:2:3:4:5:6:7:8:9')", false],
    ["isIP('1::2::3')", false],
    ["isIP('2001:DB8::ABCD')", true],
    ["ip.isCanonical('127.0.0.1')", true],
    ["ip.isCanonical('2001:db8::abcd')", true],
    ["ip.isCanonical('2001:DB8::ABCD')", false],
    ["ip.isCanonical('2001:db8::0:0:0:abcd')", false],
    ["ip('127.0.0.1').family() == 4", true],
    ["ip('::1').family() == 6", true],
    ["ip('0.0.0.0').isUnspecified()", true],
    ["ip('::').isUnspecified()", true],
    ["ip('::1').isUnspecified()", false],
    ["ip('127.0.0.1').isLoopback()", true],
    ["ip('192.168.0.1').isLoopback()", false],
    ["ip('::1').isLoopback()", true],
    ["ip('2001:db8::abcd').isLoopback()", false],
    ["ip('224.0.0.1').isLinkLocalMulticast()", true],
    ["ip('224.0.1.1').isLinkLocalMulticast()", false],
    ["ip('ff02::1').isLinkLocalMulticast()", true],
    ["ip('fd00::1').isLinkLocalMulticast()", false],
    ["ip('169.254.169.254').isLinkLocalUnicast()", true],
    ["ip('192.168.0.1').isLinkLocalUnicast()", false],
    ["ip('fe80::1').isLinkLocalUnicast()", true],
    ["ip('fd80::1').isLinkLocalUnicast()", false],
    ["ip('192.168.0.1').isGlobalUnicast()", true],
    ["ip('255.255.255.255').isGlobalUnicast()", false],
    ["ip('2001:db8::abcd').isGlobalUnicast()", true],
    ["ip('ff00::1').isGlobalUnicast()", false],
    ["string(ip('2001:DB8:0:0:0::1'))", '2001:db8::1'],
    ["string(ip('1:0:0:1:0:0:0:1'))", '1:0:0:1::1'],
    ["string(ip('::1.2.3.4'))", '::102:304'],
    ["ip('10.0.0.1') == ip('10.0.0.1')", true],
    ["ip('2001:db8::1') == ip('2001:DB8:0::1')", true],
    ["ip('10.0.0.1') != ip('10.0.0.2')", true],
  ])('%s is %s', (expr, want) => {
    expect(run(expr)).toBe(want);
  });

  it('ip() of a bad address is an evaluation error naming it', () => {
    expect(() => run("ip('10.0.0.300').family() == 4")).toThrow(
      /evaluation failed: IP Address "10\.0\.0\.300" parse error during conversion from string/,
    );
    expect(() => run("ip('::ffff:1.2.3.4')")).toThrow(
      /IPv4-mapped IPv6 address "::ffff:1\.2\.3\.4" is not allowed/,
    );
  });
});

describe('CEL CIDR library (cidr.go)', () => {
  it.each([
    ["isCIDR('192.168.0.0/16')", true],
    ["isCIDR('::1/128')", true],
    ["isCIDR('192.168.0.0/33')", false],
    ["isCIDR('::1/129')", false],
    ["isCIDR('10.140.0.300/24')", false],
    ["isCIDR('10.0.0.0/08')", false],
    ["isCIDR('10.0.0.0')", false],
    ["isCIDR('::ffff:10.0.0.0/104')", false],
    ["isCIDR('fe80::/64')", true],
    ["cidr('192.168.0.0/24').containsIP(ip('192.168.0.1'))", true],
    ["cidr('192.168.0.0/24').containsIP(ip('192.168.1.1'))", false],
    ["cidr('192.168.0.0/24').containsIP('192.168.0.1')", true],
    ["cidr('192.168.0.0/24').containsIP('192.168.1.1')", false],
    ["cidr('192.168.0.0/24').containsIP('2001:db8::1')", false],
    ["cidr('192.168.0.0/16').containsCIDR(cidr('192.168.10.0/24'))", true],
    ["cidr('192.168.1.0/24').containsCIDR(cidr('192.168.2.0/24'))", false],
    ["cidr('192.168.0.0/16').containsCIDR('192.168.10.0/24')", true],
    ["cidr('192.168.1.0/24').containsCIDR('192.168.2.0/24')", false],
    ["cidr('192.168.10.0/24').containsCIDR('192.168.0.0/16')", false],
    ["cidr('192.168.0.1/24').ip() == ip('192.168.0.1')", true],
    ["cidr('192.168.0.1/24').ip().family()", 4n],
    ["cidr('::1/128').ip() == ip('::1')", true],
    ["cidr('::1/128').ip().family()", 6n],
    ["cidr('192.168.0.0/24').masked() == cidr('192.168.0.0/24')", true],
    ["cidr('192.168.0.1/24').masked() == cidr('192.168.0.0/24')", true],
    ["cidr('192.168.0.0/24') == cidr('192.168.0.0/24').masked()", true],
    ["cidr('192.168.0.1/24') == cidr('192.168.0.1/24').masked()", false],
    ["cidr('2001:db8::1/32').masked() == cidr('2001:db8::/32')", true],
    ["cidr('192.168.0.0/16').prefixLength()", 16n],
    ["cidr('::1/128').prefixLength()", 128n],
    ["string(cidr('2001:DB8::1/64'))", '2001:db8::1/64'],
    ["string(cidr('10.1.2.3/9').masked())", '10.0.0.0/9'],
  ])('%s is %s', (expr, want) => {
    expect(run(expr)).toBe(want);
  });

  it('cidr() of a bad prefix is an evaluation error naming it', () => {
    expect(() => run("cidr('10.140.0.300/24').prefixLength()")).toThrow(
      /network address parse error during conversion from string: .*"10\.140\.0\.300\/24"/,
    );
  });

  it('works on the value under validation, as a CRD rule', () => {
    const schema: Schema = {
      type: 'string',
      'x-kubernetes-validations': [
        { rule: 'isCIDR(self)', message: 'must be a CIDR' },
        { rule: '!isCIDR(self) || cidr(self) == cidr(self).masked()', message: 'host bits must be clear' },
      ],
    };
    expect(validate('10.0.0.0/24', schema, 'spec.aggregate[0]')).toEqual([]);
    const invalid = (message: string) => [
      {
        type: 'FieldValueInvalid',
        field: 'spec.aggregate[0]',
        message: `Invalid value: "string": ${message}`,
      },
    ];
    expect(validate('10.140.0.300/24', schema, 'spec.aggregate[0]')).toEqual(invalid('must be a CIDR'));
    expect(validate('10.0.0.1/24', schema, 'spec.aggregate[0]')).toEqual(invalid('host bits must be clear'));
  });
});
