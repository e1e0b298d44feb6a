/** What happens to the fleet without the operator: Nodes join and go, kubelets, agents and links fail, the leader changes. */
import { freshObservations } from './planner-pass.js';
import { TIMING, type SimNode, type WorldAction } from './types.js';
import type { WorldState } from './world-state.js';

const EVENT_KINDS = ['join', 'deleteNode', 'kubelet', 'flap', 'agent', 'cut', 'leaderChange'] as const;
export type FleetEvent = Extract<WorldAction, { kind: (typeof EVENT_KINDS)[number] }>;

const KINDS: ReadonlySet<WorldAction['kind']> = new Set(EVENT_KINDS);
export const isFleetEvent = (a: WorldAction): a is FleetEvent => KINDS.has(a.kind);

/** A fault on an existing node: its time is recorded (a node with a recent fault may fail a revision). */
type NodeFault = Extract<FleetEvent, { kind: 'deleteNode' | 'kubelet' | 'flap' | 'agent' | 'cut' }>;
type Effects = {
  [K in NodeFault['kind']]: (w: WorldState, n: SimNode, a: Extract<NodeFault, { kind: K }>) => void;
};

const FAULT_EFFECTS: Effects = {
  deleteNode: (w, node, a) => {
    node.exists = false;
    node.kubeletReady = false;
    w.log(`DELETE Node ${a.node}`);
  },
  kubelet: (w, node, a) => {
    node.kubeletFault = !a.ready;
    if (!node.cut || !a.ready) node.kubeletReady = a.ready;
    w.log(`kubelet ${a.node} ${a.ready ? 'Ready' : 'NotReady'} (fault)`);
  },
  flap: (w, node, a) => {
    node.flap = { until: w.t + a.forMs, period: a.periodMs ?? 20_000, next: w.t };
    node.kubeletFault = true;
    w.log(`kubelet ${a.node} starts flapping for ${a.forMs / 1000}s`);
  },
  agent: (w, node, a) => {
    if (node.agent === 'misconfigured' && a.mode !== 'misconfigured') delete node.handledKey;
    node.agent = a.mode;
    // A stopped agent starts over when it is back: it handles its current NodeConfig again (as
    // the real agent does at start-up, and as after a cut).
    if (a.mode === 'dead' || a.mode === 'notStarted') {
      node.job = undefined;
      delete node.handledKey;
    }
    w.log(`agent ${a.node} is now ${a.mode}`);
  },
  cut: (w, node, a) => {
    if (node.cut) return;
    // The agent starts over when it is back: it handles its current NodeConfig again.
    node.job = undefined;
    delete node.handledKey;
    node.cut = {
      notReadyAt: w.t + TIMING.notReadyGrace,
      restoreAt: w.t + a.forMs,
      ...(node.host !== undefined ? { prevHost: node.host } : {}),
      gen: 0,
      byChange: false,
    };
    w.log(`FAULT ${a.node} cut off for ${a.forMs / 1000}s`);
  },
};

export function applyFleetEvent(w: WorldState, a: FleetEvent): void {
  if (a.kind === 'leaderChange') {
    w.observations = freshObservations();
    // The new leader's planner starts with nothing kept either.
    w.incremental?.reset();
    w.leaderFrom = w.t + (a.gapMs ?? TIMING.leaderGap);
    w.log(
      `LEADER CHANGE: observations forgotten; the new leader acts at t=${(w.leaderFrom / 1000).toFixed(1)}s`,
    );
    return;
  }
  const node = w.nodes.get(a.node);
  if (a.kind === 'join') {
    // Re-created: the Node that exists is deleted and re-created at once (new machine, a reinstall):
    // its NodeConfig survives with the old node's status (issue 35), the new agent has not answered.
    // Named histories only: drawn by the generator it finds the open case in README.md.
    if (node?.exists && a.recreate !== true) return;
    if (node?.exists) {
      node.exists = false;
      node.lastFaultAt = w.t;
      w.log(`DELETE Node ${a.node} (re-created at once)`);
    }
    w.ledger.forget(a.node);
    w.addNode({
      name: a.node,
      agent: a.agent ?? 'good',
      labels: a.labels ?? {},
      taint: a.taint === true,
      reported: false,
    });
    // The old Node's deletion is a fault of the name: the planner may count it (a node gone in flight).
    const joined = w.nodes.get(a.node);
    if (joined && node?.lastFaultAt !== undefined) joined.lastFaultAt = node.lastFaultAt;
    w.log(`JOIN ${a.node} (agent ${a.agent ?? 'good'}${a.taint ? ', start-up taint' : ''})`);
    return;
  }
  if (!node) return;
  node.lastFaultAt = w.t;
  if (!node.exists) return;
  (FAULT_EFFECTS[a.kind] as (w: WorldState, n: SimNode, a: NodeFault) => void)(w, node, a);
}

/** The simulated autoscaler: deletes Nodes NotReady for longer than the history says. */
export function autoscale(w: WorldState): void {
  const after = w.history.deleteNotReadyAfterMs;
  for (const n of w.nodes.values()) {
    if (!n.exists || n.kubeletReady) {
      delete n.notReadySince;
      continue;
    }
    n.notReadySince ??= w.t;
    n.lastNotReadyAt = w.t;
    if (after !== undefined && w.t >= n.notReadySince + after) {
      n.exists = false;
      n.lastFaultAt = w.t;
      w.log(`AUTOSCALER deletes NotReady Node ${n.name}`);
    }
  }
}
