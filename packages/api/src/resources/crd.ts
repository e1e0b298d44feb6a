/**
 * The CustomResourceDefinitions, derived from the schemas in schema.ts. `npm run generate` writes
 * them to crds/; a test fails when crds/ differs from what this module produces.
 */
import type { TSchema } from '@sinclair/typebox';
import { GROUP, RESOURCES, VERSION, type ResourceKind } from '../names/kubernetes.js';
import {
  InputStatus,
  Layer2NetworkConfigurationSpec,
  NetworkConfigRevisionSpec,
  NetworkConfigRevisionStatus,
  NodeConfigSpec,
  NodeConfigStatus,
  RoutingTableSpec,
  VRFRouteConfigurationSpec,
} from './schema.js';
import { RolloutPolicySpec, RolloutPolicyStatus } from './rollout-policy.js';
import { BGPPeeringSpec, BGPPeeringStatus } from './bgp-peering.js';
import { AgentConfigurationSpec } from './agent-configuration.js';

export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  priority?: number;
}

const accepted: PrinterColumn = {
  name: 'Accepted',
  type: 'string',
  jsonPath: '.status.conditions[?(@.type=="Accepted")].status',
  description: 'Whether the configurator accepted this object',
};
const applied: PrinterColumn = {
  name: 'Applied',
  type: 'string',
  jsonPath: '.status.conditions[?(@.type=="Applied")].reason',
  description: 'Outcome of this generation: Applied, RollingOut, HeldBack, Blocked, Pending or RolledBack',
};
const age: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

interface KindDefinition {
  spec: TSchema;
  status: TSchema;
  columns: PrinterColumn[];
  description: string;
  /**
   * Whether the CRD keeps the schema's CEL rules. Only for objects people write: the configurator
   * writes revisions and NodeConfigs from validated inputs, and a rule inside their large nested
   * lists would multiply kube-apiserver's estimated CEL cost past its limit.
   */
  celRules: boolean;
}

