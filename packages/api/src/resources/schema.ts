/**
 * The five nodenet resources, each defined once. The TypeScript types below are derived from these
 * schemas (`Static<…>`), and `crd.ts` turns the very same objects into the CRDs' openAPIV3Schema,
 * so types, API-server validation and the configurator's own checks can not drift apart.
 *
 * Only constructs that are valid in a Kubernetes structural schema are used: no `const`, no
 * `additionalProperties: false` next to `properties`; enums are `{type: string, enum: [...]}`.
 */
import { Type, type Static } from '@sinclair/typebox';
import {
  CIDR_PATTERN,
  COMMUNITY_PATTERN,
  MAC_PATTERN,
  ROUTE_TARGET_PATTERN,
  VRF_NAME_PATTERN,
} from '../grammar/patterns.js';
import * as L from '../grammar/limits.js';
import { RESERVED_VRF_NAMES_RULE } from './cel-rules.js';
import { Cidr, Condition, LabelSelector, Name, StringEnum, Timestamp } from './common.js';
import { VRF_TABLE_RANGE } from '../names/kubernetes.js';
import { AgentConditions, ObservedState } from './observed.js';
import { LoopbackAddress, Loopbacks, NodeLoopbackAddress, StaticRoutes } from './vrf-extras.js';
import { PrefixItem } from './prefix-item.js';
import { FollowUpStatus } from './follow-up-status.js';
import { BgpPeeringEntry, NodeBgpPeeringEntry } from './bgp-peering.js';
import { PeeringPolicy, VrfPeeringPolicy } from './peering-policy.js';
import { AgentConfigEntry, NodeAgentConfig } from './agent-configuration.js';
export { PrefixItem } from './prefix-item.js';
export { Condition, InputStatus, LabelSelector, LabelSelectorRequirement, StringEnum } from './common.js';

// ---------------------------------------------------------------- VRFRouteConfiguration

export const VRFRouteConfigurationSpec = Type.Object({
  vrf: Type.String({
    pattern: VRF_NAME_PATTERN,
    maxLength: 12,
    description: 'VRF name (≤ 12 chars of [A-Za-z0-9_-]); becomes part of interface names.',
    'x-kubernetes-validations': [RESERVED_VRF_NAMES_RULE],
  }),
  vni: Type.Integer({ minimum: 1, maximum: L.VNI_MAX, description: 'L3 VNI of the VRF.' }),
  routeTarget: Type.Optional(
    Type.String({
      pattern: ROUTE_TARGET_PATTERN,
      maxLength: 21,
      description: 'Route target, ASN:NN or IPv4:NN.',
    }),
  ),
  import: Type.Optional(
    Type.Array(PrefixItem, {
      maxItems: L.MAX_PREFIX_LIST_ITEMS,
      description: 'Prefixes leaked from the VRF into the default VRF.',
    }),
  ),
  export: Type.Optional(
    Type.Array(PrefixItem, {
      maxItems: L.MAX_PREFIX_LIST_ITEMS,
      description: 'Prefixes leaked from the default VRF into the VRF.',
    }),
  ),
  aggregate: Type.Optional(
    Type.Array(Cidr('Aggregate announced from the VRF.', 'network'), { maxItems: L.MAX_AGGREGATES }),
  ),
  seq: Type.Integer({
    minimum: 1,
    maximum: 65534,
    description: 'Route-map sequence of this object within its VRF.',
  }),
  mtu: Type.Optional(Type.Integer({ minimum: L.MTU_MIN, maximum: L.MTU_MAX, default: 9000 })),
  community: Type.Optional(
    Type.String({
      pattern: COMMUNITY_PATTERN,
      maxLength: 32,
      description: 'Community set on exported routes.',
    }),
  ),
  nodeSelector: Type.Optional(LabelSelector),
  staticRoutes: Type.Optional(StaticRoutes),
  loopbacks: Type.Optional(Loopbacks),
  peering: Type.Optional(VrfPeeringPolicy),
});
export type VRFRouteConfigurationSpec = Static<typeof VRFRouteConfigurationSpec>;

// ---------------------------------------------------------------- Layer2NetworkConfiguration

