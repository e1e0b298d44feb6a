/** Operator actions and faults: how each scheduled action changes the simulated world. */
import {
  abortRevision,
  contentOf,
  deleteNodeConfig,
  freshObservations,
  isCompleted,
  isInvalid,
  moveOf,
  numberOf,
  requestRetry,
  setRevisionPaused,
} from './planner-adapter.js';
import { TIMING, type WorldAction } from './types.js';
import type { World } from './world.js';

const target = (w: World, number: number | undefined) =>
  number !== undefined
    ? w.revisionByNumber(number)
    : w.desired
      ? w.store.revisions.get(w.desired.name)
      : undefined;

const FAULTS: ReadonlySet<WorldAction['kind']> = new Set(['deleteNode', 'kubelet', 'flap', 'agent', 'cut']);

export function applyAction(w: World, a: WorldAction): void {
  const node = 'node' in a ? w.nodes.get(a.node) : undefined;
  if (node && FAULTS.has(a.kind)) node.lastFaultAt = w.t;
  switch (a.kind) {
    case 'deleteNodeConfig':
      // Its documented use is to re-hand a degraded node. The NodeConfig of a node in flight is the
      // only record that it took a change still rolling out (a cut-off is not visible yet): deleting
      // it is outside the guarantee (docs/rollout.md, precondition 4), so this person does not.
      if (inFlightRecord(w, a.node))
        return w.log(`OPERATOR delete NodeConfig ${a.node}: not done, in flight`);
      if (!deleteNodeConfig(w.store, a.node)) return;
      w.ledger.forget(a.node);
      w.log(`OPERATOR delete NodeConfig ${a.node}`);
      return;
    case 'setInput':
      w.log(`OPERATOR set input ${a.input}=${a.value}`);
      return w.writeInput(a.input, a.value);
    case 'revert': {
      const values = w.inputValues.get(a.input) ?? [];
      const prev = values[values.length - 2];
      if (prev === undefined) return;
      w.log(`OPERATOR revert input ${a.input} to ${prev}`);
      return w.writeInput(a.input, prev);
    }
    case 'deleteInput':
      if (!w.inputs.delete(a.input)) return;
      w.log(`OPERATOR delete input ${a.input}`);
      w.buildDirty = true;
      return;
    case 'pauseFleet':
    case 'resumeFleet':
      w.fleetPaused = a.kind === 'pauseFleet';
      w.log(`OPERATOR ${a.kind === 'pauseFleet' ? 'pause' : 'resume'} the fleet`);
      return;
    case 'pauseRevision':
    case 'resumeRevision': {
      const r = target(w, a.number);
      if (!r) return;
      setRevisionPaused(w.store, r.metadata.name, a.kind === 'pauseRevision');
      w.log(`OPERATOR ${a.kind === 'pauseRevision' ? 'pause' : 'resume'} rev ${r.spec.number}`);
      return;
    }
    case 'abort': {
      const r = target(w, a.number);
      if (!r) return;
      abortRevision(w.store, r.metadata.name);
      w.log(`OPERATOR abort rev ${r.spec.number}`);
      return;
    }
    case 'retry': {
      const r = a.number !== undefined ? w.revisionByNumber(a.number) : w.newestInvalid();
      if (!r) return;
      requestRetry(w.store, r.metadata.name);
      // The request releases the revision's held-back change whatever the build makes of it (a
      // retry, or a new revision when other inputs changed meanwhile): a person re-sends the change,
      // a new budget for it (docs/rollout.md, precondition 4).
      for (const b of w.history.bad) if (contentOf(r)[b.input] === b.value) w.ledger.introduce(b, w.t);
      w.buildDirty = true;
      w.log(`OPERATOR retry rev ${r.spec.number}`);
      return;
    }
    case 'relabel':
      if (!node || !node.exists) return;
      node.labels = { ...a.labels };
      w.log(`OPERATOR relabel ${a.node} ${JSON.stringify(a.labels)}`);
      return;
    case 'join':
      if (node?.exists) return;
      w.ledger.forget(a.node);
      w.addNode(a.node, a.agent ?? 'good', a.labels ?? {}, a.taint === true, false);
      w.log(`JOIN ${a.node} (agent ${a.agent ?? 'good'}${a.taint ? ', start-up taint' : ''})`);
      return;
    case 'deleteNode':
      if (!node?.exists) return;
      node.exists = false;
      node.kubeletReady = false;
      w.log(`DELETE Node ${a.node}`);
      return;
    case 'kubelet':
      if (!node?.exists) return;
      node.kubeletFault = !a.ready;
      if (!node.cut || !a.ready) node.kubeletReady = a.ready;
      w.log(`kubelet ${a.node} ${a.ready ? 'Ready' : 'NotReady'} (fault)`);
      return;
    case 'flap':
      if (!node?.exists) return;
      node.flap = { until: w.t + a.forMs, period: a.periodMs ?? 20_000, next: w.t };
      node.kubeletFault = true;
      w.log(`kubelet ${a.node} starts flapping for ${a.forMs / 1000}s`);
      return;
    case 'agent':
      if (!node?.exists) return;
      if (node.agent === 'misconfigured' && a.mode !== 'misconfigured') delete node.handledKey;
      node.agent = a.mode;
      // A stopped agent starts over when it is back: it handles its current NodeConfig again (as
      // the real agent does at start-up, and as after a cut).
      if (a.mode === 'dead' || a.mode === 'notStarted') {
        node.job = undefined;
        delete node.handledKey;
      }
      w.log(`agent ${a.node} is now ${a.mode}`);
      return;
    case 'cut':
      if (!node?.exists || node.cut) return;
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
      return;
    case 'leaderChange':
      w.observations = freshObservations();
      w.leaderFrom = w.t + (a.gapMs ?? TIMING.leaderGap);
      w.log(
        `LEADER CHANGE: observations forgotten; the new leader acts at t=${(w.leaderFrom / 1000).toFixed(1)}s`,
      );
      return;
  }
}

/** The node took a revision forward that is still rolling out (neither completed nor invalid) and has not failed it. */
function inFlightRecord(w: World, node: string): boolean {
  const nc = w.store.nodeConfigs.get(node);
  const r = nc ? w.revisionByNumber(numberOf(nc)) : undefined;
  return (
    nc !== undefined &&
    r !== undefined &&
    moveOf(nc) === 'forward' &&
    !isCompleted(r) &&
    !isInvalid(r) &&
    nc.status?.configStatus !== 'invalid'
  );
}
