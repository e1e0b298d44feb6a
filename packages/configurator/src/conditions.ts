import type { Condition } from '@nodenet/api';

export type ConditionInput = Omit<Condition, 'lastTransitionTime'>;

/**
 * Sets conditions on a list the Kubernetes way: `lastTransitionTime` changes only when the status
 * changes, so a condition that stays the same produces no status write. Order: by type.
 */
export function setConditions(
  existing: readonly Condition[] | undefined,
  updates: ConditionInput[],
  now: string,
): Condition[] {
  const byType = new Map<string, Condition>((existing ?? []).map((c) => [c.type, c]));
  for (const u of updates) {
    const prev = byType.get(u.type);
    const lastTransitionTime = prev && prev.status === u.status ? prev.lastTransitionTime : now;
    const next: Condition = {
      type: u.type,
      status: u.status,
      reason: u.reason,
      message: u.message,
      lastTransitionTime,
    };
    if (u.observedGeneration !== undefined) next.observedGeneration = u.observedGeneration;
    byType.set(u.type, next);
  }
  return [...byType.values()].sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
}

export const findCondition = (list: readonly Condition[] | undefined, type: string): Condition | undefined =>
  list?.find((c) => c.type === type);

/** RFC 3339 with second precision, as metav1.Time renders. */
export const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
/** RFC 3339 with milliseconds, for the assignment annotation (compared with agent timestamps). */
export const rfc3339Millis = (ms: number): string => new Date(ms).toISOString();