export const Layer2NetworkConfigurationSpec = Type.Object(
  {
    id: Type.Integer({ minimum: 1, maximum: 4094, description: 'VLAN id; names the bridge l2.<id>.' }),
    mtu: Type.Optional(Type.Integer({ minimum: L.MTU_MIN, maximum: L.MTU_MAX, default: 1500 })),
    vni: Type.Integer({ minimum: 1, maximum: L.VNI_MAX, description: 'L2 VNI.' }),
    anycastMac: Type.Optional(
      Type.String({ pattern: MAC_PATTERN, maxLength: 17, description: 'MAC of the anycast gateway.' }),
    ),
    anycastGateways: Type.Optional(
      Type.Array(Cidr('Gateway address with prefix length, e.g. 10.0.0.1/24.', 'gateway'), {
        maxItems: L.MAX_ANYCAST_GATEWAYS,
      }),
    ),
    advertiseNeighbors: Type.Optional(Type.Boolean({ default: false })),
    createMacVLANInterface: Type.Optional(Type.Boolean({ default: false })),
    neighSuppression: Type.Optional(Type.Boolean({ default: false })),
    vrf: Type.Optional(
      Type.String({ pattern: VRF_NAME_PATTERN, maxLength: 12, description: 'VRF to enslave to.' }),
    ),
    nodeSelector: Type.Optional(LabelSelector),
    peering: Type.Optional(PeeringPolicy),
  },
  {
    'x-kubernetes-validations': [
      {
        rule: '!has(self.anycastGateways) || size(self.anycastGateways) == 0 || has(self.anycastMac)',
        message: 'anycastMac is required when anycastGateways is set',
        fieldPath: '.anycastMac',
        reason: 'FieldValueRequired',
      },
      {
        rule: "!has(self.anycastMac) || self.anycastMac.matches('^[0-9A-Fa-f][02468aceACE]')",
        message: 'anycastMac must be a unicast MAC (lowest bit of the first octet clear)',
        fieldPath: '.anycastMac',
      },
    ],
  },
);
export type Layer2NetworkConfigurationSpec = Static<typeof Layer2NetworkConfigurationSpec>;

// ---------------------------------------------------------------- RoutingTable

export const RoutingTableSpec = Type.Object(
  {
    tableId: Type.Integer({
      minimum: 1,
      maximum: 4294967295,
      description: 'Kernel routing table id, exposed as VRF taas.<tableId>.',
    }),
  },
  {
    'x-kubernetes-validations': [
      {
        rule: 'self.tableId < 253 || self.tableId > 255',
        message: "tableId 253, 254 and 255 are the kernel's default, main and local tables",
        fieldPath: '.tableId',
      },
      {
        rule: `self.tableId < ${VRF_TABLE_RANGE.min} || self.tableId > ${VRF_TABLE_RANGE.max} || (self.tableId >= 253 && self.tableId <= 255)`,
        message: `tableId must be outside ${VRF_TABLE_RANGE.min}-${VRF_TABLE_RANGE.max}, the range agents allocate VRF tables from`,
        fieldPath: '.tableId',
      },
    ],
  },
);
export type RoutingTableSpec = Static<typeof RoutingTableSpec>;

// ---------------------------------------------------------------- merged configuration

/** A VRFRouteConfiguration as it appears in a revision: defaults applied, lists sorted. */
export const VrfEntry = Type.Object({
  name: Name({ description: 'Name of the VRFRouteConfiguration it came from.' }),
  vrf: Type.String({ pattern: VRF_NAME_PATTERN, maxLength: 12 }),
  vni: Type.Integer({ minimum: 1, maximum: L.VNI_MAX }),
  routeTarget: Type.Optional(Type.String({ pattern: ROUTE_TARGET_PATTERN, maxLength: 21 })),
  import: Type.Array(PrefixItem, { maxItems: L.MAX_PREFIX_LIST_ITEMS }),
  export: Type.Array(PrefixItem, { maxItems: L.MAX_PREFIX_LIST_ITEMS }),
  aggregate: Type.Array(Type.String({ pattern: CIDR_PATTERN, maxLength: L.MAX_CIDR_LENGTH }), {
    maxItems: L.MAX_AGGREGATES,
  }),
  seq: Type.Integer({ minimum: 1, maximum: 65534 }),
  mtu: Type.Integer({ minimum: L.MTU_MIN, maximum: L.MTU_MAX }),
  community: Type.Optional(Type.String({ pattern: COMMUNITY_PATTERN, maxLength: 32 })),
  // Present only when set, so configs without them keep their hash.
  nodeSelector: Type.Optional(LabelSelector),
  staticRoutes: Type.Optional(StaticRoutes),
  loopbacks: Type.Optional(Loopbacks),
  // Who may attach peerings; kept so that a held-back VRF object keeps admitting them.
  peering: Type.Optional(VrfPeeringPolicy),
});
export type VrfEntry = Static<typeof VrfEntry>;

