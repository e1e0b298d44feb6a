/**
 * When the observed state is written: only when it changed, and at most once per `minIntervalMs`
 * on the agent's monotonic clock (a flapping session must not turn into a stream of status writes).
 * Pure functions of what was written, what was read and the time, like `decideLease`.
 */
import { canonicalJson, type ObservedState } from '@nodenet/api';

/**
 * A derived `since` moves by a second now and then between two reads of the same session (FRR's
 * uptime has one-second resolution, and the read itself takes time). Within this tolerance the
 * session is the same one and keeps the `since` already written; a session that re-established
 * moves by more than this.
 */
export const SINCE_TOLERANCE_MS = 3000;

/** `next`, with the `since` of every session that did not change taken from `previous`. */
export function stabilizeSince(
  previous: ObservedState | undefined,
  next: ObservedState,
  toleranceMs = SINCE_TOLERANCE_MS,
): ObservedState {
  if (!previous?.bgpSessions || !next.bgpSessions) return next;
  const before = new Map(previous.bgpSessions.map((s) => [`${s.vrf}\0${s.peer}`, s]));
  return {
    ...next,
    bgpSessions: next.bgpSessions.map((s) => {
      const old = before.get(`${s.vrf}\0${s.peer}`);
      if (!old || old.state !== s.state || !old.since || !s.since) return s;
      const drift = Math.abs(Date.parse(s.since) - Date.parse(old.since));
      return drift <= toleranceMs ? { ...s, since: old.since } : s;
    }),
  };
}

export const sameObserved = (a: ObservedState | undefined, b: ObservedState | undefined): boolean =>
  a !== undefined && b !== undefined && canonicalJson(a) === canonicalJson(b);

export type ObservedWriteDecision =
  | { kind: 'unchanged' }
  | { kind: 'write' }
  /** Changed, but the last write was less than `minIntervalMs` ago: write in `inMs`. */
  | { kind: 'wait'; inMs: number };

export interface ObservedWriteInput {
  /** What the API shows (the last successful write, or what was read at start-up). */
  written: ObservedState | undefined;
  /** The state just read (after `stabilizeSince`). */
  candidate: ObservedState;
  /** Monotonic time of the last write attempt; undefined before the first. */
  lastWriteAtMs: number | undefined;
  nowMs: number;
  minIntervalMs: number;
}

export function decideObservedWrite(input: ObservedWriteInput): ObservedWriteDecision {
  if (sameObserved(input.written, input.candidate)) return { kind: 'unchanged' };
  if (input.lastWriteAtMs === undefined) return { kind: 'write' };
  const elapsed = input.nowMs - input.lastWriteAtMs;
  if (elapsed >= input.minIntervalMs) return { kind: 'write' };
  return { kind: 'wait', inMs: input.minIntervalMs - elapsed };
}

/** Every member of ObservedState (the compiler checks the list is complete). */
const OBSERVED_KEYS: Record<keyof ObservedState, true> = {
  frrVersion: true,
  bgpSummary: true,
  vniSummary: true,
  bgpSessions: true,
  vnis: true,
  error: true,
};

/**
 * The merge patch that replaces `status.observed` as a whole: a merge patch merges objects, so a
 * part that disappeared (e.g. `error` once FRR answers again) must be sent as null to be removed.
 */
export function observedPatch(observed: ObservedState): { status: { observed: Record<string, unknown> } } {
  const body: Record<string, unknown> = {};
  for (const key of Object.keys(OBSERVED_KEYS) as (keyof ObservedState)[]) body[key] = observed[key] ?? null;
  return { status: { observed: body } };
}
