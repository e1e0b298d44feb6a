/**
 * A change is identified by its content (issue 35): the fields of an input's entry that a revision
 * changed from the known-good revision before it. A follow-up write of the same input that keeps
 * those values (its nodeSelector widened 20 s after a bad MTU, say) still carries the change: its
 * failures count with the change's, and it is invalidated with it, instead of starting a fresh budget.
 * Pure. Whether an entry carries a change is carriesEntryChange (@nodenet/api, held-back/entry-change.ts),
 * shared with the build's hold.
 */
import {
  carriesEntryChange,
  entryOf,
  parseRef,
  revisionBefore,
  type NetworkConfigRevision,
  type SuspectRef,
} from '@nodenet/api';

/** Every revision, and which are invalid: the known-good one before a change is found among them. */
export interface Revisions {
  all: readonly NetworkConfigRevision[];
  isInvalid: (x: NetworkConfigRevision) => boolean;
}

/**
 * The suspect (one of `x`'s changed inputs, or the given `suspects`) whose change from the last
 * completed revision before `x` `r` carries; undefined: none.
 */
export function carriedChange(
  r: NetworkConfigRevision,
  x: NetworkConfigRevision,
  among: Revisions,
  suspects: readonly SuspectRef[] = changedRefs(x),
): SuspectRef | undefined {
  const base = revisionBefore(x, among.all, among.isInvalid)?.spec.config;
  return suspects.find((s) =>
    carriesEntryChange(
      entryOf(r.spec.config, s),
      entryOf(x.spec.config, s),
      base ? entryOf(base, s) : undefined,
    ),
  );
}

const changedRefs = (x: NetworkConfigRevision): SuspectRef[] =>
  (x.spec.changedInputs ?? []).map(parseRef).filter((s): s is SuspectRef => s !== undefined);
