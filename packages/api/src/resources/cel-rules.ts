/**
 * The CRDs' apply-time rules (`x-kubernetes-validations`) that need more than a JSON-schema keyword:
 * prefixes parsed by the Kubernetes CEL CIDR library (kube-apiserver 1.31+, and devcluster), label
 * key prefixes, reserved VRF names. The configurator applies the same rules itself (validation/), with its
 * own wording, because inputs can reach it without admission.
 */
import { MAX_LABEL_PREFIX_LENGTH, MIN_GATEWAY_PREFIX_LENGTH } from '../grammar/limits.js';
import { isVrfName } from '../grammar/patterns.js';

export interface CelRule {
  rule: string;
  message: string;
  fieldPath?: string;
  reason?: string;
}

/**
 * Names that are members of JavaScript's `Object.prototype`. nodenet keeps names in Maps, but a
 * name such as `__proto__` or `constructor` used as a plain object's key reads or replaces the
 * prototype in any JavaScript tool that handles these objects (an older agent did), so VRF names
 * may not be one of them (issue #25).
 */
export const OBJECT_PROTOTYPE_NAMES = [
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
  '__proto__',
  'constructor',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  'toString',
  'valueOf',
] as const;

/** The reserved names a VRF name could otherwise be (the rest are longer than 12 characters). */
export const RESERVED_VRF_NAMES = OBJECT_PROTOTYPE_NAMES.filter(isVrfName);

export const RESERVED_VRF_NAMES_RULE: CelRule = {
  rule: `!(self in [${RESERVED_VRF_NAMES.map((n) => `'${n}'`).join(', ')}])`,
  message: `must not be one of ${RESERVED_VRF_NAMES.join(', ')} (reserved names)`,
};

/**
 * Rules of a prefix field. `network`: a prefix whose host bits are clear (prefix lists,
 * aggregates); `gateway`: an address with its prefix length, at least MIN_GATEWAY_PREFIX_LENGTH.
 * `isCIDR` refuses IPv4-mapped IPv6 (as nodenet does); the dotted-IPv6 rule is nodenet's own.
 */
export function cidrRules(use: 'network' | 'gateway'): CelRule[] {
  const rules: CelRule[] = [
    {
      rule: 'isCIDR(self)',
      message:
        'must be an IPv4 or IPv6 prefix in CIDR notation, e.g. 10.0.0.0/24 or 2001:db8::/64 (IPv4-mapped IPv6 is not accepted)',
    },
    {
      rule: "!self.contains(':') || !self.contains('.')",
      message: 'an IPv6 address must not embed an IPv4 address in dotted form; write it in hex',
    },
  ];
  if (use === 'network') {
    rules.push({
      rule: '!isCIDR(self) || cidr(self) == cidr(self).masked()',
      message: 'host bits must be clear: write the network address of the prefix',
    });
  } else {
    const min = MIN_GATEWAY_PREFIX_LENGTH;
    rules.push({
      rule: `!isCIDR(self) || cidr(self).prefixLength() >= (cidr(self).ip().family() == 4 ? ${min[4]} : ${min[6]})`,
      message: `prefix length must be at least /${min[4]} for IPv4 and /${min[6]} for IPv6`,
    });
  }
  return rules;
}

/**
 * Label-key rule: the prefix's length, which no regular expression states (the syntax is the
 * field's `pattern`). Only on fields with a maxLength: kube-apiserver estimates a rule's cost from it.
 */
export function labelKeyRules(v: string): CelRule[] {
  return [
    {
      rule: `!${v}.contains('/') || ${v}.split('/')[0].size() <= ${MAX_LABEL_PREFIX_LENGTH}`,
      message: `the prefix part of a label key must be no more than ${MAX_LABEL_PREFIX_LENGTH} characters`,
    },
  ];
}
