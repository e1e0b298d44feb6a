/**
 * Issue 35: the pass that invalidates a revision (for its own failures or an abort; not a carrier,
 * which holds nothing back) records in its status the follow-up writes of its suspects: the
 * generation each suspect's input has then, where it differs from the suspect's own (@nodenet/api
 * held-back/follow-ups.ts). The build holds those back while they still carry the change; a write
 * after this pass is a person's new change. Pure.
 */
import { followUpRecord, type NetworkConfigRevision } from '@nodenet/api';
import type { Invalidation } from './revision-status.js';
import type { StatusUpdate } from './types.js';

export function withFollowUps(
  updates: StatusUpdate[],
  pass: {
    revisions: readonly NetworkConfigRevision[];
    invalid: ReadonlySet<string>;
    decided: ReadonlyMap<string, Invalidation>;
    inputGenerations: (() => ReadonlyMap<string, number>) | undefined;
  },
): StatusUpdate[] {
  const { revisions, invalid, decided, inputGenerations } = pass;
  if (!inputGenerations || decided.size === 0) return updates;
  let current: ReadonlyMap<string, number> | undefined;
  return updates.map((u) => {
    const r = revisions.find((x) => x.metadata.name === u.revision);
    const why = decided.get(u.revision);
    if (!r || !why || why.carries || r.status?.isInvalid === true || u.status.isInvalid !== true) return u;
    current ??= inputGenerations();
    const record = followUpRecord(r, revisions, (x) => invalid.has(x.metadata.name), current);
    return { ...u, status: { ...u.status, ...record } };
  });
}