export const Layer2Entry = Type.Object({
  name: Name({ description: 'Name of the Layer2NetworkConfiguration it came from.' }),
  id: Type.Integer({ minimum: 1, maximum: 4094 }),
  mtu: Type.Integer({ minimum: L.MTU_MIN, maximum: L.MTU_MAX }),
  vni: Type.Integer({ minimum: 1, maximum: L.VNI_MAX }),
  anycastMac: Type.Optional(Type.String({ pattern: MAC_PATTERN, maxLength: 17 })),
  anycastGateways: Type.Array(Type.String({ pattern: CIDR_PATTERN, maxLength: L.MAX_CIDR_LENGTH }), {
    maxItems: L.MAX_ANYCAST_GATEWAYS,
  }),
  advertiseNeighbors: Type.Boolean(),
  createMacVLANInterface: Type.Boolean(),
  neighSuppression: Type.Boolean(),
  vrf: Type.Optional(Type.String({ pattern: VRF_NAME_PATTERN, maxLength: 12 })),
  nodeSelector: Type.Optional(LabelSelector),
  // Present only when set, so configs without it keep their hash; kept in the revision so that a
  // held-back network keeps what it allowed its peerings.
  peering: Type.Optional(PeeringPolicy),
});
export type Layer2Entry = Static<typeof Layer2Entry>;

export const RoutingTableEntry = Type.Object({
  name: Name({ description: 'Name of the RoutingTable it came from.' }),
  tableId: Type.Integer({ minimum: 1, maximum: 4294967295 }),
});
export type RoutingTableEntry = Static<typeof RoutingTableEntry>;

export const NetworkConfig = Type.Object({
  vrf: Type.Array(VrfEntry, { maxItems: L.MAX_CONFIG_ENTRIES }),
  layer2: Type.Array(Layer2Entry, { maxItems: L.MAX_CONFIG_ENTRIES }),
  routingTable: Type.Array(RoutingTableEntry, { maxItems: L.MAX_CONFIG_ENTRIES }),
  /** Every node's loopback addresses (config/loopbacks.ts); present only when some VRF has loopbacks. */
  loopbackAddresses: Type.Optional(Type.Array(LoopbackAddress, { maxItems: L.MAX_CONFIG_ENTRIES })),
  /** BGPPeerings (issue #28); absent when there are none, so configs without any hash as before. */
  bgpPeering: Type.Optional(Type.Array(BgpPeeringEntry, { maxItems: L.MAX_CONFIG_ENTRIES })),
  /** AgentConfigurations (issue #36); absent when there are none, so configs without any hash as before. */
  agentConfig: Type.Optional(Type.Array(AgentConfigEntry, { maxItems: L.MAX_CONFIG_ENTRIES })),
});
export type NetworkConfig = Static<typeof NetworkConfig>;

// ---------------------------------------------------------------- NetworkConfigRevision

export const NetworkConfigRevisionSpec = Type.Object({
  config: NetworkConfig,
  hash: Type.String({
    pattern: '^[0-9a-f]{64}$',
    maxLength: 64,
    description: 'sha256 of the canonical JSON of config.',
  }),
  number: Type.Integer({ minimum: 1, description: 'Monotonic revision number; orders revisions.' }),
  paused: Type.Optional(
    Type.Boolean({ default: false, description: 'A paused revision starts no new nodes.' }),
  ),
  aborted: Type.Optional(
    Type.Boolean({
      description: 'Set by a person: the revision is invalid (reason Aborted) and its nodes roll back.',
    }),
  ),
  retryOf: Type.Optional(Name({ description: 'Name of the invalid revision this one is a new attempt of.' })),
  changedInputs: Type.Optional(
    Type.Array(Type.String({ maxLength: L.MAX_INPUT_REF_LENGTH }), {
      maxItems: L.MAX_CHANGED_INPUTS,
      description:
        'Inputs (Kind/name@generation) whose generation first reached a revision here: the suspects if it is invalidated.',
    }),
  ),
  changedInputsOmitted: Type.Optional(
    Type.Integer({
      minimum: 1,
      description:
        'Changed inputs not listed in changedInputs (the list is kept within 32 KiB): with it, every input whose entry differs from the fallback is a suspect.',
    }),
  ),
});
export type NetworkConfigRevisionSpec = Static<typeof NetworkConfigRevisionSpec>;

