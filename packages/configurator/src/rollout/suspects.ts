/**
 * A newer revision that carries a suspect of an invalidated revision is invalidated with it (docs/
 * rollout.md, "The model"). Pure; used by the planner. Which suspects an invalid revision holds back,
 * and what the build uses instead, is defined once in `@nodenet/api` (held-suspects.ts), shared with
 * the plugin's preview; it is re-exported here for the planner.
 */
import { parseRef, sameEntry, entryOf, type NetworkConfigRevision, type SuspectRef } from '@nodenet/api';

export {
  CARRIES_REASON,
  revisionBefore as before,
  effectiveSuspects,
  entryOf,
  heldSuspects,
  holdsBack,
  parseRef,
  type HeldSuspect,
  type SuspectRef,
} from '@nodenet/api';

/**
 * Whether `r` (newer than the invalid `bad`) carries one of bad's suspects: it has the same entry,
 * and did not get it from a new generation of that input (its own changedInputs name another one).
 */
export function carriesSuspect(
  r: NetworkConfigRevision,
  bad: NetworkConfigRevision,
  suspects: readonly SuspectRef[],
): SuspectRef | undefined {
  if (r.spec.number <= bad.spec.number || r.spec.retryOf === bad.metadata.name) return undefined;
  const own = new Map(
    (r.spec.changedInputs ?? [])
      .map(parseRef)
      .filter((s): s is SuspectRef => s !== undefined)
      .map((s) => [`${s.kind}/${s.name}`, s.generation]),
  );
  return suspects.find((s) => {
    const g = own.get(`${s.kind}/${s.name}`);
    return (
      (g === undefined || g === s.generation) &&
      sameEntry(entryOf(r.spec.config, s), entryOf(bad.spec.config, s))
    );
  });
}
