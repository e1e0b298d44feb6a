/**
 * What the dashboard shows, as pure functions of a `ClusterState`: the very views `kubectl nodenet
 * status`, `nodes`, `why` and `history` print (views/), chosen the way those commands choose, so
 * the page and the CLI cannot disagree. The page receives only these facts: nothing of the
 * kubeconfig, of the Nodes or of the inputs' specs (a BGP password reference stays on the server).
 */
import { findCondition, type InputObject, type NodeConfigStatus } from '@nodenet/api';
import { findRevision, newestRevision, revisionInForce, type ClusterState } from '../cluster/state.js';
import { historyRows, type HistoryRow } from '../views/history.js';
import { heldBack } from '../views/held-back.js';
import { renderWhy, whyRow } from '../views/nodes.js';
import { disruptionText, statusView, type StatusView } from '../views/status.js';
import { NodeCells, type NodeCell } from './cells.js';

export type { CellState, NodeCell } from './cells.js';

/** An input and what the configurator made of it (its Accepted / Applied / Selected conditions). */
export interface InputOutcome {
  kind: string;
  name: string;
  conditions: { type: string; status: string; reason: string; message: string }[];
}

export interface DashboardFacts {
  /** `kubectl nodenet status` of the desired revision (absent before the first revision). */
  status?: StatusView;
  /** The `Hosts:` line `kubectl nodenet status` prints for the revision's disruption summary. */
  disruption?: string;
  waveLabel?: string;
  fleetPaused: boolean;
  cells: NodeCell[];
  history: HistoryRow[];
  inputs: InputOutcome[];
  /** Held-back and not-selected inputs, as `status` lists them under Attention. */
  heldBack: string[];
}

/** The revision `kubectl nodenet status` shows without an argument. */
export const statusRevision = (s: ClusterState): ReturnType<typeof newestRevision> =>
  revisionInForce(s) ?? newestRevision(s);

/** `cells`: the rows and cells of the last push, kept so only what changed is computed again. */
export function dashboardFacts(
  s: ClusterState,
  waveLabel: string | undefined,
  cells: NodeCells = new NodeCells(),
): DashboardFacts {
  const rev = statusRevision(s);
  const grid = cells.of(s, waveLabel);
  const status = rev ? statusView(s, findRevision(s, rev.metadata.name), waveLabel, grid.rows) : undefined;
  return {
    ...(status ? { status } : {}),
    ...(status?.disruption ? { disruption: disruptionText(status.disruption) } : {}),
    ...(waveLabel ? { waveLabel } : {}),
    fleetPaused: s.fleetPaused,
    cells: grid.cells,
    history: historyRows(s),
    inputs: inputOutcomes(s),
    heldBack: heldBack(s.inputs),
  };
}

const OUTCOME_CONDITIONS = ['Accepted', 'Applied', 'Selected'];

function inputOutcomes(s: ClusterState): InputOutcome[] {
  const all: InputObject[] = [
    ...s.inputs.vrf,
    ...s.inputs.layer2,
    ...s.inputs.routingTable,
    ...(s.inputs.bgpPeering ?? []),
  ];
  return all.map((o) => ({
    kind: o.kind,
    name: o.metadata.name,
    conditions: OUTCOME_CONDITIONS.flatMap((type) => {
      const c = findCondition(o.status?.conditions, type);
      return c ? [{ type, status: c.status, reason: c.reason, message: c.message }] : [];
    }),
  }));
}

/** What a click on a node shows: `kubectl nodenet why NODE` and its NodeConfig's status. */
export interface NodeDetail {
  node: string;
  /** The text `kubectl nodenet why NODE` prints. */
  why: string;
  status?: Pick<NodeConfigStatus, 'configStatus' | 'message' | 'failureCause' | 'lastUpdate' | 'observed'>;
}

/** Throws the CLI's own error (exit 3) for an unknown node. */
export function nodeDetail(s: ClusterState, node: string, nowMs: number): NodeDetail {
  const row = whyRow(s, node);
  const st = s.nodeConfigs.find((nc) => nc.metadata.name === node)?.status;
  return {
    node,
    why: renderWhy(row, nowMs),
    ...(st
      ? {
          status: {
            ...(st.configStatus ? { configStatus: st.configStatus } : {}),
            ...(st.message !== undefined ? { message: st.message } : {}),
            // An agent that does not say why reads as ChangeFailed (docs/agent-status.md).
            ...(st.failureCause || st.configStatus === 'invalid'
              ? { failureCause: st.failureCause ?? 'ChangeFailed' }
              : {}),
            ...(st.lastUpdate ? { lastUpdate: st.lastUpdate } : {}),
            ...(st.observed ? { observed: st.observed } : {}),
          },
        }
      : {}),
  };
}
