/**
 * A prefix-list item (VRF and BGPPeering import / export): its own module so that schema.ts and
 * bgp-peering.ts both use it without importing each other.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Cidr, StringEnum } from './common.js';

export const PrefixItem = Type.Object(
  {
    cidr: Cidr('IPv4 or IPv6 prefix, host bits clear.', 'network'),
    seq: Type.Integer({ minimum: 1, maximum: 4294967295, description: 'Prefix-list sequence number.' }),
    ge: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 128, description: 'Match prefixes at least this long.' }),
    ),
    le: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 128, description: 'Match prefixes at most this long.' }),
    ),
    action: StringEnum(['permit', 'deny'] as const, { default: 'permit' }),
  },
  {
    // Checked by the API server at `kubectl apply` time (CEL); the configurator checks them too.
    'x-kubernetes-validations': [
      {
        rule: "!has(self.ge) || self.ge > int(self.cidr.split('/')[1])",
        message: 'ge must be greater than the prefix length',
        fieldPath: '.ge',
      },
      {
        rule: "!has(self.ge) || self.ge <= (self.cidr.contains(':') ? 128 : 32)",
        message: 'ge must be at most 32 for IPv4 and 128 for IPv6',
        fieldPath: '.ge',
      },
      {
        rule: "!has(self.le) || self.le >= int(self.cidr.split('/')[1])",
        message: 'le must be at least the prefix length',
        fieldPath: '.le',
      },
      {
        rule: "!has(self.le) || self.le <= (self.cidr.contains(':') ? 128 : 32)",
        message: 'le must be at most 32 for IPv4 and 128 for IPv6',
        fieldPath: '.le',
      },
      {
        rule: '!has(self.ge) || !has(self.le) || self.ge <= self.le',
        message: 'le must be at least ge',
        fieldPath: '.le',
      },
    ],
  },
);
export type PrefixItem = Static<typeof PrefixItem>;
