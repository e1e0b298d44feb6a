/**
 * `BGPPeering`: BGP sessions between a node's FRR and workloads or routers (kube-vip, MetalLB, VMs,
 * appliances) in a VRF or the default VRF, issue #28. Two modes, exactly one per object:
 * - `listenRange`: dynamic neighbours (`bgp listen range`) on every anycast gateway subnet of a
 *   Layer-2 network, in that network's VRF, on the nodes the network reaches;
 * - `neighbor`: explicit peer addresses, in a VRF or the default VRF.
 * Everything else is the session's policy: remote AS, timers, BFD, per-family prefix limits, and the
 * import / export prefix items (default deny, the same item shape and rules as a VRF's).
 *
 * A TCP-MD5 password comes only by reference (`passwordSecretRef`, issue 41): every agent can read
 * every NodeConfig and revision, so the password itself is never written into one; they carry the
 * reference and a salted hash of the value (config/bgp-password.ts), and the agent reads the Secret
 * itself (docs/resources.md, "Passwords").
 */
import { Type, type Static } from '@sinclair/typebox';
import {
  COMMUNITY_PATTERN,
  PASSWORD_HASH_PATTERN,
  PEER_ADDRESS_PATTERN,
  SECRET_KEY_PATTERN,
  SECRET_NAME_PATTERN,
  VRF_NAME_PATTERN,
} from '../grammar/patterns.js';
import * as L from '../grammar/limits.js';
import { PrefixItem } from './prefix-item.js';
import { InputStatus, LabelSelector, Name, StringEnum } from './common.js';

export const BGP_ADDRESS_FAMILIES = ['ipv4', 'ipv6'] as const;
export type BgpAddressFamily = (typeof BGP_ADDRESS_FAMILIES)[number];
export const REMOTE_AS_KINDS = ['internal', 'external'] as const;

export const BgpBfd = Type.Object(
  {
    receiveInterval: Type.Optional(
      Type.Integer({ minimum: 10, maximum: 60000, description: 'Milliseconds; FRR default 300.' }),
    ),
    transmitInterval: Type.Optional(
      Type.Integer({ minimum: 10, maximum: 60000, description: 'Milliseconds; FRR default 300.' }),
    ),
    detectMultiplier: Type.Optional(
      Type.Integer({ minimum: 2, maximum: 255, description: 'Missed packets before down; FRR default 3.' }),
    ),
    echoMode: Type.Optional(Type.Boolean({ description: 'Send echo packets (FRR default off).' })),
    passiveMode: Type.Optional(
      Type.Boolean({ description: 'Wait for the peer to start BFD (FRR default off).' }),
    ),
  },
  { description: "BFD for the peering's sessions, rendered as a BFD profile named after the peering." },
);
export type BgpBfd = Static<typeof BgpBfd>;

export const BgpListenRange = Type.Object({
  layer2: Name({
    minLength: 1,
    description:
      'Layer2NetworkConfiguration whose anycast gateway subnets become listen ranges, in its VRF, on the nodes it reaches.',
  }),
});

export const BgpNeighbor = Type.Object({
  addresses: Type.Array(
    Type.String({ pattern: PEER_ADDRESS_PATTERN, maxLength: 39, description: 'Peer IP address.' }),
    { minItems: 1, maxItems: L.MAX_BGP_NEIGHBORS },
  ),
  vrf: Type.Optional(
    Type.String({
      pattern: VRF_NAME_PATTERN,
      maxLength: 12,
      description: 'VRF the sessions run in; absent: the default VRF.',
    }),
  ),
  ebgpMultihop: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 255, description: 'Allow an eBGP peer this many hops away.' }),
  ),
});

/** The key of the Secret a `passwordSecretRef` without `key` reads. */
export const DEFAULT_PASSWORD_KEY = 'password';

export const BgpPasswordSecretRef = Type.Object(
  {
    name: Type.String({
      pattern: SECRET_NAME_PATTERN,
      minLength: 1,
      maxLength: 253,
      description:
        'Secret holding the TCP-MD5 password, in the BGP password namespace (nodenet-bgp-passwords in deploy/).',
    }),
    key: Type.Optional(
      Type.String({
        pattern: SECRET_KEY_PATTERN,
        minLength: 1,
        maxLength: 253,
        description: `Key of the Secret's data; default ${DEFAULT_PASSWORD_KEY}.`,
      }),
    ),
    namespace: Type.Optional(
      Type.String({
        pattern: SECRET_NAME_PATTERN,
        maxLength: 63,
        description:
          'Only the BGP password namespace (nodenet-bgp-passwords in deploy/): agents may read Secrets there and nowhere else; any other is refused.',
      }),
    ),
  },
  {
    description:
      'TCP-MD5 password of the sessions, read by each agent from the Secret (never written into a NodeConfig or revision).',
  },
);
export type BgpPasswordSecretRef = Static<typeof BgpPasswordSecretRef>;