export const FailedNode = Type.Object({
  node: Name(),
  message: Type.String({ maxLength: L.MAX_MESSAGE_LENGTH }),
  at: Timestamp(),
});
export type FailedNode = Static<typeof FailedNode>;

/** Where a revision stands; `docs/rollout.md` explains each. */
export const REVISION_PHASES = ['RollingOut', 'Paused', 'Complete', 'Superseded', 'Invalid'] as const;
export type RevisionPhase = (typeof REVISION_PHASES)[number];

/**
 * How disruptive a change is to a node's host, mildest first (docs/operations.md, "How disruptive a
 * change is"; the agent's host plan classifies each step).
 */
export const DISRUPTION_CLASSES = [
  'none',
  'refilter',
  'session-reset',
  'l2-interruption',
  'vrf-rebuild',
] as const;
export type DisruptionClass = (typeof DISRUPTION_CLASSES)[number];

const NodeCount = Type.Optional(Type.Integer({ minimum: 0 }));

/** What a revision does to the hosts, against the revision the nodes were on when it was built. */
export const RevisionDisruption = Type.Object({
  worst: StringEnum(DISRUPTION_CLASSES),
  /** The revision compared against (absent: none had completed: every node from nothing). */
  from: Type.Optional(Name()),
  /** Nodes per class; `unchanged`: hosts the revision leaves alone, `refused`: specs an agent would refuse. */
  nodes: Type.Object({
    unchanged: NodeCount,
    none: NodeCount,
    refilter: NodeCount,
    'session-reset': NodeCount,
    'l2-interruption': NodeCount,
    'vrf-rebuild': NodeCount,
    refused: NodeCount,
  }),
});
export type RevisionDisruption = Static<typeof RevisionDisruption>;

export const NetworkConfigRevisionStatus = Type.Object({
  phase: Type.Optional(StringEnum(REVISION_PHASES)),
  total: Type.Optional(Type.Integer({ minimum: 0 })),
  queued: Type.Optional(Type.Integer({ minimum: 0 })),
  ongoing: Type.Optional(Type.Integer({ minimum: 0 })),
  ready: Type.Optional(Type.Integer({ minimum: 0 })),
  ranOn: NodeCount, // the most nodes ready on it at once: how many ran it (ready/total: on it now)
  failed: Type.Optional(Type.Integer({ minimum: 0 })),
  isInvalid: Type.Optional(Type.Boolean()),
  failedNodes: Type.Optional(Type.Array(FailedNode, { maxItems: 50 })),
  /** Failures that do not count against the revision (late joiners, failed rollbacks): reported only. */
  degraded: Type.Optional(Type.Integer({ minimum: 0 })),
  degradedNodes: Type.Optional(Type.Array(FailedNode, { maxItems: 50 })),
  /** Nodes on this revision whose host config it left unchanged: they moved without a slot. */
  unchanged: Type.Optional(Type.Integer({ minimum: 0 })),
  /** Name of the revision created as a new attempt of this (invalid) one. */
  retriedBy: Type.Optional(Name()),
  /** Set once, when the configurator first sees the revision (kubectl nodenet diff --host in brief). */
  disruption: Type.Optional(RevisionDisruption),
  startedAt: Type.Optional(Timestamp()),
  completedAt: Type.Optional(Timestamp()),
  /**
   * Set once, when a node's agent first reported the revision `provisioned` (it ran there): with no
   * failure recorded, the revision is a fallback its successors' failed changes roll back to
   * (held-back/suspects.ts), even before it completed.
   */
  ranAt: Type.Optional(Timestamp()),
  ...FollowUpStatus,
  conditions: Type.Optional(Type.Array(Condition, { maxItems: L.MAX_CONDITIONS })),
});
export type NetworkConfigRevisionStatus = Static<typeof NetworkConfigRevisionStatus>;

// ---------------------------------------------------------------- NodeConfig

