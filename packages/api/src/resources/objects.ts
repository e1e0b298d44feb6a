/** Kubernetes object envelopes for the nodenet kinds (plain data, as read from the API). */
import type {
  InputStatus,
  Layer2NetworkConfigurationSpec,
  NetworkConfigRevisionSpec,
  NetworkConfigRevisionStatus,
  NodeConfigSpec,
  NodeConfigStatus,
  RoutingTableSpec,
  VRFRouteConfigurationSpec,
} from './schema.js';
import type { BGPPeeringSpec, BGPPeeringStatus } from './bgp-peering.js';
import type { RolloutPolicySpec, RolloutPolicyStatus } from './rollout-policy.js';
import type { AgentConfigurationSpec } from './agent-configuration.js';

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
}

export interface Resource<K extends string, Spec, Status> {
  apiVersion: string;
  kind: K;
  metadata: ObjectMeta;
  spec: Spec;
  status?: Status;
}

export type VRFRouteConfiguration = Resource<'VRFRouteConfiguration', VRFRouteConfigurationSpec, InputStatus>;
export type Layer2NetworkConfiguration = Resource<
  'Layer2NetworkConfiguration',
  Layer2NetworkConfigurationSpec,
  InputStatus
>;
export type RoutingTable = Resource<'RoutingTable', RoutingTableSpec, InputStatus>;
export type BGPPeering = Resource<'BGPPeering', BGPPeeringSpec, BGPPeeringStatus>;
export type AgentConfiguration = Resource<'AgentConfiguration', AgentConfigurationSpec, InputStatus>;
export type NetworkConfigRevision = Resource<
  'NetworkConfigRevision',
  NetworkConfigRevisionSpec,
  NetworkConfigRevisionStatus
>;
export type NodeConfig = Resource<'NodeConfig', NodeConfigSpec, NodeConfigStatus>;
export type RolloutPolicy = Resource<'RolloutPolicy', RolloutPolicySpec, RolloutPolicyStatus>;

export type InputObject =
  VRFRouteConfiguration | Layer2NetworkConfiguration | RoutingTable | BGPPeering | AgentConfiguration;

/** All input objects the configurator merges into one revision. */
export interface Inputs {
  vrf: VRFRouteConfiguration[];
  layer2: Layer2NetworkConfiguration[];
  routingTable: RoutingTable[];
  /** Absent: none (callers written before BGPPeering existed pass none). */
  bgpPeering?: BGPPeering[];
  /** Absent: none (the agents' bootstrap template and health checks; issue #36). */
  agentConfiguration?: AgentConfiguration[];
}
