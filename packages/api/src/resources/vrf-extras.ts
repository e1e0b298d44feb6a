/**
 * The parts of a VRFRouteConfiguration beyond route leaking: static routes inside the VRF and
 * per-node loopbacks (docs/resources.md). Kept apart from schema.ts so each resource file stays one
 * concept; schema.ts puts them into the VRF's spec and entry.
 */
import { Type, type Static } from '@sinclair/typebox';
import { VRF_NAME_PATTERN } from '../grammar/patterns.js';
import * as L from '../grammar/limits.js';
import { Cidr } from './common.js';

/** An IPv4 or IPv6 address without a prefix length; the configurator parses it strictly. */
export const IP_ADDRESS_PATTERN = '^(([0-9]{1,3}\\.){3}[0-9]{1,3}|[0-9A-Fa-f:]{2,39})$';
/** A loopback's name: a DNS label, so it reads well in conditions and `kubectl nodenet diff`. */
export const LOOPBACK_NAME_PATTERN = '^[a-z0-9]([-a-z0-9]{0,30}[a-z0-9])?$';

export const StaticRoute = Type.Object(
  {
    prefix: Cidr('Destination prefix, host bits clear.', 'network'),
    nextHop: Type.Optional(
      Type.String({
        pattern: IP_ADDRESS_PATTERN,
        maxLength: 39,
        description: "Gateway address; inside one of the VRF's gateway subnets unless onlink is set.",
        'x-kubernetes-validations': [{ rule: 'isIP(self)', message: 'must be an IPv4 or IPv6 address' }],
      }),
    ),
    nextHopVRF: Type.Optional(
      Type.String({
        pattern: VRF_NAME_PATTERN,
        maxLength: 12,
        description: 'VRF the next hop is looked up in (`default` for the default VRF); default: this VRF.',
      }),
    ),
    onlink: Type.Optional(
      Type.Boolean({ default: false, description: 'The next hop is on-link even outside the subnets.' }),
    ),
  },
  {
    'x-kubernetes-validations': [
      {
        rule: 'has(self.nextHop) || has(self.nextHopVRF)',
        message: 'a static route needs nextHop, nextHopVRF or both',
        fieldPath: '.nextHop',
        reason: 'FieldValueRequired',
      },
      {
        rule: "has(self.nextHop) || !has(self.nextHopVRF) || self.nextHopVRF != 'default'",
        message: 'nextHopVRF default needs a nextHop address (the default VRF has no device to route into)',
        fieldPath: '.nextHop',
        reason: 'FieldValueRequired',
      },
      {
        rule: '!has(self.onlink) || !self.onlink || has(self.nextHop)',
        message: 'onlink needs a nextHop address',
        fieldPath: '.onlink',
      },
    ],
  },
);
export type StaticRoute = Static<typeof StaticRoute>;

export const Loopback = Type.Object({
  name: Type.String({
    pattern: LOOPBACK_NAME_PATTERN,
    maxLength: 32,
    description: 'Name of the loopback, unique within the VRF.',
  }),
  subnet: Cidr('Each selected node gets one address of this subnet (a /32 or /128).', 'network'),
});
export type Loopback = Static<typeof Loopback>;

export const StaticRoutes = Type.Array(StaticRoute, {
  maxItems: L.MAX_STATIC_ROUTES,
  description: 'Static routes in this VRF.',
});
export const Loopbacks = Type.Array(Loopback, {
  maxItems: L.MAX_LOOPBACKS,
  description: 'Per-node loopback addresses in this VRF, advertised through its export.',
});

/** One node's address of one loopback, as a revision carries it (config/loopbacks.ts allocates them). */
export const LoopbackAddress = Type.Object({
  address: Type.String({ pattern: IP_ADDRESS_PATTERN, maxLength: 39 }),
  entry: Type.String({ maxLength: L.MAX_NAME_LENGTH, description: 'The VRFRouteConfiguration.' }),
  loopback: Type.String({ pattern: LOOPBACK_NAME_PATTERN, maxLength: 32 }),
  node: Type.String({ maxLength: L.MAX_NAME_LENGTH }),
});
export type LoopbackAddress = Static<typeof LoopbackAddress>;

/** A node's own address of one of its VRF entry's loopbacks, in the NodeConfig. */
export const NodeLoopbackAddress = Type.Object({
  address: Type.String({ pattern: IP_ADDRESS_PATTERN, maxLength: 39 }),
  name: Type.String({ pattern: LOOPBACK_NAME_PATTERN, maxLength: 32 }),
});
export type NodeLoopbackAddress = Static<typeof NodeLoopbackAddress>;