/** A password reference as a revision and a node carry it: the Secret, its key, a salted hash of the value. */
export const BgpPasswordRef = Type.Object({
  hash: Type.String({ pattern: PASSWORD_HASH_PATTERN, maxLength: 80 }),
  key: Type.String({ pattern: SECRET_KEY_PATTERN, maxLength: 253 }),
  secret: Type.String({ pattern: SECRET_NAME_PATTERN, maxLength: 253 }),
});
export type BgpPasswordRef = Static<typeof BgpPasswordRef>;

const maxPrefixes = (family: string) =>
  Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: L.MAX_BGP_MAX_PREFIXES,
      description: `Routes one session may send for ${family}; more end the session. Default ${L.DEFAULT_BGP_MAX_PREFIXES}.`,
    }),
  );
export const BgpMaxPrefixes = Type.Object({ ipv4: maxPrefixes('IPv4'), ipv6: maxPrefixes('IPv6') });

export const BGPPeeringSpec = Type.Object(
  {
    listenRange: Type.Optional(BgpListenRange),
    neighbor: Type.Optional(BgpNeighbor),
    remoteASN: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 4294967295, description: 'AS number of the peers.' }),
    ),
    remoteAS: Type.Optional(
      StringEnum(REMOTE_AS_KINDS, {
        description: 'internal (same AS as the node) or external (any other AS); instead of remoteASN.',
      }),
    ),
    holdTime: Type.Optional(Type.Integer({ minimum: 3, maximum: 65535, description: 'Seconds.' })),
    keepaliveTime: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 21845, description: 'Seconds; at most a third of holdTime.' }),
    ),
    addressFamilies: Type.Optional(
      Type.Array(StringEnum(BGP_ADDRESS_FAMILIES), {
        maxItems: 2,
        description: 'Unicast address families of the sessions; default both.',
      }),
    ),
    maxPrefixes: Type.Optional(BgpMaxPrefixes),
    import: Type.Optional(
      Type.Array(PrefixItem, {
        maxItems: L.MAX_PREFIX_LIST_ITEMS,
        description: 'Prefixes accepted from the peers; everything else is refused.',
      }),
    ),
    export: Type.Optional(
      Type.Array(PrefixItem, {
        maxItems: L.MAX_PREFIX_LIST_ITEMS,
        description: 'Prefixes announced to the peers; nothing else is.',
      }),
    ),
    importCommunities: Type.Optional(
      Type.Array(Type.String({ pattern: COMMUNITY_PATTERN, maxLength: 32 }), {
        maxItems: L.MAX_BGP_COMMUNITIES,
        description: 'Communities added to every route accepted from the peers.',
      }),
    ),
    bfd: Type.Optional(BgpBfd),
    nodeSelector: Type.Optional(LabelSelector),
    passwordSecretRef: Type.Optional(BgpPasswordSecretRef),
    owner: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: L.MAX_NAME_LENGTH,
        description:
          "Who manages this peering: the writer's user name (request.userInfo.username), checked by the admission policy nodenet-peering-owner; the network or VRF must admit it (spec.peering.admit). Absent: a network admin's peering.",
      }),
    ),
    reannounce: Type.Optional(
      Type.Boolean({
        description:
          'Routes accepted from the peers may be announced onward (to the fabric, EVPN, other peers). Default false: the node keeps them to itself (community no-advertise).',
      }),
    ),
  },
  {
    'x-kubernetes-validations': [
      {
        rule: 'has(self.listenRange) != has(self.neighbor)',
        message: 'exactly one of listenRange and neighbor must be set',
      },
      {
        rule: 'has(self.remoteASN) != has(self.remoteAS)',
        message: 'exactly one of remoteASN and remoteAS must be set',
      },
      {
        rule: 'has(self.holdTime) == has(self.keepaliveTime)',
        message: 'holdTime and keepaliveTime must be set together',
        fieldPath: '.keepaliveTime',
      },
      {
        rule: '!has(self.holdTime) || !has(self.keepaliveTime) || self.keepaliveTime * 3 <= self.holdTime',
        message: 'keepaliveTime must be at most a third of holdTime',
        fieldPath: '.keepaliveTime',
      },
    ],
  },
);
export type BGPPeeringSpec = Static<typeof BGPPeeringSpec>;

