/**
 * The node grid's cells and the rows they come from, kept between pushes: a node's row is computed
 * again only when its Node or NodeConfig changed, or when anything its placement reads fleet-wide
 * did (a revision, the fleet pause), so an update of a few nodes in a fleet of 5,000 costs a few
 * placements, not 5,000, and unchanged cells stay the same objects (the feed compares by identity).
 */
import { MOVE_ANNOTATION, agentMisconfigured, labelOf, nodePlacement, type NodeConfig } from '@nodenet/api';
import type { Node } from '@nodenet/kube';
import type { ClusterState } from '../cluster/state.js';
import { nodeRow, type NodeRow } from '../views/nodes.js';

/** What a cell shows beyond the placement `kubectl nodenet nodes` prints. */
export type CellState = NodeRow['placement'] | 'soaking' | 'unchanged-moved' | 'misconfigured-agent';

/** One cell of the node grid. */
export interface NodeCell {
  node: string;
  /** The node's value of the wave label ('' when unlabelled or no wave label is known). */
  wave: string;
  /** The node's STATE in `kubectl nodenet nodes`. */
  placement: NodeRow['placement'];
  /**
   * What the cell shows: the placement, made finer where a person reads the grid differently:
   * `soaking` (rolling out, applied, in its confirm window), `unchanged-moved` (on the desired
   * revision, which left its host config unchanged: moved without a slot), `misconfigured-agent`
   * (unavailable because its agent's self-check says so, not because the Node is down).
   */
  state: CellState;
  /** One line for the hover: the state and why. */
  line: string;
  revision?: number;
  onHost?: number;
}

/** The cell of a node, from its row (pure). */
export function nodeCell(
  row: NodeRow,
  nc: NodeConfig | undefined,
  node: Node | undefined,
  waveLabel: string | undefined,
): NodeCell {
  const state = cellState(row, nc);
  const unchanged =
    state === 'unchanged-moved'
      ? `host config unchanged by revision ${row.desired}, moved without a slot; `
      : '';
  return {
    node: row.node,
    wave: waveLabel ? (labelOf(node?.metadata.labels ?? {}, waveLabel) ?? '') : '',
    placement: row.placement,
    state,
    line: `${state}: ${unchanged}${row.why}`,
    ...(row.revision !== undefined ? { revision: row.revision } : {}),
    ...(row.onHost !== undefined ? { onHost: row.onHost } : {}),
  };
}

function cellState(row: NodeRow, nc: NodeConfig | undefined): CellState {
  switch (row.placement) {
    case 'rolling-out':
    case 'up-to-date':
      if (row.revision === row.desired && nc?.metadata.annotations?.[MOVE_ANNOTATION] === 'unchanged')
        return 'unchanged-moved';
      return row.confirming ? 'soaking' : row.placement;
    case 'unavailable':
      // The Node is up: what keeps it out is its agent's configuration, which a person fixes.
      return row.ready && agentMisconfigured(nc) !== undefined ? 'misconfigured-agent' : 'unavailable';
    case 'queued':
    case 'held':
    case 'rolling-back':
    case 'failed':
    case 'restore-failed':
    case 'no-config':
      return row.placement;
  }
}

interface Kept {
  /** The resourceVersions of the Node and NodeConfig the row was computed from. */
  key: string;
  row: NodeRow;
  cell: NodeCell;
}

/** Rows and cells of the last push, by node; see the module comment for when one is recomputed. */
export class NodeCells {
  private kept = new Map<string, Kept>();
  private fleetKey = '';

  /** Every node's row and cell, in the order of `kubectl nodenet nodes`. */
  of(s: ClusterState, waveLabel: string | undefined): { rows: NodeRow[]; cells: NodeCell[] } {
    // A node's placement reads every revision (desired, invalid, failed nodes, holds) and the pause.
    const fleetKey = JSON.stringify([
      waveLabel ?? '',
      s.fleetPaused,
      s.revisions.map((r) => `${r.metadata.name}@${r.metadata.resourceVersion ?? ''}`),
    ]);
    const previous = fleetKey === this.fleetKey ? this.kept : new Map<string, Kept>();
    this.fleetKey = fleetKey;
    const ncs = new Map(s.nodeConfigs.map((nc) => [nc.metadata.name, nc]));
    const nodes = new Map(s.nodes.map((n) => [n.metadata.name, n]));
    const names = [...new Set([...nodes.keys(), ...ncs.keys()])].sort();
    const kept = new Map<string, Kept>();
    for (const name of names) {
      const node = nodes.get(name);
      const nc = ncs.get(name);
      const key = `${node?.metadata.resourceVersion ?? '-'}/${nc?.metadata.resourceVersion ?? '-'}`;
      const before = previous.get(name);
      if (before?.key === key) {
        kept.set(name, before);
        continue;
      }
      const placement = nodePlacement({
        node: name,
        nodeObject: node,
        nodeConfig: nc,
        revisions: s.revisions,
        fleetPaused: s.fleetPaused,
      });
      const row = nodeRow(placement, nc, node);
      kept.set(name, { key, row, cell: nodeCell(row, nc, node, waveLabel) });
    }
    this.kept = kept;
    const all = [...kept.values()];
    return { rows: all.map((k) => k.row), cells: all.map((k) => k.cell) };
  }
}
