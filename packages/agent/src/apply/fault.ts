/**
 * TEST-ONLY fault injection. Setting `NODENET_FAULT_AT=<point>` makes the agent kill itself with
 * SIGKILL when the apply pipeline reaches that point, so end-to-end tests can cut an apply off at a
 * precise step and check the crash recovery at start-up (restore.ts, `startUp`). SIGKILL (not an
 * exception, not exit()) because a real crash runs no cleanup, flushes no buffers and writes no
 * status. Never set it in production: the agent logs a warning at start-up when it is set.
 */
import { OptionError } from '../errors.js';

export const FAULT_POINTS = [
  /** pending.json written, host untouched. */
  'after-pending',
  /** netlink changes applied, FRR not yet. */
  'after-netlink',
  /** netlink and FRR applied, health not yet checked. */
  'after-frr',
  /** health checks passed, applied.json not yet written. */
  'after-health',
  /** applied.json written, pending.json not yet removed. */
  'after-applied',
  /** a failed apply restored and rejected.json written, pending.json not yet removed. */
  'after-rejected',
] as const;
export type FaultPoint = (typeof FAULT_POINTS)[number];

export const FAULT_ENV = 'NODENET_FAULT_AT';

export type FaultHook = (point: FaultPoint) => void;

/** Reads the fault point from the environment; an unknown point is an error, not a silent no-op. */
export function faultPointFromEnv(env: NodeJS.ProcessEnv = process.env): FaultPoint | undefined {
  const value = env[FAULT_ENV];
  if (value === undefined || value === '') return undefined;
  if (!(FAULT_POINTS as readonly string[]).includes(value)) {
    throw new OptionError(FAULT_ENV, value, `must be one of ${FAULT_POINTS.join(', ')}`);
  }
  return value as FaultPoint;
}

/** The hook the agent binary uses: SIGKILL at the configured point. */
export function killAt(point: FaultPoint | undefined, beforeKill?: (point: FaultPoint) => void): FaultHook {
  return (reached) => {
    if (reached !== point) return;
    beforeKill?.(reached);
    process.kill(process.pid, 'SIGKILL');
  };
}
