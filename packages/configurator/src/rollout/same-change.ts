/**
 * A change is identified by its content (issue 35): the fields of an input's entry that a revision
 * changed from the known-good revision before it. A follow-up write of the same input that keeps
 * those values (its nodeSelector widened 20 s after a bad MTU, say) still carries the change: its
 * failures count with the change's, and it is invalidated with it, instead of starting a fresh budget.
 * Pure. Whether an entry carries a change is carriesEntryChange (@nodenet/api, held-back/entry-change.ts),
 * shared with the build's hold.
 */
import {
  BY_CONTENT,
  SUSPECT_LISTS,
  carriesEntryChange,
  entryOf,
  parseRef,
  revisionBefore,
  type NetworkConfig,
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
  given?: readonly SuspectRef[],
): SuspectRef | undefined {
  const base = revisionBefore(x, among.all, among.isInvalid)?.spec.config;
  const suspects = given ?? changedRefs(x, base);
  return suspects.find((s) =>
    carriesEntryChange(
      entryOf(r.spec.config, s),
      entryOf(x.spec.config, s),
      base ? entryOf(base, s) : undefined,
    ),
  );
}

/**
 * The changes `x` made: its changedInputs, and when a commit was too large to list them all
 * (changedInputsOmitted), every other entry of `x` or of `base`, known by content (issue 35: the
 * omitted inputs' failures were not inherited; an entry `x` did not change carries no change, so
 * carriesEntryChange passes it over).
 */
function changedRefs(x: NetworkConfigRevision, base: NetworkConfig | undefined): SuspectRef[] {
  const listed = (x.spec.changedInputs ?? []).map(parseRef).filter((s): s is SuspectRef => s !== undefined);
  if ((x.spec.changedInputsOmitted ?? 0) === 0) return listed;
  const seen = new Set(listed.map((s) => `${s.kind}/${s.name}`));
  const byContent: SuspectRef[] = [];
  for (const [kind, list] of Object.entries(SUSPECT_LISTS) as Array<
    [SuspectRef['kind'], keyof NetworkConfig]
  >)
    for (const config of [x.spec.config, base])
      for (const e of (config?.[list] ?? []) as ReadonlyArray<{ name: string }>) {
        const key = `${kind}/${e.name}`;
        if (seen.has(key)) continue;
        seen.add(key);
        byContent.push({ kind, name: e.name, generation: BY_CONTENT });
      }
  return [...listed, ...byContent];
}
