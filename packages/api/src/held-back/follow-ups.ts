/**
 * Follow-up writes (issue 35): a write of a suspect's input made while its change was in flight
 * (after the suspect's generation, before the invalidation) that keeps the change's content is the
 * same change, not a new one (docs/rollout.md, "A change is identified by its content"). The
 * configurator records, when it invalidates a revision, the generation each suspect's input has
 * then where it differs from the suspect's own (`status.followUpGenerations`); the build holds such
 * a generation back while its entry still carries the change (suspects.ts heldSuspects). A write
 * after the invalidation (a person reacting to it) has a generation not listed: a new change; so has
 * one written after the input was changed away (a newer revision without the change).
 * Without the record, a follow-up escaped the hold and got a fresh failure budget. Pure.
 */
import type { NetworkConfigRevision } from '../resources/objects.js';
import type { NetworkConfigRevisionStatus } from '../resources/schema.js';
import { carriesEntryChange } from './entry-change.js';
import { effectiveSuspects, entryOf, fallbackBefore } from './suspects.js';

/** The record is kept within this many bytes (as changedInputs is); the rest is counted. */
export const FOLLOW_UPS_BYTES = 32 * 1024;

/**
 * What an invalidation of `bad` records (the status fields): the current generation of each
 * suspect's input that differs from the suspect's own. `invalid` as of the invalidating pass.
 */
export function followUpRecord(
  bad: NetworkConfigRevision,
  revisions: readonly NetworkConfigRevision[],
  invalid: (x: NetworkConfigRevision) => boolean,
  current: ReadonlyMap<string, number>,
): Pick<NetworkConfigRevisionStatus, 'followUpGenerations' | 'followUpGenerationsOmitted'> {
  const refs: string[] = [];
  const base = fallbackBefore(bad, revisions, invalid)?.spec.config;
  const newer = revisions.filter((y) => y.spec.number > bad.spec.number);
  for (const s of effectiveSuspects(bad, revisions, invalid)) {
    const key = `${s.kind}/${s.name}`;
    const g = current.get(key);
    // Held by content (BY_CONTENT) already, or gone, or not written again: nothing to record.
    if (s.generation < 0 || g === undefined || g === s.generation) continue;
    // Changed away meanwhile (a newer revision without the change, e.g. a revert) and written back:
    // a re-introduction, not a follow-up (seed 201 of the extended generator).
    const carried = (y: NetworkConfigRevision): boolean =>
      carriesEntryChange(entryOf(y.spec.config, s), entryOf(bad.spec.config, s), base && entryOf(base, s));
    if (newer.every(carried)) refs.push(`${key}@${g}`);
  }
  refs.sort();
  const listed: string[] = [];
  let bytes = 0;
  for (const ref of refs) {
    bytes += ref.length + 3;
    if (bytes > FOLLOW_UPS_BYTES) break;
    listed.push(ref);
  }
  const omitted = refs.length - listed.length;
  return {
    ...(listed.length > 0 ? { followUpGenerations: listed } : {}),
    ...(omitted > 0 ? { followUpGenerationsOmitted: omitted } : {}),
  };
}
