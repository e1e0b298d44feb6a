/**
 * Conditions the Kubernetes way, for every status nodenet writes: `lastTransitionTime` changes only
 * when the status changes, so a condition that stays the same produces no status write.
 */
import type { Condition } from '../resources/schema.js';

export type ConditionInput = Omit<Condition, 'lastTransitionTime'>;

/** The condition of this type (and this status, when given) in any condition-shaped list. */
export const findCondition = <C extends { type: string; status: string }>(
  list: readonly C[] | undefined,
  type: string,
  status?: string,
): C | undefined => list?.find((c) => c.type === type && (status === undefined || c.status === status));

/** Whether the list has a condition of this type with this status. */
export const hasCondition = (
  list: readonly { type: string; status: string }[] | undefined,
  type: string,
  status = 'True',
): boolean => findCondition(list, type, status) !== undefined;

/** `next` as written after `previous`: the transition time is kept when the status did not change. */
export function transition(previous: Condition | undefined, next: ConditionInput, now: string): Condition {
  const condition: Condition = {
    type: next.type,
    status: next.status,
    reason: next.reason,
    message: next.message,
    lastTransitionTime: previous && previous.status === next.status ? previous.lastTransitionTime : now,
  };
  if (next.observedGeneration !== undefined) condition.observedGeneration = next.observedGeneration;
  return condition;
}

/** Applies `updates` to a list (other types stay as they are); the result is ordered by type. */
export function setConditions(
  existing: readonly Condition[] | undefined,
  updates: readonly ConditionInput[],
  now: string,
): Condition[] {
  const byType = new Map<string, Condition>((existing ?? []).map((c) => [c.type, c]));
  for (const u of updates) byType.set(u.type, transition(byType.get(u.type), u, now));
  return [...byType.values()].sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
}

/** RFC 3339 with second precision, as metav1.Time renders. */
export const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
/** RFC 3339 with milliseconds, for the assignment annotation (compared with agent timestamps). */
export const rfc3339Millis = (ms: number): string => new Date(ms).toISOString();
