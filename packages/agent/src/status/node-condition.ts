/**
 * The `NodenetReady` condition on the agent's own Node: is this node's network configuration
 * applied and healthy? People and other controllers (a scheduler plug-in, a drain tool) read it on
 * the Node, where node health is looked for, without knowing nodenet's resources.
 *
 * `decideNodenetReady` is a pure function of what the agent knows (the apply under way, the last
 * reconcile's outcome, whether FRR answered the last read); `NodeConditionWriter` writes it to
 * nodes/status only when status, reason or message changed.
 */
import { NODENET_READY_CONDITION } from '@nodenet/api';
import { isNotFound, type Clients, type NodeCondition } from '@nodenet/kube';
import { short, type ReconcileOutcome, type StartOutcome } from '../apply/index.js';
import type { StatusReport } from './status.js';

export interface NodeState {
  /** The apply under way (from the pipeline's status reports); cleared by the next outcome. */
  applying?: { revision: string; confirming: boolean };
  /** The last reconcile's outcome, or start-up's recovery when no reconcile finished since. */
  outcome?: ReconcileOutcome | Extract<StartOutcome, { kind: 'recovered' }>;
  /** The last read of FRR's state; undefined until the first. */
  frr?: { answering: boolean; detail?: string };
}

export interface ConditionDecision {
  status: 'True' | 'False';
  reason: string;
  message: string;
}

/** Undefined while nothing is known yet (no reconcile finished): a restart keeps what the Node shows. */
export function decideNodenetReady(state: NodeState): ConditionDecision | undefined {
  const no = (reason: string, message: string): ConditionDecision => ({ status: 'False', reason, message });
  if (state.applying) {
    const rev = short(state.applying.revision);
    return state.applying.confirming
      ? no('Confirming', `revision ${rev} applied and healthy; confirm window running`)
      : no('Applying', `applying revision ${rev}`);
  }
  const outcome = state.outcome;
  if (!outcome) return undefined;
  switch (outcome.kind) {
    case 'invalid':
    case 'recovered':
      return outcome.restored ? no('Restored', outcome.message) : no('RestoreFailed', outcome.message);
    case 'rejected':
      return no('Restored', `revision ${short(outcome.revision)} was rejected earlier: ${outcome.message}`);
    case 'error':
      return no('ApplyFailed', outcome.message);
    case 'unchanged':
      if (outcome.error) return no('Unhealthy', `drift repair failed: ${outcome.error}`);
      break;
    case 'provisioned':
      break;
  }
  if (state.frr && !state.frr.answering)
    return no('Unhealthy', `FRR does not answer: ${state.frr.detail ?? 'no answer'}`);
  return { status: 'True', reason: 'Applied', message: `revision ${short(outcome.revision)} is applied` };
}

/** Folds the pipeline's events into a NodeState (one place, so the order rules are tested). */
export function nextNodeState(
  state: NodeState,
  event:
    | { kind: 'report'; report: StatusReport }
    | { kind: 'outcome'; outcome: NonNullable<NodeState['outcome']> }
    | { kind: 'frr'; answering: boolean; detail?: string },
): NodeState {
  switch (event.kind) {
    case 'report': {
      const r = event.report;
      if (r.configStatus !== 'provisioning') return state;
      return { ...state, applying: { revision: r.revision, confirming: r.confirming === true } };
    }
    case 'outcome': {
      const { applying: _done, ...rest } = state;
      return { ...rest, outcome: event.outcome };
    }
    case 'frr':
      return {
        ...state,
        frr: { answering: event.answering, ...(event.detail ? { detail: event.detail } : {}) },
      };
  }
}

export interface NodeConditionWriterOptions {
  clients: Clients;
  nodeName: string;
  now?: () => Date;
  onError?: (err: unknown) => void;
  onWritten?: (decision: ConditionDecision) => void;
}

/**
 * Writes `NodenetReady` when the decision differs from what the Node shows. The Node is read once
 * (lazily) so an agent restart with an unchanged decision writes nothing and keeps the transition
 * time; after that the last successful write is what the Node shows (only this agent writes it).
 */
export class NodeConditionWriter {
  private shown?: NodeCondition | null;
  private writing?: Promise<void>;
  private pending?: ConditionDecision;

  constructor(private readonly opts: NodeConditionWriterOptions) {}

  /** Asks for `decision` to be on the Node; a failed write is tried again at the next call. */
  update(decision: ConditionDecision | undefined): Promise<void> {
    if (!decision) return this.writing ?? Promise.resolve();
    this.pending = decision;
    this.writing ??= this.drain().finally(() => (this.writing = undefined));
    return this.writing;
  }

  private async drain(): Promise<void> {
    while (this.pending) {
      const decision = this.pending;
      this.pending = undefined;
      try {
        await this.write(decision);
      } catch (err) {
        if (!isNotFound(err)) this.opts.onError?.(err);
        return;
      }
    }
  }

  private async write(d: ConditionDecision): Promise<void> {
    const { clients, nodeName } = this.opts;
    if (this.shown === undefined) {
      const node = await clients.node.get(nodeName);
      this.shown = node.status?.conditions?.find((c) => c.type === NODENET_READY_CONDITION) ?? null;
    }
    const shown = this.shown;
    if (shown && shown.status === d.status && shown.reason === d.reason && shown.message === d.message)
      return;
    const now = (this.opts.now ?? (() => new Date()))()
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z');
    const condition: NodeCondition = {
      type: NODENET_READY_CONDITION,
      status: d.status,
      reason: d.reason,
      message: d.message,
      lastHeartbeatTime: now,
      // Kubernetes convention: the transition time moves only when the status does.
      lastTransitionTime:
        shown && shown.status === d.status && shown.lastTransitionTime ? shown.lastTransitionTime : now,
    };
    // Strategic merge keyed by condition type: the kubelet's conditions stay as they are.
    await clients.client.request('PATCH', `${clients.node.objectPath(nodeName)}/status`, {
      body: { status: { conditions: [condition] } },
      contentType: 'application/strategic-merge-patch+json',
      query: { fieldManager: 'nodenet-agent' },
    });
    this.shown = condition;
    this.opts.onWritten?.(d);
  }
}
