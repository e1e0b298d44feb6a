/** The fleet simulator's vocabulary: nodes, agents, faults and operator actions on a virtual clock. */
import type { KnobChange } from './knobs.js';

/**
 * How a node's agent behaves:
 * - good          applies in ~2 s and reports;
 * - slow          applies in ~40 s, renewing its liveness Lease (TIMING.heartbeat) meanwhile, as the
 *                 shipped agent does (docs/agent-status.md, "Liveness"): no status write between reports;
 * - dead          writes nothing any more;
 * - misconfigured its start-up self-check failed (AgentReady=False, AgentMisconfigured), applies nothing;
 * - notStarted    not running yet (image still pulling): never reported, start-up taint stays;
 * - interrupts    every apply ends `invalid`, failureCause Interrupted (not the change's fault);
 * - restoreFails  every apply ends `invalid`, failureCause RestoreFailed, nothing claimed on the host;
 * - retrying      its first try of each apply fails and it retries on its own (reports progress), then succeeds.
 */
export type AgentMode =
  'good' | 'slow' | 'dead' | 'misconfigured' | 'notStarted' | 'interrupts' | 'restoreFails' | 'retrying';

/** A bad change, marked by content: the value an input takes that only it adds. */
export interface BadChange {
  input: string;
  value: number;
  /**
   * invalid: the agent's checks refuse it; cutOff: it takes the node off the network; flap: its
   * kubelet goes NotReady for TIMING.flapDown, Ready for TIMING.flapUp, and again, as long as the
   * host runs it (a session that drops on its hold timer again and again), the agent reports
   * `provisioned`; cutOffInterrupted: a cut-off whose network heals more than 15 s after the
   * agent's restore, which the shipped agent reports `Interrupted` (apply/failure-cause.ts);
   * cutOffLater: the cut-off starts TIMING.later after the apply; cutOffForever: the agent's restore
   * does not bring it back (it stays NotReady).
   */
  effect: 'invalid' | 'cutOff' | 'flap' | 'cutOffInterrupted' | 'cutOffLater' | 'cutOffForever';
  /** Nodes it harms (default all). */
  nodes?: readonly string[];
}

export interface SimNode {
  name: string;
  /** The Node object's uid: a Node re-created under the same name is another object (issue 35). */
  uid: string;
  labels: Record<string, string>;
  /** The Node object exists (false once deleted). */
  exists: boolean;
  kubeletReady: boolean;
  taint: boolean;
  agent: AgentMode;
  /** The assignment the agent last saw, and when (virtual ms). */
  seen?: { key: string; at: number };
  /** The agent's assignment key (generation|assigned-at) it last started on. */
  handledKey?: string;
  /** An apply in progress: finishes at `doneAt`. */
  job?: { key: string; gen: number; hash: string; doneAt: number; heartbeatAt: number; retried?: boolean };
  /** Revision hash on the host (undefined: nothing, or unknown after a failed restore). */
  host?: string;
  /**
   * Renewals of the agent's liveness Lease so far (undefined: no Lease yet): the configurator sees
   * a change of it as a sign of life (NodeInfo.renewal).
   */
  renewals?: number;
  /** The agent has written a status at least once (or the node was provisioned before the history). */
  everReported: boolean;
  /** Cut off: the agent cannot write; the kubelet goes NotReady at `notReadyAt`; restore at `restoreAt`. */
  cut?: {
    notReadyAt: number;
    restoreAt: number;
    prevHost?: string;
    gen: number;
    byChange: boolean;
    /** What the agent reports after its restore (default ChangeFailed). */
    cause?: 'Interrupted';
  };
  /**
   * Kubelet readiness flips every `period` ms until `until` (NotReady for `downMs` and Ready for
   * `period` when `downMs` is set); `byChange`: a bad change's, it lasts while the host runs `byChange`.
   */
  flap?: { until: number; period: number; next: number; downMs?: number; byChange?: string };
  /** Set while a NotReady/flap fault holds the kubelet down (the restore does not lift it). */
  kubeletFault?: boolean;
  /** Virtual time of the last fault that hit this node (agent, kubelet, cut off, deletion). */
  lastFaultAt?: number;
  /** The last time the kubelet was seen NotReady (ground truth for a counted Interrupted). */
  lastNotReadyAt?: number;
  /** Since when the kubelet is NotReady (for the simulated autoscaler). */
  notReadySince?: number;
}

/** Things that happen, scheduled at a virtual time (ms). */
export type WorldAction =
  /**
   * Write an input: its value, and (when `zone` is given) its nodeSelector: `zone: <z>` selects
   * the nodes labelled `zone=<z>`, null selects every node (a widened selector). Unset: kept.
   */
  | { kind: 'setInput'; input: string; value: number; zone?: string | null }
  | { kind: 'deleteInput'; input: string }
  /** Set the input back to the value it had before its last change (a new generation). */
  | { kind: 'revert'; input: string }
  | { kind: 'pauseFleet' }
  | { kind: 'resumeFleet' }
  /** Pause or resume the desired revision (or the revision with `number`). */
  | { kind: 'pauseRevision'; number?: number }
  | { kind: 'resumeRevision'; number?: number }
  | { kind: 'abort'; number?: number }
  /** Retry the newest invalid revision (or the one with `number`). */
  | { kind: 'retry'; number?: number }
  | { kind: 'relabel'; node: string; labels: Record<string, string> }
  /** `recreate`: a Node of that name that exists is deleted and re-created at once (its NodeConfig survives). */
  | {
      kind: 'join';
      node: string;
      agent?: AgentMode;
      taint?: boolean;
      labels?: Record<string, string>;
      recreate?: boolean;
    }
  | { kind: 'deleteNode'; node: string }
  | { kind: 'kubelet'; node: string; ready: boolean }
  | { kind: 'flap'; node: string; forMs: number; periodMs?: number }
  | { kind: 'agent'; node: string; mode: AgentMode }
  /** A fault (not a change) cuts the node off for `forMs`. */
  | { kind: 'cut'; node: string; forMs: number }
  | { kind: 'leaderChange'; gapMs?: number }
  /** A person edits the RolloutPolicy `default` (limit, max-failures, timeouts, node selector). */
  | { kind: 'policy'; change: KnobChange }
  /** The configurator's wall clock jumps (NTP): never its monotonic clock. */
  | { kind: 'clockJump'; ms: number }
  /** `kubectl delete nc <node>`. */
  | { kind: 'deleteNodeConfig'; node: string };

export interface Scheduled {
  at: number;
  action: WorldAction;
}

/** The agent statuses written, as the real agent writes them. */
export type { AgentReport } from '../agent-status.js';

/** Simulated durations (ms). */
export const TIMING = {
  /** The agent notices a new assignment. */
  react: 200,
  apply: 2_000,
  slowApply: 40_000,
  heartbeat: 10_000,
  /** Node lifecycle controller: a silent kubelet shows NotReady after this. */
  notReadyGrace: 40_000,
  /** The agent's own restore of a change that cut the node off (confirm window and restore). */
  restore: 90_000,
  /** A cut-off that starts later (cutOffLater): still visible within the default soak. */
  later: 15_000,
  /** The agent's own retry of a failed apply (mode `retrying`). */
  retryBackoff: 5_000,
  /** A flapping change: NotReady stretches (each under the default --not-ready-timeout) and Ready ones between. */
  flapDown: 80_000,
  flapUp: 30_000,
  /** A new leader acts after this gap (lease expiry). */
  leaderGap: 15_000,
} as const;