/** Per peering: the nodes it applies to and how many of its sessions FRR shows Established. */
export const BGPPeeringStatus = Type.Composite([
  InputStatus,
  Type.Object({
    nodes: Type.Optional(Type.Integer({ minimum: 0, description: 'Nodes the peering applies to.' })),
    established: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Sessions of the peering FRR shows Established.' }),
    ),
    remoteAS: Type.Optional(
      Type.String({
        maxLength: 16,
        description: 'The remote AS as one text: spec.remoteASN, or spec.remoteAS (internal, external).',
      }),
    ),
  }),
]);
export type BGPPeeringStatus = Static<typeof BGPPeeringStatus>;

/**
 * A BGPPeering as it appears in a revision: the spec with defaults applied and lists sorted (merging
 * an entry again gives the same entry, which holding back a refused object relies on).
 */
export const BgpPeeringEntry = Type.Composite([
  Type.Object({ name: Name({ description: 'Name of the BGPPeering it came from.' }) }),
  Type.Omit(BGPPeeringSpec, [
    'addressFamilies',
    'import',
    'export',
    'importCommunities',
    'passwordSecretRef',
  ]),
  Type.Object({
    /** The Secret, its key and the salted hash of its value when the build read it (a rotation: a new hash). */
    password: Type.Optional(BgpPasswordRef),
    addressFamilies: Type.Array(StringEnum(BGP_ADDRESS_FAMILIES), { maxItems: 2 }),
    import: Type.Array(PrefixItem, { maxItems: L.MAX_PREFIX_LIST_ITEMS }),
    export: Type.Array(PrefixItem, { maxItems: L.MAX_PREFIX_LIST_ITEMS }),
    importCommunities: Type.Array(Type.String({ pattern: COMMUNITY_PATTERN, maxLength: 32 }), {
      maxItems: L.MAX_BGP_COMMUNITIES,
    }),
  }),
]);
export type BgpPeeringEntry = Static<typeof BgpPeeringEntry>;

/**
 * A peering as a node receives it: resolved against the revision (the listen range's subnets and
 * VRF come from its Layer-2 network), already filtered by the selectors, so without them.
 */
export const NodeBgpPeeringEntry = Type.Object({
  name: Name({ description: 'Name of the BGPPeering it came from.' }),
  /** VRF of the sessions; absent: the default VRF. */
  vrf: Type.Optional(Type.String({ pattern: VRF_NAME_PATTERN, maxLength: 12 })),
  /** Listen-range subnets (network form), sorted; empty in neighbor mode. */
  listenRanges: Type.Array(Type.String({ maxLength: L.MAX_CIDR_LENGTH }), {
    maxItems: L.MAX_ANYCAST_GATEWAYS,
  }),
  neighbors: Type.Array(Type.String({ maxLength: 39 }), { maxItems: L.MAX_BGP_NEIGHBORS }),
  /** Where the agent reads the password, and the hash its value must have (the revision's). */
  password: Type.Optional(BgpPasswordRef),
  ebgpMultihop: Type.Optional(Type.Integer({ minimum: 1, maximum: 255 })),
  /** An AS number, `internal` or `external`. */
  remoteAS: Type.String({ maxLength: 16 }),
  holdTime: Type.Optional(Type.Integer({ minimum: 3, maximum: 65535 })),
  keepaliveTime: Type.Optional(Type.Integer({ minimum: 1, maximum: 21845 })),
  addressFamilies: Type.Array(StringEnum(BGP_ADDRESS_FAMILIES), { maxItems: 2 }),
  maxPrefixes: Type.Optional(BgpMaxPrefixes),
  import: Type.Array(PrefixItem, { maxItems: L.MAX_PREFIX_LIST_ITEMS }),
  export: Type.Array(PrefixItem, { maxItems: L.MAX_PREFIX_LIST_ITEMS }),
  importCommunities: Type.Array(Type.String({ pattern: COMMUNITY_PATTERN, maxLength: 32 }), {
    maxItems: L.MAX_BGP_COMMUNITIES,
  }),
  bfd: Type.Optional(BgpBfd),
  /** Present (true) only when the peering allows its routes onward; absent: tagged no-advertise. */
  reannounce: Type.Optional(Type.Boolean()),
});
export type NodeBgpPeeringEntry = Static<typeof NodeBgpPeeringEntry>;
