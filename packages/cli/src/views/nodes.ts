/**
 * `kubectl nodenet nodes` and `kubectl nodenet why NODE`: where each node is and why (pure), from
 * the shared definition in @nodenet/api (`nodePlacement`), which identifies revisions by number.
 */
import {
  escapeControls,
  nodePlacement,
  type AgentReport,
  type NodeConfig,
  type NodePlacement,
  type PlacementState,
} from '@nodenet/api';
import { isNodeReady, type Node } from '@nodenet/kube';
import { CliError, EXIT, type ExitCode } from '../exit-codes.js';
import { age, table } from './format.js';
import { assignedAt, type ClusterState } from '../cluster/state.js';

export interface NodeRow {
  node: string;
  /** Whether the kubelet reports the Node Ready. */
  ready: boolean;
  /** Number of the fleet's desired revision. */
  desired?: number;
  /** Number of the revision the node is handed (its NodeConfig spec), if known. */
  revision?: number;
  revisionName?: string;
  /** Where the node stands in the rollout (see NodePlacement). */
  placement: PlacementState;
  /** What its agent reports about the revision it is handed. */
  state: AgentReport;
  /** Number of the revision the agent reports on the host. */
  onHost?: number;
  /** When the agent last reported, or else when the configurator handed the config (as written). */
  since?: string;
  /** The agent is in its confirm window: applied, still checking before it reports success. */
  confirming: boolean;
  /** Why the node is where it is. */
  why: string;
  next: string;
  /** The agent's own message about the revision it is handed. */
  message: string;
  rolledBackFrom?: NodePlacement['rolledBackFrom'];
}

export function placements(s: ClusterState): NodePlacement[] {
  const ncs = new Map(s.nodeConfigs.map((nc) => [nc.metadata.name, nc]));
  const nodes = new Map(s.nodes.map((n) => [n.metadata.name, n]));
  const names = [...new Set([...nodes.keys(), ...ncs.keys()])].sort();
  return names.map((node) =>
    nodePlacement({
      node,
      nodeObject: nodes.get(node),
      nodeConfig: ncs.get(node),
      revisions: s.revisions,
      fleetPaused: s.fleetPaused,
    }),
  );
}

export function nodeRows(s: ClusterState): NodeRow[] {
  const ncs = new Map(s.nodeConfigs.map((nc) => [nc.metadata.name, nc]));
  const nodes = new Map(s.nodes.map((n) => [n.metadata.name, n]));
  return placements(s).map((p) => nodeRow(p, ncs.get(p.node), nodes.get(p.node)));
}

/** One node's row from its placement, its NodeConfig and its Node (pure). */
export function nodeRow(p: NodePlacement, nc: NodeConfig | undefined, node: Node | undefined): NodeRow {
  const answered = p.report !== 'pending' && p.report !== 'none';
  const since = (answered ? nc?.status?.lastUpdate : undefined) ?? (nc && assignedAt(nc));
  return {
    node: p.node,
    ready: node ? isNodeReady(node) : false,
    ...(p.desired ? { desired: p.desired.number } : {}),
    ...(p.assigned ? { revision: p.assigned.number, revisionName: p.assigned.name } : {}),
    placement: p.state,
    state: p.report,
    ...(p.applied !== undefined ? { onHost: p.applied } : {}),
    ...(since ? { since } : {}),
    confirming: p.report === 'confirming',
    why: p.why,
    next: p.next,
    message: nc ? (answered ? (nc.status?.message ?? '') : 'waiting for the agent to report') : '',
    ...(p.rolledBackFrom ? { rolledBackFrom: p.rolledBackFrom } : {}),
  };
}

const num = (n: number | undefined): string => (n !== undefined ? String(n) : '<none>');

export function renderNodes(rows: NodeRow[], nowMs: number): string {
  return table(
    ['NODE', 'READY', 'DESIRED', 'REVISION', 'ON-HOST', 'STATE', 'AGENT', 'SINCE', 'WHY'],
    rows.map((r) => [
      r.node,
      r.ready ? 'True' : 'False',
      num(r.desired),
      num(r.revision),
      num(r.onHost),
      r.placement,
      r.state,
      age(r.since, nowMs),
      r.why,
    ]),
  );
}

/** `why NODE`: the node's row, or exit 3 when the cluster has neither a Node nor a NodeConfig of that name. */
export function whyRow(s: ClusterState, node: string): NodeRow {
  const row = nodeRows(s).find((r) => r.node === node);
  if (!row) {
    const known = s.nodes.map((n) => n.metadata.name).join(', ') || 'none';
    throw new CliError(`node ${JSON.stringify(node)} not found (nodes: ${known})`, EXIT.notFound);
  }
  return row;
}

export function renderWhy(r: NodeRow, nowMs: number): string {
  const out = [
    `Node:      ${r.node} (${r.ready ? 'Ready' : 'NotReady'})`,
    `Desired:   ${num(r.desired)}`,
    `Handed:    ${r.revisionName ? `${r.revisionName} (number ${r.revision})` : '<none>'}`,
    `On host:   ${num(r.onHost)}`,
    `Agent:     ${r.state}${r.since ? ` (${age(r.since, nowMs)} ago)` : ''}${r.message ? `: ${escapeControls(r.message)}` : ''}`,
    `State:     ${r.placement}`,
    `Why:       ${r.why}`,
  ];
  if (r.rolledBackFrom)
    out.push(
      `Rolled back from ${r.rolledBackFrom.revision.name}${r.rolledBackFrom.at ? ` (${age(r.rolledBackFrom.at, nowMs)} ago)` : ''}: ${escapeControls(r.rolledBackFrom.message)}`,
    );
  out.push(`Next:      ${r.next}`);
  return out.join('\n') + '\n';
}

/** 0 on the desired revision; 1 moving (rolling out, queued, held, rolling back); 4 needs attention. */
export function whyExitCode(r: NodeRow): ExitCode {
  switch (r.placement) {
    case 'up-to-date':
      return EXIT.ok;
    case 'rolling-out':
    case 'queued':
    case 'held':
    case 'rolling-back':
    case 'no-config':
      return EXIT.pending;
    case 'unavailable':
    case 'failed':
    case 'restore-failed':
      return EXIT.attention;
  }
}