const KINDS: Record<ResourceKind, KindDefinition> = {
  VRFRouteConfiguration: {
    description: 'A VRF with its L3 VNI, route leaking to and from the default VRF, and aggregates.',
    spec: VRFRouteConfigurationSpec,
    status: InputStatus,
    celRules: true,
    columns: [
      { name: 'VRF', type: 'string', jsonPath: '.spec.vrf' },
      { name: 'VNI', type: 'integer', jsonPath: '.spec.vni' },
      { name: 'Seq', type: 'integer', jsonPath: '.spec.seq' },
      { name: 'RT', type: 'string', jsonPath: '.spec.routeTarget', priority: 1 },
      accepted,
      applied,
      age,
    ],
  },
  Layer2NetworkConfiguration: {
    description: 'A Layer-2 network (bridge + VXLAN) on the nodes its selector matches.',
    spec: Layer2NetworkConfigurationSpec,
    status: InputStatus,
    celRules: true,
    columns: [
      { name: 'VLAN', type: 'integer', jsonPath: '.spec.id' },
      { name: 'VNI', type: 'integer', jsonPath: '.spec.vni' },
      { name: 'VRF', type: 'string', jsonPath: '.spec.vrf' },
      { name: 'MTU', type: 'integer', jsonPath: '.spec.mtu' },
      { name: 'Gateways', type: 'string', jsonPath: '.spec.anycastGateways', priority: 1 },
      accepted,
      applied,
      age,
    ],
  },
  RoutingTable: {
    description: 'A kernel routing table exposed as VRF taas.<tableId>.',
    spec: RoutingTableSpec,
    status: InputStatus,
    celRules: true,
    columns: [{ name: 'Table', type: 'integer', jsonPath: '.spec.tableId' }, accepted, applied, age],
  },
  BGPPeering: {
    description:
      'BGP sessions between the nodes and workloads or routers: a listen range on a Layer-2 network, or explicit neighbours.',
    spec: BGPPeeringSpec,
    status: BGPPeeringStatus,
    celRules: true,
    columns: [
      { name: 'Layer2', type: 'string', jsonPath: '.spec.listenRange.layer2' },
      { name: 'VRF', type: 'string', jsonPath: '.spec.neighbor.vrf', priority: 1 },
      // One path per column: the configurator writes remoteASN or remoteAS there as text.
      { name: 'Remote AS', type: 'string', jsonPath: '.status.remoteAS' },
      { name: 'Nodes', type: 'integer', jsonPath: '.status.nodes' },
      {
        name: 'Established',
        type: 'integer',
        jsonPath: '.status.established',
        description: 'Sessions of this peering FRR shows Established, over all its nodes',
      },
      accepted,
      applied,
      age,
    ],
  },
  AgentConfiguration: {
    description:
      'The FRR base template and the health checks of the agents on the nodes its selector matches; a change rolls out as a revision.',
    spec: AgentConfigurationSpec,
    status: InputStatus,
    celRules: true,
    columns: [
      {
        name: 'Selector',
        type: 'string',
        jsonPath: '.spec.nodeSelector',
        description: 'The nodes whose agents use this configuration (none: every node)',
      },
      accepted,
      applied,
      age,
    ],
  },
  NetworkConfigRevision: {
    description:
      'One merged, content-hashed configuration and the state of its rollout. Written by the configurator.',
    spec: NetworkConfigRevisionSpec,
    status: NetworkConfigRevisionStatus,
    celRules: false,
    columns: [
      { name: 'Number', type: 'integer', jsonPath: '.spec.number' },
      {
        name: 'Phase',
        type: 'string',
        jsonPath: '.status.phase',
        description: 'RollingOut, Paused, Complete, Superseded or Invalid',
      },
      {
        name: 'Desired',
        type: 'string',
        jsonPath: '.metadata.labels.network\\.nodenet\\.io/desired',
        description: 'true on the revision nodes are moved to',
      },
      { name: 'Ready', type: 'integer', jsonPath: '.status.ready' },
      { name: 'Ongoing', type: 'integer', jsonPath: '.status.ongoing' },
      { name: 'Queued', type: 'integer', jsonPath: '.status.queued' },
      { name: 'Failed', type: 'integer', jsonPath: '.status.failed' },
      { name: 'Total', type: 'integer', jsonPath: '.status.total' },
      {
        name: 'Ran-On',
        type: 'integer',
        jsonPath: '.status.ranOn',
        description:
          'The most nodes ready on it at once: how many ran it (READY and TOTAL count the nodes on it now)',
      },
      { name: 'Invalid', type: 'boolean', jsonPath: '.status.isInvalid', priority: 1 },
      { name: 'Degraded', type: 'integer', jsonPath: '.status.degraded', priority: 1 },
      { name: 'Paused', type: 'boolean', jsonPath: '.spec.paused', priority: 1 },
      { name: 'Hash', type: 'string', jsonPath: '.spec.hash', priority: 1 },
      age,
    ],
  },
  NodeConfig: {
    description:
      "One node's share of a revision. Spec written by the configurator, status by the node's agent.",
    spec: NodeConfigSpec,
    status: NodeConfigStatus,
    celRules: false,
    columns: [
      {
        name: 'Desired',
        type: 'string',
        jsonPath: '.metadata.labels.network\\.nodenet\\.io/revision-number',
        description: 'Number of the revision this node was handed',
      },
      {
        name: 'Answered',
        type: 'integer',
        jsonPath: '.status.revisionNumber',
        description:
          "Number of the revision the agent's status is about; behind Desired until the agent answered it",
      },
      {
        name: 'Status',
        type: 'string',
        jsonPath: '.status.configStatus',
        description: "The agent's report about the Answered revision",
      },
      {
        name: 'Applied',
        type: 'integer',
        jsonPath: '.status.appliedRevisionNumber',
        description: 'Number of the revision the agent reports on the host',
      },
      { name: 'Last Update', type: 'date', jsonPath: '.status.lastUpdate' },
      { name: 'Message', type: 'string', jsonPath: '.status.message' },
      { name: 'Applied Hash', type: 'string', jsonPath: '.status.lastAppliedRevision', priority: 1 },
      {
        name: 'BGP',
        type: 'string',
        jsonPath: '.status.observed.bgpSummary',
        description: 'BGP sessions established / configured, as FRR on the node shows them',
        priority: 1,
      },
      {
        name: 'VNIs',
        type: 'string',
        jsonPath: '.status.observed.vniSummary',
        description: 'VNIs FRR knows on the node, by type (L2 / L3)',
        priority: 1,
      },
      {
        name: 'FRR',
        type: 'string',
        jsonPath: '.status.observed.frrVersion',
        description: "The node's FRR version",
        priority: 1,
      },
      age,
    ],
  },
  RolloutPolicy: {
    description:
      'The fleet-wide rollout policy; the configurator reads the one named default: spec.paused holds every revision, the knobs override its flags.',
    spec: RolloutPolicySpec,
    status: RolloutPolicyStatus,
    celRules: true,
    columns: [
      { name: 'Paused', type: 'boolean', jsonPath: '.spec.paused' },
      { name: 'Desired', type: 'string', jsonPath: '.status.desiredRevision' },
      { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
      { name: 'Ready', type: 'integer', jsonPath: '.status.ready' },
      { name: 'Total', type: 'integer', jsonPath: '.status.total' },
      { name: 'Limit', type: 'string', jsonPath: '.spec.updateLimit', priority: 1 },
      age,
    ],
  },
};

/** A TypeBox schema as plain JSON, rewritten into the structural form the API server accepts. */
export function toStructural(schema: unknown, celRules = true): Record<string, unknown> {
  const plain = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  return rewrite(plain, celRules);
}

function rewrite(node: Record<string, unknown>, celRules: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$id') continue;
    if (key === 'x-kubernetes-validations' && !celRules) continue;
    if (key === 'patternProperties') {
      // Type.Record → `additionalProperties`, the only map form a structural schema allows.
      const values = Object.values(value as Record<string, Record<string, unknown>>);
      if (values[0]) out.additionalProperties = rewrite(values[0], celRules);
      continue;
    }
    if (key === 'properties') {
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, Record<string, unknown>>).map(([k, v]) => [
          k,
          rewrite(v, celRules),
        ]),
      );
      continue;
    }
    if (key === 'items' || key === 'additionalProperties') {
      out[key] =
        typeof value === 'object' && value !== null
          ? rewrite(value as Record<string, unknown>, celRules)
          : value;
      continue;
    }
    out[key] = value;
  }
  return out;
}

export function customResourceDefinition(kind: ResourceKind): Record<string, unknown> {
  const names = RESOURCES[kind];
  const def = KINDS[kind];
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${names.plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Cluster',
      names: {
        kind,
        listKind: `${kind}List`,
        plural: names.plural,
        singular: names.singular,
        shortNames: names.shortNames,
        categories: ['nodenet'],
      },
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: def.columns,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description: def.description,
              required: ['spec'],
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                spec: toStructural(def.spec, def.celRules),
                status: toStructural(def.status, def.celRules),
              },
            },
          },
        },
      ],
    },
  };
}

export const RESOURCE_KINDS = Object.keys(KINDS) as ResourceKind[];

/** All five CRDs, in a stable order. */
export const customResourceDefinitions = (): Record<string, unknown>[] =>
  RESOURCE_KINDS.map((k) => customResourceDefinition(k));
