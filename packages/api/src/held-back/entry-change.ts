/**
 * A change is identified by its content (issue 35): the fields of an input's entry that a revision
 * changed from the known-good revision before it. Shared by the planner (a follow-up write keeps the
 * change's failure budget, configurator rollout/same-change.ts) and the build (a follow-up write made
 * while the change was in flight stays held back with it, held-back/suspects.ts). Pure.
 */
import { canonicalJson } from '../config/canonical.js';

type Entry = Record<string, unknown> | undefined;

const text = (v: unknown): string => canonicalJson(v ?? null);

/** The field that says where an entry applies, not what it configures. */
const WHERE = 'nodeSelector';

/**
 * Whether `mine` carries the change from `base` to `theirs` of one entry: every field that change
 * set (or removed) has the same value in `mine`. The nodeSelector says only where the entry applies:
 * it is part of the change only when nothing else changed (so a write that sets a bad MTU for one
 * zone, then widens the selector, still carries the MTU). A removed entry is carried by a removal
 * only; no change at all is carried by nothing.
 */
export function carriesEntryChange(mine: unknown, theirs: unknown, base: unknown): boolean {
  const t = theirs as Entry;
  const b = base as Entry;
  const m = mine as Entry;
  if (t === undefined) return b !== undefined && m === undefined;
  if (m === undefined) return false;
  const keys = new Set([...Object.keys(t), ...Object.keys(b ?? {})]);
  const changed = [...keys].filter((k) => text(t[k]) !== text(b?.[k]));
  const what = changed.filter((k) => k !== WHERE);
  const change = what.length > 0 ? what : changed;
  return change.length > 0 && change.every((k) => text(m[k]) === text(t[k]));
}
