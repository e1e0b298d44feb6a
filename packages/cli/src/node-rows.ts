/** `kubectl nodenet nodes`: one row per node, from its Node and NodeConfig (pure). */
import { REVISION_NUMBER_LABEL, type NodeConfig, findCondition } from '@nodenet/api';
import { isNodeReady } from '@nodenet/kube';
import { age, table } from './format.js';
import { assignedAt, revisionByHash, type ClusterState } from './state.js';

export type NodeState = 'no-config' | 'pending' | 'provisioning' | 'confirming' | 'provisioned' | 'invalid';

export interface NodeRow {
  node: string;
  /** Whether the kubelet reports the Node Ready. */
  ready: boolean;
  /** Number of the revision the node is handed (its NodeConfig spec), if known. */
  revision?: number;
  revisionName?: string;
  state: NodeState;
  /** Number of the revision the agent reports on the host. */
  onHost?: number;
  /** When the agent last reported, or else when the configurator handed the config (as written). */
  since?: string;
  /** The agent is in its confirm window: applied, still checking before it reports success. */
  confirming: boolean;
  message: string;
}

/**
 * Whether the NodeConfig's status answers its current spec: the agent's conditions name the spec
 * generation they answer (the same rule the configurator's planner uses).
 */
export function reportsOnSpec(nc: NodeConfig): boolean {
  const st = nc.status;
  if (!st) return false;
  const gens = (st.conditions ?? []).map((c) => c.observedGeneration).filter((g) => g !== undefined);
  if (gens.length > 0 && nc.metadata.generation !== undefined) return gens.includes(nc.metadata.generation);
  return st.lastAppliedRevision === nc.spec.revision;
}

export function nodeState(nc: NodeConfig | undefined): NodeState {
  if (!nc) return 'no-config';
  const st = nc.status;
  if (!st || !reportsOnSpec(nc)) return 'pending';
  switch (st.configStatus) {
    case 'provisioned':
      return st.lastAppliedRevision === nc.spec.revision ? 'provisioned' : 'provisioning';
    case 'invalid':
      return 'invalid';
    case 'provisioning':
      return isConfirming(nc) ? 'confirming' : 'provisioning';
    default:
      return 'pending';
  }
}

/**
 * The agent in its confirm window (applied, still checking before it reports success) says so with a
 * condition: type `Confirming` (True), or reason `Confirming` on its `Progressing` condition.
 */
const isConfirming = (nc: NodeConfig): boolean =>
  nc.status?.configStatus === 'provisioning' &&
  (findCondition(nc.status.conditions, 'Confirming')?.status === 'True' ||
    findCondition(nc.status.conditions, 'Progressing')?.reason === 'Confirming');

export function nodeRows(s: ClusterState): NodeRow[] {
  const ncs = new Map(s.nodeConfigs.map((nc) => [nc.metadata.name, nc]));
  const names = [...new Set([...s.nodes.map((n) => n.metadata.name), ...ncs.keys()])].sort();
  const nodes = new Map(s.nodes.map((n) => [n.metadata.name, n]));
  return names.map((name) => {
    const nc = ncs.get(name);
    const node = nodes.get(name);
    const rev = revisionByHash(s, nc?.spec.revision);
    const labelled = nc?.metadata.labels?.[REVISION_NUMBER_LABEL];
    const revision = rev?.spec.number ?? (labelled !== undefined ? Number(labelled) : undefined);
    const onHost = revisionByHash(s, nc?.status?.lastAppliedRevision)?.spec.number;
    const since = (nc && reportsOnSpec(nc) ? nc.status?.lastUpdate : undefined) ?? (nc && assignedAt(nc));
    const state = nodeState(nc);
    return {
      node: name,
      ready: node ? isNodeReady(node) : false,
      ...(revision !== undefined ? { revision } : {}),
      ...(rev ? { revisionName: rev.metadata.name } : {}),
      state,
      ...(onHost !== undefined ? { onHost } : {}),
      ...(since ? { since } : {}),
      confirming: state === 'confirming',
      message: nc ? (reportsOnSpec(nc) ? (nc.status?.message ?? '') : 'waiting for the agent to report') : '',
    };
  });
}

export function renderNodes(rows: NodeRow[], nowMs: number): string {
  return table(
    ['NODE', 'READY', 'REVISION', 'STATE', 'ON-HOST', 'SINCE', 'CONFIRMING', 'MESSAGE'],
    rows.map((r) => [
      r.node,
      r.ready ? 'True' : 'False',
      r.revision !== undefined ? String(r.revision) : '<none>',
      r.state,
      r.onHost !== undefined ? String(r.onHost) : '<none>',
      age(r.since, nowMs),
      r.confirming ? 'yes' : 'no',
      r.message,
    ]),
  );
}
