/**
 * What the plugin reads from the API: revisions, NodeConfigs, Nodes (and, for a preview, the
 * inputs), plus the rollout-control fields the configurator writes. Reading is the only I/O here;
 * every view is a pure function of a `ClusterState`.
 */
import {
  ASSIGNED_AT_ANNOTATION,
  ROLLOUT_POLICY_NAME,
  type AgentConfiguration,
  desiredRevision,
  type FailedNode,
  type Inputs,
  type NetworkConfigRevision,
  type NodeConfig,
} from '@nodenet/api';
import { KubeApiError, KubeTransportError, isNotFound, type Clients, type Node } from '@nodenet/kube';
import { CliError, EXIT } from '../exit-codes.js';

/**
 * Revision fields of the rollout controls and of rollout safety (`spec.aborted`, degraded nodes),
 * read when present: an older configurator simply does not write them.
 */
export interface RevisionControls {
  aborted?: boolean;
}
export interface RevisionHealth {
  degraded?: number;
  degradedNodes?: FailedNode[];
}
export type Revision = NetworkConfigRevision & {
  spec: NetworkConfigRevision['spec'] & RevisionControls;
  status?: NonNullable<NetworkConfigRevision['status']> & RevisionHealth;
};

export interface ClusterState {
  /** Oldest first, by spec.number (never by creation time). */
  revisions: Revision[];
  nodeConfigs: NodeConfig[];
  nodes: Node[];
  /** The inputs with the status the configurator wrote on them (Accepted, Applied, Selected). */
  inputs: Inputs;
  /** `spec.paused` of the RolloutPolicy `default`: the whole fleet is paused. */
  fleetPaused: boolean;
}

export async function readState(clients: Clients): Promise<ClusterState> {
  const [revisions, nodeConfigs, nodes, inputs, fleetPaused] = await Promise.all([
    api(() => clients.revision.list()),
    api(() => clients.nodeConfig.list()),
    api(() => clients.node.list()),
    readInputs(clients),
    api(() => readFleetPaused(clients)),
  ]);
  return assembleState({
    revisions: revisions.items,
    nodeConfigs: nodeConfigs.items,
    nodes: nodes.items,
    inputs,
    fleetPaused,
  });
}

/**
 * A `ClusterState` from objects read in any order (a list, an informer's cache): sorted as every
 * view expects. The one place that order is decided, so the CLI and the dashboard agree.
 */
export function assembleState(s: ClusterState): ClusterState {
  return {
    revisions: [...s.revisions].sort((a, b) => a.spec.number - b.spec.number),
    nodeConfigs: [...s.nodeConfigs].sort(byName),
    nodes: [...s.nodes].sort(byName),
    inputs: s.inputs,
    fleetPaused: s.fleetPaused,
  };
}

async function readFleetPaused(clients: Clients): Promise<boolean> {
  try {
    return (await clients.rolloutPolicy.get(ROLLOUT_POLICY_NAME)).spec.paused === true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

export async function readInputs(clients: Clients): Promise<Inputs> {
  const [vrf, layer2, routingTable, bgpPeering, agentConfiguration] = await Promise.all([
    api(() => clients.vrf.list()),
    api(() => clients.layer2.list()),
    api(() => clients.routingTable.list()),
    api(() => clients.bgpPeering.list()),
    api(() => agentConfigurations(clients)),
  ]);
  return {
    vrf: vrf.items,
    layer2: layer2.items,
    routingTable: routingTable.items,
    bgpPeering: bgpPeering.items,
    agentConfiguration: agentConfiguration.items,
  };
}

/** The AgentConfigurations; none on a cluster whose CRDs predate them (issue #36). */
async function agentConfigurations(clients: Clients): Promise<{ items: AgentConfiguration[] }> {
  try {
    return await clients.agentConfiguration.list();
  } catch (err) {
    if (isNotFound(err)) return { items: [] };
    throw err;
  }
}

const byName = (a: { metadata: { name: string } }, b: { metadata: { name: string } }): number =>
  a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0;

/** Runs an API call; a transport or API failure becomes a CliError with the API exit code. */
export async function api<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw asCliError(err);
  }
}

export function asCliError(err: unknown): unknown {
  if (err instanceof KubeApiError || err instanceof KubeTransportError)
    return new CliError(err.message, EXIT.apiError);
  return err;
}

export const isInvalid = (r: Revision): boolean => r.status?.isInvalid === true;

/**
 * The revision in force: the fleet's desired revision (labelled so by the configurator, else the
 * newest valid one): what nodes are moved to.
 */
export const revisionInForce = (s: ClusterState): Revision | undefined => desiredRevision(s.revisions);

export const newestRevision = (s: ClusterState): Revision | undefined => s.revisions[s.revisions.length - 1];

/**
 * Finds a revision by what a person types: its name (`rev-000007-0a1b2c3d4e`), its number (`7`), or
 * `rev-7`. Without an argument, `fallback` chooses.
 */
export function findRevision(
  s: ClusterState,
  arg: string | undefined,
  fallback: (s: ClusterState) => Revision | undefined = newestRevision,
): Revision {
  if (arg === undefined) {
    const r = fallback(s);
    if (!r)
      throw new CliError('no NetworkConfigRevision exists yet (are any inputs applied?)', EXIT.notFound);
    return r;
  }
  const num = /^(?:rev-)?(\d+)$/.exec(arg);
  const found = num
    ? s.revisions.find((r) => r.spec.number === Number(num[1]))
    : s.revisions.find((r) => r.metadata.name === arg);
  if (!found) {
    const known = s.revisions.map((r) => r.metadata.name).join(', ') || 'none';
    throw new CliError(`revision ${JSON.stringify(arg)} not found (revisions: ${known})`, EXIT.notFound);
  }
  return found;
}

export const revisionByHash = (s: ClusterState, hash: string | undefined): Revision | undefined =>
  hash === undefined ? undefined : s.revisions.find((r) => r.spec.hash === hash);

/** The revision the node's agent says is on the host (by hash), if known. */
export const assignedAt = (nc: NodeConfig): string | undefined =>
  nc.metadata.annotations?.[ASSIGNED_AT_ANNOTATION];
