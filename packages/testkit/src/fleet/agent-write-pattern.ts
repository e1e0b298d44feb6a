/**
 * What the real agent writes to the API server for one assignment, at its default settings: the
 * one place the simulated agents take their write pattern from (issue 40), so that a change to
 * what the agent writes (e.g. liveness through a Lease instead of status heartbeats) is made here
 * and every benchmark that plays the pattern follows.
 *
 * Today (packages/agent/src/apply/apply.ts, confirm.ts, status/status.ts, status/lease.ts,
 * status/node-condition.ts, observed/reporter.ts; docs/agent-status.md, "Liveness"), an apply that
 * changes the host writes:
 * - NodeConfig status: `provisioning` once (the Applying report is held and written as Confirming),
 *   then `provisioned`;
 * - the node's liveness Lease, renewed every --heartbeat-interval (150 s) while the apply and its
 *   --confirm-window (4 m) run: once at the defaults;
 * - status.observed once when the host's VNIs or BGP sessions changed (it is written only on change);
 * - the Node's NodenetReady condition (nodes/status) on each change of reason: Applying,
 *   Confirming, Applied.
 * An apply that changes nothing on the host writes `provisioned` and the Node condition (its
 * message names the revision) once each.
 */

/** One NodeConfig status report before the result. */
export interface ProgressReport {
  reason: string;
  /** The confirm window runs (the Confirming condition). */
  confirming?: boolean;
}

export interface AgentWritePattern {
  /** Status reports of an apply that changes the host, before its result, in order. */
  progress: ProgressReport[];
  /** The confirm window after the last progress report (ms). */
  confirmWindowMs: number;
  /**
   * Liveness while the window runs: the status written again (`status`), a per-node Lease renewed
   * (`lease`, in `leaseNamespace`), or nothing; one write every `intervalMs`, after the previous
   * one landed (the real agent never piles heartbeats up against a slow API server).
   */
  liveness: { kind: 'status' | 'lease' | 'none'; intervalMs: number; leaseNamespace?: string };
  /** NodenetReady condition writes (reasons, in order) of a changing apply and of a no-op apply. */
  nodeCondition: { changing: string[]; noOp: string[] };
  /** status.observed written once after an apply that changed the host. */
  observedAfterChange: boolean;
}

/** The agent's defaults (packages/agent/src/run/defaults.ts): window 4 m, heartbeat 150 s (a Lease). */
export const AGENT_WRITE_PATTERN: AgentWritePattern = {
  progress: [{ reason: 'Confirming', confirming: true }],
  confirmWindowMs: 240_000,
  liveness: { kind: 'lease', intervalMs: 150_000 },
  nodeCondition: { changing: ['Applying', 'Confirming', 'Applied'], noOp: ['Applied'] },
  observedAfterChange: true,
};

/** Liveness writes in one confirm window. */
export const livenessWrites = (p: AgentWritePattern): number =>
  p.liveness.kind === 'none' || p.liveness.intervalMs <= 0
    ? 0
    : Math.floor(p.confirmWindowMs / p.liveness.intervalMs);

/** Every write of one changing apply, all resources: progress, liveness, result, observed, Node. */
export const writesPerChangingApply = (p: AgentWritePattern): number =>
  p.progress.length +
  livenessWrites(p) +
  1 +
  (p.observedAfterChange ? 1 : 0) +
  p.nodeCondition.changing.length;

/** Every write of one apply that changes nothing on the host. */
export const writesPerNoOpApply = (p: AgentWritePattern): number => 1 + p.nodeCondition.noOp.length;

/**
 * The pattern on a compressed clock: every interval divided by `factor`, so that a benchmark plays
 * the same writes per apply (their count is kept) in less wall time.
 */
export function compressed(p: AgentWritePattern, factor: number): AgentWritePattern {
  return {
    ...p,
    confirmWindowMs: p.confirmWindowMs / factor,
    liveness: { ...p.liveness, intervalMs: p.liveness.intervalMs / factor },
  };
}
