/**
 * How each scheduled action changes the simulated world: the operator's own actions here (inputs,
 * pauses, revision controls, relabels, `kubectl delete nc`), the faults and the Nodes' comings and goings in
 * faults.ts.
 */
import {
  abortRevision,
  contentOf,
  deleteNodeConfig,
  isCompleted,
  isInvalid,
  moveOf,
  numberOf,
  requestRetry,
  setRevisionPaused,
} from './planner-adapter.js';
import { applyFleetEvent, isFleetEvent, type FleetEvent } from './faults.js';
import type { WorldAction } from './types.js';
import type { WorldState } from './world-state.js';

type OperatorAction = Exclude<WorldAction, FleetEvent>;
type Effects<A extends { kind: string }> = {
  [K in A['kind']]: (w: WorldState, a: Extract<A, { kind: K }>) => void;
};

const target = (w: WorldState, number: number | undefined) =>
  number !== undefined
    ? w.revisionByNumber(number)
    : w.desired
      ? w.store.revisions.get(w.desired.name)
      : undefined;

const pauseRevision = (w: WorldState, number: number | undefined, paused: boolean): void => {
  const r = target(w, number);
  if (!r) return;
  setRevisionPaused(w.store, r.metadata.name, paused);
  w.log(`OPERATOR ${paused ? 'pause' : 'resume'} rev ${r.spec.number}`);
};

const OPERATOR_EFFECTS: Effects<OperatorAction> = {
  deleteNodeConfig: (w, a) => {
    // Its documented use is to re-hand a degraded node. The NodeConfig of a node in flight is the
    // only record that it took a change still rolling out (a cut-off is not visible yet): deleting
    // it is outside the guarantee (docs/rollout.md, precondition 4), so this person does not.
    if (inFlightRecord(w, a.node)) return w.log(`OPERATOR delete NodeConfig ${a.node}: not done, in flight`);
    if (!deleteNodeConfig(w.store, a.node)) return;
    w.ledger.forget(a.node);
    w.log(`OPERATOR delete NodeConfig ${a.node}`);
  },
  setInput: (w, a) => {
    const zone = a.zone === undefined ? '' : a.zone === null ? ' for every node' : ` for zone ${a.zone}`;
    w.log(`OPERATOR set input ${a.input}=${a.value}${zone}`);
    w.writeInput(a.input, a.value, a.zone);
  },
  revert: (w, a) => {
    const values = w.inputValues.get(a.input) ?? [];
    const prev = values[values.length - 2];
    if (prev === undefined) return;
    w.log(`OPERATOR revert input ${a.input} to ${prev}`);
    w.writeInput(a.input, prev);
  },
  deleteInput: (w, a) => {
    if (!w.inputs.delete(a.input)) return;
    w.deletedAt.set(a.input, Math.max(0, ...[...w.store.revisions.values()].map((r) => r.spec.number)));
    w.log(`OPERATOR delete input ${a.input}`);
    w.buildDirty = true;
  },
  pauseFleet: (w) => {
    w.fleetPaused = true;
    w.log('OPERATOR pause the fleet');
  },
  resumeFleet: (w) => {
    w.fleetPaused = false;
    w.log('OPERATOR resume the fleet');
  },
  policy: (w, a) => {
    w.knobs.change(a.change);
    w.log(`OPERATOR RolloutPolicy ${JSON.stringify(a.change)}`);
  },
  clockJump: (w, a) => {
    w.wallOffset += a.ms;
    w.log(`CLOCK the configurator's wall clock jumps ${a.ms / 1000}s`);
  },
  pauseRevision: (w, a) => pauseRevision(w, a.number, true),
  resumeRevision: (w, a) => pauseRevision(w, a.number, false),
  abort: (w, a) => {
    const r = target(w, a.number);
    if (!r) return;
    abortRevision(w.store, r.metadata.name);
    w.log(`OPERATOR abort rev ${r.spec.number}`);
  },
  relabel: (w, a) => {
    const node = w.nodes.get(a.node);
    if (!node?.exists) return;
    node.labels = { ...a.labels };
    w.log(`OPERATOR relabel ${a.node} ${JSON.stringify(a.labels)}`);
  },
  retry: (w, a) => {
    const r = a.number !== undefined ? w.revisionByNumber(a.number) : w.newestInvalid();
    if (!r) return;
    requestRetry(w.store, r.metadata.name);
    // The request releases the revision's held-back change whatever the build makes of it (a
    // retry, or a new revision when other inputs changed meanwhile): a person re-sends the change,
    // a new budget for it (docs/rollout.md, precondition 4).
    for (const b of w.history.bad) if (contentOf(r)[b.input] === b.value) w.ledger.introduce(b, w.t);
    w.buildDirty = true;
    w.log(`OPERATOR retry rev ${r.spec.number}`);
  },
};

export function applyAction(w: WorldState, a: WorldAction): void {
  if (isFleetEvent(a)) applyFleetEvent(w, a);
  else (OPERATOR_EFFECTS[a.kind] as (w: WorldState, a: OperatorAction) => void)(w, a);
}

/** The node took a revision forward that is still rolling out (neither completed nor invalid) and has not failed it. */
function inFlightRecord(w: WorldState, node: string): boolean {
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

/**
 * Invariant 6 (ledger.ts): taking `input=value` from a host is no collateral loss when it is a bad
 * change (ground truth: a rollback of a follow-up takes the change it carries back, seeds 101, 102
 * and 202 of issue 35's extended generator), or when a person deleted the input before revision
 * `to` (a forward move) was built: that deletion rolls out (seed 101).
 */
export function takenRightly(w: WorldState, input: string, value: number, to: number | undefined): boolean {
  if (w.history.bad.some((b) => b.input === input && b.value === value)) return true;
  return to !== undefined && (w.deletedAt.get(input) ?? Infinity) < to;
}
