/** API group and version of every nodenet resource. */
export const GROUP = 'network.nodenet.io';
/** The nodenet release every binary prints with `--version` (kept equal to package.json by a test). */
export const NODENET_VERSION = '0.1.0';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;

/** Annotation the configurator sets on a NodeConfig when it hands the node a revision (RFC 3339). */
export const ASSIGNED_AT_ANNOTATION = `${GROUP}/assigned-at`;
/** Annotation on a NodeConfig: sha256 of its spec's canonical JSON, so a relabelled node shows as outdated. */
export const SPEC_HASH_ANNOTATION = `${GROUP}/spec-hash`;
/**
 * Annotation on a NodeConfig: what kind of move its assignment was. `forward` (during the revision's
 * rollout: its failure counts against the revision), `rollback` (away from an invalid revision) or
 * `catch-up` (the revision had completed): the last two are reported, never invalidating.
 * `unchanged`: the revision leaves the node's host config as it is (only the revision reference
 * differs), so the node moves without a slot or a soak; its failures are reported, never counted.
 */
export const MOVE_ANNOTATION = `${GROUP}/move`;
/**
 * The number of the newest revision the node's host ran (its agent reported it provisioned, or
 * restored it) before this assignment, written by the configurator with each assignment: where a
 * rollback of this assignment takes the node (issue 35: a node gets back what it ran, never more).
 */
export const RAN_BEFORE_ANNOTATION = `${GROUP}/ran-before`;
/**
 * The uid of the Node a NodeConfig was written for, with each assignment (the Node owner reference
 * says the same, but the garbage collector trims it once that Node is gone while the revision owns
 * the NodeConfig still). A Node re-created under the same name has another uid: the NodeConfig's
 * status is the old node's, no answer of the new one's agent (issue 35).
 */
export const NODE_UID_ANNOTATION = `${GROUP}/node-uid`;
export const MOVE_KINDS = ['forward', 'rollback', 'catch-up', 'unchanged'] as const;
export type MoveKind = (typeof MOVE_KINDS)[number];
/** Annotation a person sets on an invalid revision to ask for one new attempt (any value). */
export const RETRY_ANNOTATION = `${GROUP}/retry`;
/**
 * Annotation the configurator keeps on every revision: the highest revision number ever used, so a
 * new number is above every earlier one even after the newest revisions were deleted.
 */
export const HIGHEST_NUMBER_ANNOTATION = `${GROUP}/highest-number`;
/** Label on every NodeConfig with the number of the revision it carries, for `kubectl get -l`. */
export const REVISION_NUMBER_LABEL = `${GROUP}/revision-number`;
/**
 * Labels the configurator keeps on every NodeConfig for `kubectl get nc`: the agent's report when it
 * is about the current spec (else `pending`), and the number of the revision on the host.
 */
export const REPORT_LABEL = `${GROUP}/report`;
export const APPLIED_NUMBER_LABEL = `${GROUP}/applied-number`;
/**
 * The agent's start-up self-check (FRR template, VTEP interface): condition on its NodeConfig
 * (`AgentReady=False`, reason `AgentMisconfigured`) and on its Node. Such a node is unavailable to
 * the configurator, never a revision failure.
 */
export const AGENT_READY_CONDITION = 'AgentReady';
export const AGENT_MISCONFIGURED_REASON = 'AgentMisconfigured';
export const NODE_AGENT_READY_CONDITION = 'NodenetAgentReady';
/**
 * The agent's Node condition: True when the node's NodeConfig is applied and the host is healthy,
 * False with a reason (Applying, Confirming, Restored, RestoreFailed, ApplyFailed, Unhealthy) otherwise.
 */
export const NODENET_READY_CONDITION = 'NodenetReady';
/** The one RolloutPolicy the configurator reads (fleet-wide pause and rollout knobs). */
export const ROLLOUT_POLICY_NAME = 'default';
/**
 * Label of the agents' liveness Leases (one per node, named after it, in the agents' namespace):
 * the configurator watches only Leases that carry it (docs/agent-status.md).
 */
export const AGENT_LEASE_LABEL = `${GROUP}/agent-lease`;
/** Label `true` on exactly the desired revision (the one nodes are moved to). */
export const DESIRED_LABEL = `${GROUP}/desired`;

/** Kernel limit on interface names (IFNAMSIZ - 1). */
export const MAX_IFNAME_LENGTH = 15;
/** VRF names become part of interface names (`vr.<vrf>`), so they are capped to keep those ≤ 15 chars. */
export const MAX_VRF_NAME_LENGTH = 12;

/**
 * Routing tables agents allocate to VRFs (`vr.<vrf>`). RoutingTable ids must stay outside it, or a
 * RoutingTable would take the table of a running VRF on some node.
 */
export const VRF_TABLE_RANGE = { min: 100, max: 4000 } as const;

export type ResourceKind =
  | 'VRFRouteConfiguration'
  | 'Layer2NetworkConfiguration'
  | 'RoutingTable'
  | 'BGPPeering'
  | 'AgentConfiguration'
  | 'NetworkConfigRevision'
  | 'NodeConfig'
  | 'RolloutPolicy';

export interface ResourceNames {
  kind: ResourceKind;
  plural: string;
  singular: string;
  shortNames: string[];
}

export const RESOURCES: Record<ResourceKind, ResourceNames> = {
  VRFRouteConfiguration: {
    kind: 'VRFRouteConfiguration',
    plural: 'vrfrouteconfigurations',
    singular: 'vrfrouteconfiguration',
    shortNames: ['vrf'],
  },
  Layer2NetworkConfiguration: {
    kind: 'Layer2NetworkConfiguration',
    plural: 'layer2networkconfigurations',
    singular: 'layer2networkconfiguration',
    shortNames: ['layer2'],
  },
  RoutingTable: {
    kind: 'RoutingTable',
    plural: 'routingtables',
    singular: 'routingtable',
    shortNames: ['taas'],
  },
  BGPPeering: {
    kind: 'BGPPeering',
    plural: 'bgppeerings',
    singular: 'bgppeering',
    shortNames: ['bgpp'],
  },
  AgentConfiguration: {
    kind: 'AgentConfiguration',
    plural: 'agentconfigurations',
    singular: 'agentconfiguration',
    shortNames: ['agentconfig'],
  },
  NetworkConfigRevision: {
    kind: 'NetworkConfigRevision',
    plural: 'networkconfigrevisions',
    singular: 'networkconfigrevision',
    shortNames: ['ncr'],
  },
  NodeConfig: {
    kind: 'NodeConfig',
    plural: 'nodeconfigs',
    singular: 'nodeconfig',
    shortNames: ['nc', 'nnc'],
  },
  RolloutPolicy: {
    kind: 'RolloutPolicy',
    plural: 'rolloutpolicies',
    singular: 'rolloutpolicy',
    shortNames: ['nrp'],
  },
};
