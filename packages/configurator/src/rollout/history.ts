/**
 * History cleanup: keep the newest `--revision-history-limit` revisions, and always the desired
 * one, the rollback target, every revision a NodeConfig references, and an invalid one equal to the
 * current inputs (deleting it would let the known-bad configuration roll out again, invariant 4).
 * When the current inputs are not known (invalid inputs since this configurator started), every
 * invalid revision is kept.
 */
import type { NetworkConfigRevision, NodeConfig } from '@nodenet/api';
import type { Action } from './types.js';

export interface HistoryInput {
  /** Newest first. */
  revisions: readonly NetworkConfigRevision[];
  desired: NetworkConfigRevision | undefined;
  invalid: ReadonlySet<string>;
  nodeConfigs: readonly NodeConfig[];
  inputHash?: string;
  limit: number;
}

export function historyCleanup(h: HistoryInput): Extract<Action, { type: 'deleteRevision' }>[] {
  const referenced = new Set(h.nodeConfigs.map((nc) => nc.spec.revision));
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
      (h.invalid.has(name) && (h.inputHash === undefined || r.spec.hash === h.inputHash));
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
