/**
 * Revision numbers are never reused: a new revision gets a number above every number ever used. The
 * high-water mark lives in the API, as an annotation on every revision (kept up to date by the
 * planner), so a restart or another leader knows it even after the newest revisions were deleted
 * (`kubectl delete ncr` of an invalid revision). Only deleting every revision forgets it.
 */
import { HIGHEST_NUMBER_ANNOTATION, type NetworkConfigRevision } from '@nodenet/api';
import type { Action } from './types.js';

const marked = (r: NetworkConfigRevision): number => {
  const n = Number(r.metadata.annotations?.[HIGHEST_NUMBER_ANNOTATION]);
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
};

/** The highest revision number ever used, as far as the revisions tell. */
export function highestNumber(revisions: readonly NetworkConfigRevision[]): number {
  let max = 0;
  for (const r of revisions) max = Math.max(max, r.spec.number, marked(r));
  return max;
}

/** Annotation writes that bring every revision's high-water mark up to `highestNumber`. */
export function highWaterMarks(
  revisions: readonly NetworkConfigRevision[],
): Extract<Action, { type: 'markHighestNumber' }>[] {
  const max = highestNumber(revisions);
  return revisions
    .filter((r) => marked(r) < max)
    .map((r) => ({ type: 'markHighestNumber' as const, revision: r.metadata.name, number: max }));
}