/** A Layer-2 network as a node receives it: already filtered, so without its node selector. */
export const NodeLayer2Entry = Type.Omit(Layer2Entry, ['nodeSelector']);
export type NodeLayer2Entry = Static<typeof NodeLayer2Entry>;

/**
 * A VRF entry as a node receives it: already filtered, so without its node selector, and with the
 * node's own address of each of its loopbacks (`loopbackAddresses`, by loopback name).
 */
export const NodeVrfEntry = Type.Composite([
  Type.Omit(VrfEntry, ['nodeSelector']),
  Type.Object({
    loopbackAddresses: Type.Optional(Type.Array(NodeLoopbackAddress, { maxItems: L.MAX_LOOPBACKS })),
  }),
]);
export type NodeVrfEntry = Static<typeof NodeVrfEntry>;

export const NodeConfigSpec = Type.Object({
  revision: Type.String({
    pattern: '^[0-9a-f]{64}$',
    maxLength: 64,
    description: 'Hash of the revision this config belongs to.',
  }),
  vrf: Type.Array(NodeVrfEntry, { maxItems: L.MAX_CONFIG_ENTRIES }),
  layer2: Type.Array(NodeLayer2Entry, { maxItems: L.MAX_CONFIG_ENTRIES }),
  routingTable: Type.Array(RoutingTableEntry, { maxItems: L.MAX_CONFIG_ENTRIES }),
  /** The BGPPeerings that reach this node; absent when none do. */
  bgpPeering: Type.Optional(Type.Array(NodeBgpPeeringEntry, { maxItems: L.MAX_CONFIG_ENTRIES })),
  /** The FRR base template and health checks of the AgentConfiguration that selects this node; absent when none does. */
  agent: Type.Optional(NodeAgentConfig),
});
export type NodeConfigSpec = Static<typeof NodeConfigSpec>;

export const CONFIG_STATUSES = ['provisioning', 'provisioned', 'invalid'] as const;
export type ConfigStatus = (typeof CONFIG_STATUSES)[number];

/**
 * Why an `invalid` report is invalid, so the configurator can tell a bad change from a bad moment
 * (docs/agent-status.md). Absent (an agent that does not say) reads as `ChangeFailed`.
 * - `ChangeFailed`: the change failed its checks or cut the node off; the previous config is back
 *   on the host (`lastAppliedRevision` names it). Counts against the revision.
 * - `Interrupted`: the agent was stopped, or the control plane was down, while the node's own checks
 *   still passed; the previous config is back. Not the change's fault: the configurator re-assigns
 *   the node (bounded) instead of counting it.
 * - `RestoreFailed`: the change failed and restoring the previous config failed too; the host may be
 *   half-applied and `lastAppliedRevision` makes no claim (absent). Counts against the revision and
 *   the node needs attention.
 */
export const FAILURE_CAUSES = ['ChangeFailed', 'Interrupted', 'RestoreFailed'] as const;
export type FailureCause = (typeof FAILURE_CAUSES)[number];

export const NodeConfigStatus = Type.Object({
  configStatus: Type.Optional(StringEnum(CONFIG_STATUSES)),
  lastUpdate: Type.Optional(Timestamp()),
  lastAppliedRevision: Type.Optional(Name()),
  /**
   * Number of the revision this report answers (the NodeConfig's `revision-number` label at the
   * generation the conditions' `observedGeneration` names), so `kubectl get nc` shows it from
   * status. Absent from older agents: the configurator then keeps the row labels for them.
   */
  revisionNumber: Type.Optional(Type.Integer({ minimum: 1 })),
  /** Number of the revision `lastAppliedRevision` names (on the host), when the agent knows it. */
  appliedRevisionNumber: Type.Optional(Type.Integer({ minimum: 1 })),
  /** Only with `configStatus: invalid`: why (see FAILURE_CAUSES). */
  failureCause: Type.Optional(StringEnum(FAILURE_CAUSES)),
  // Bounded to what the agent writes (limits.ts): the status' largest size is part of the size budget.
  message: Type.Optional(Type.String({ maxLength: L.MAX_AGENT_MESSAGE_LENGTH })),
  conditions: Type.Optional(AgentConditions),
  /** The node's run-time state as FRR shows it; written only when it changes (agent, observed/). */
  observed: Type.Optional(ObservedState),
});
export type NodeConfigStatus = Static<typeof NodeConfigStatus>;
