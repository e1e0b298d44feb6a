/** The rollout planner's vocabulary: what it reads, what it decides. */
import type {
  FailedNode,
  MoveKind,
  NetworkConfigRevision,
  NetworkConfigRevisionStatus,
  NodeConfig,
} from '@nodenet/api';
import type { Policy } from '../policy/policy.js';
import type { Observations } from './observe.js';
import type { NodeInfo } from './node-info.js';

export type { NodeInfo } from './node-info.js';

export interface PlanInput {
  revisions: readonly NetworkConfigRevision[];
  nodes: readonly NodeInfo[];
  nodeConfigs: readonly NodeConfig[];
  /** Wall clock (ms since the epoch): only written into status for people to read, never compared. */
  now: number;
  /** The configurator's monotonic clock (ms): every deadline is measured on it. */
  mono: number;
  /** When this configurator first saw each fact (see observe.ts); updated before every pass. */
  observations: Observations;
  policy: Policy;
  /** Hash the inputs currently produce: an invalid revision with it is never cleaned up. */
  inputHash?: string;
  /**
   * Each input's current generation (`Kind/name`, @nodenet/api inputGenerations), read when a
   * revision is invalidated: the follow-up writes made while its change was in flight are recorded
   * in its status (held-back/follow-ups.ts). Without it, none are recorded.
   */
  inputGenerations?: () => ReadonlyMap<string, number>;
  /**
   * The spec hash a node's NodeConfig has for a revision (sha256 of the canonical spec JSON): a
   * function of the revision and the node's labels. Without it, a node is compared by revision only.
   */
  specHash?: (revision: NetworkConfigRevision, node: NodeInfo) => string;
  /**
   * The content hash of a node's spec for a revision: its spec hash without the revision reference
   * (unchanged.ts specContentHash). Without it, every move takes a slot.
   */
  contentHash?: (revision: NetworkConfigRevision, node: NodeInfo) => string;
}

/**
 * Per target node (docs/rollout.md "The model"):
 * - upToDate      on the desired revision, provisioned, soak over (NotReady since: still on it);
 * - soaking       provisioned for less than --min-success-time (on any revision it took forward): holds its slot;
 * - pending       assigned, no report yet (preconfig timeout from the assignment we observed), or
 *                 busy with a superseded revision it took forward: holds its slot;
 * - provisioning  the agent is working on it (config timeout from the last status change we saw);
 * - notReady      took a revision forward, then NotReady, gone or misconfigured before finishing it: holds its slot and every forward move;
 * - failed        reported invalid, or a timeout passed;
 * - unavailable   its agent was not answering before it was handed the revision: no forward move, never counted;
 * - outdated      anything else: waits for a free slot.
 */
export type NodeState =
  'upToDate' | 'soaking' | 'pending' | 'provisioning' | 'notReady' | 'failed' | 'unavailable' | 'outdated';

/** The node states that hold a slot. */
export const SLOT_STATES: ReadonlySet<NodeState> = new Set([
  'soaking',
  'pending',
  'provisioning',
  'notReady',
]);

export interface AssignAction {
  type: 'assign';
  node: string;
  revision: string;
  hash: string;
  number: number;
  /** The hash the node had (undefined: new NodeConfig). */
  from?: string;
  /** The node leaves a revision that was marked invalid. */
  rollback: boolean;
  /** Recorded on the NodeConfig: decides whether the node's failure counts against the revision. */
  move: MoveKind;
  /** A re-assignment of the same revision (after an interruption, a failed rollback): its number. */
  attempt?: number;
  /** The newest revision the node's host ran before this assignment (RAN_BEFORE_ANNOTATION). */
  ranBefore?: number;
  reason: string;
}

export type Action =
  | AssignAction
  | { type: 'invalidate'; revision: string; failedNodes: FailedNode[]; reason: string; aborted?: boolean }
  | { type: 'deleteNodeConfig'; name: string; reason: string }
  | { type: 'deleteRevision'; revision: string; reason: string }
  /** Records the highest revision number ever used on a revision (numbers.ts). */
  | { type: 'markHighestNumber'; revision: string; number: number }
  /** Sets or removes the desired label on a revision (readable.ts). */
  | { type: 'labelDesired'; revision: string; desired: boolean }
  /** Row labels of a NodeConfig for `kubectl get nc` (rows.ts); null removes one. */
  | { type: 'labelNodeConfig'; name: string; labels: Record<string, string | null> };

export interface StatusUpdate {
  revision: string;
  status: NetworkConfigRevisionStatus;
}

export interface Plan {
  desired?: { name: string; hash: string; number: number };
  actions: Action[];
  /** Revision statuses that differ from what the objects carry. */
  statusUpdates: StatusUpdate[];
  /** Look again after this long even if nothing changes (a timeout or soak ends); clamped. */
  requeueAfterMs?: number;
  /** Nodes by state relative to the desired revision, after the actions (for metrics and logs). */
  nodeStates: Record<NodeState | 'notTarget', number>;
  limit: number;
  inProgress: number;
}
