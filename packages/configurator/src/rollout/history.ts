/**
 * History cleanup: keep the newest `--revision-history-limit` revisions, and always the desired
 * one, the rollback target, every revision a NodeConfig references, and an invalid one equal to the
 * current inputs (deleting it would let the known-bad configuration roll out again, invariant 4).
 * When the current inputs are not known (invalid inputs since this configurator started), every
 * invalid revision is kept. An invalid revision that holds its suspects back (suspects.ts) is kept
 * too: deleting it would release them, and the inputs could produce its content again. Deleting it
 * by hand (`kubectl delete ncr`) is how a person releases them without a retry.
 */
import type { NetworkConfigRevision, NodeConfig } from '@nodenet/api';
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
  let kept = 0;
  for (const r of h.revisions) {
    const name = r.metadata.name;
    const isProtected =
      name === desired?.metadata.name ||
      name === rollbackTarget?.metadata.name ||
      referenced.has(r.spec.hash) ||
      (h.invalid.has(name) &&
        (h.inputHash === undefined ||
          r.spec.hash === h.inputHash ||
          ((r.spec.changedInputs?.length ?? 0) > 0 &&
            holdsBack({ ...r, status: { ...r.status, isInvalid: true } }, h.revisions))));
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
