/**
 * History cleanup: keep the newest `--revision-history-limit` revisions, and always the desired
 * one, the rollback target, every revision a NodeConfig references, and an invalid one equal to the
 * current inputs (deleting it would let the known-bad configuration roll out again, invariant 4).
 * When the current inputs are not known (invalid inputs since this configurator started), every
 * invalid revision is kept. An invalid revision that holds its suspects back (suspects.ts) is kept
 * too: deleting it would release them, and the inputs could produce its content again. Deleting it
 * by hand (`kubectl delete ncr`) is how a person releases them without a retry.
 *
 * The rollback path is kept too (issue 35): the revision each NodeConfig's `ran-before` annotation
 * names (where a node leaving an invalid revision goes back to: deleting it sends the node to an
 * older completed revision, or to the empty configuration, and takes from it inputs the failed
 * change never touched), and for every invalid revision a node is on or that holds suspects back,
 * its fallback (the entries its suspects are held at, and the revision desired after it) and the
 * newest completed valid revision before it (a node's rollback target when its `ran-before` is
 * unknown, and the floor of the change's failure budget).
 */
import { fallbackBefore, revisionBefore, type NetworkConfigRevision, type NodeConfig } from '@nodenet/api';
import { factsOf } from './facts.js';
import { holdsBack } from './suspects.js';
import type { Action } from './types.js';

export interface HistoryInput {
  /** Newest first. */
  revisions: readonly NetworkConfigRevision[];
  desired: NetworkConfigRevision | undefined;
  invalid: ReadonlySet<string>;
  nodeConfigs: readonly NodeConfig[];
  inputHash?: string;
  limit: number;
  /** The hashes some NodeConfig's spec references (the incremental planner keeps them); else taken from nodeConfigs. */
  referenced?: { has(hash: string): boolean };
}

export function historyCleanup(h: HistoryInput): Extract<Action, { type: 'deleteRevision' }>[] {
  const referenced = h.referenced ?? new Set(h.nodeConfigs.map((nc) => nc.spec.revision));
  const desired = h.desired;
  const rollbackTarget = desired
    ? h.revisions.find((r) => r.spec.number < desired.spec.number && !h.invalid.has(r.metadata.name))
    : undefined;
  const out: Extract<Action, { type: 'deleteRevision' }>[] = [];
  // Only when something is beyond the limit: a walk over every NodeConfig otherwise saved.
  const rollbackPath = h.revisions.length > h.limit ? rollbackPathOf(h, referenced) : new Set<number>();
  let kept = 0;
  for (const r of h.revisions) {
    const name = r.metadata.name;
    const isProtected =
      name === desired?.metadata.name ||
      rollbackPath.has(r.spec.number) ||
      name === rollbackTarget?.metadata.name ||
      referenced.has(r.spec.hash) ||
      (h.invalid.has(name) &&
        (h.inputHash === undefined ||
          r.spec.hash === h.inputHash ||
          (hasSuspects(r) && holdsBack({ ...r, status: { ...r.status, isInvalid: true } }, h.revisions))));
    if (kept < h.limit || isProtected) {
      kept++;
      continue;
    }
    out.push({
      type: 'deleteRevision',
      revision: name,
      reason: `beyond --revision-history-limit=${h.limit} and referenced by no NodeConfig`,
    });
  }
  return out;
}

/** Listed suspects, or a commit too large to list them (suspects held by content). */
const hasSuspects = (r: NetworkConfigRevision): boolean =>
  (r.spec.changedInputs?.length ?? 0) > 0 || (r.spec.changedInputsOmitted ?? 0) > 0;

/** The numbers of the revisions a rollback may go back to (the header's list). */
function rollbackPathOf(h: HistoryInput, referenced: { has(hash: string): boolean }): Set<number> {
  const out = new Set<number>();
  for (const nc of h.nodeConfigs) {
    const ran = factsOf(nc).ranBefore;
    if (ran !== undefined) out.add(ran);
  }
  const invalid = (x: NetworkConfigRevision): boolean => h.invalid.has(x.metadata.name);
  for (const r of h.revisions) {
    if (!invalid(r) || !(referenced.has(r.spec.hash) || holdsBack(asInvalid(r), h.revisions))) continue;
    for (const back of [fallbackBefore(r, h.revisions, invalid), revisionBefore(r, h.revisions, invalid)])
      if (back) out.add(back.spec.number);
  }
  return out;
}

const asInvalid = (r: NetworkConfigRevision): NetworkConfigRevision => ({
  ...r,
  status: { ...r.status, isInvalid: true },
});
