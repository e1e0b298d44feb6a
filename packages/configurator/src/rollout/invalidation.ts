/**
 * Which revisions a pass marks invalid (docs/rollout.md "Failures"): one a person aborted, one with
 * more than --max-failures counted failures (its own, and those of superseded revisions whose change
 * it carries), and one that carries a held-back suspect of an invalid revision. Invalidating one
 * changes the desired revision (identity.ts) and with it the verdicts, so the pass settles: it
 * classifies, counts and invalidates until nothing more is invalidated.
 */
import { revisionBefore, type FailedNode, type NetworkConfigRevision } from '@nodenet/api';
import type { Policy } from '../policy/policy.js';
import type { Verdict } from './classify.js';
import { countedFailures, failureRecord, nodeSummary, type FailureRecord } from './failures.js';
import { chooseDesired, isCompleted } from './identity.js';
import type { Invalidation } from './revision-status.js';
import { carriedChange } from './same-change.js';
import { carriesSuspect, effectiveSuspects, holdsBack } from './suspects.js';
import type { Action } from './types.js';

/** The invalid revisions of one pass, and the invalidations it decided (with their actions). */
export class InvalidSet {
  /** Names of the invalid revisions: marked before the pass, or by it. */
  readonly names: Set<string>;
  /** The invalidations decided in this pass, by revision name. */
  readonly decided = new Map<string, Invalidation>();

  constructor(
    readonly revisions: readonly NetworkConfigRevision[],
    private readonly actions: Action[],
  ) {
    this.names = new Set(revisions.filter((r) => r.status?.isInvalid === true).map((r) => r.metadata.name));
  }

  mark(r: NetworkConfigRevision, inv: Invalidation): void {
    this.names.add(r.metadata.name);
    this.decided.set(r.metadata.name, inv);
    this.actions.push({ type: 'invalidate', revision: r.metadata.name, ...inv });
  }

  /**
   * A person aborted a revision (spec.aborted): invalid at once, like a failure, whether or not it
   * is desired right now (it never will be again). A revision that completed is not aborted: abort
   * stops a rollout, it does not undo one (that would move every node at once, away from the last
   * known-good revision); `kubectl nodenet abort` refuses it, and a revert of the inputs undoes it
   * gradually.
   */
  markAborted(): void {
    for (const r of this.revisions) {
      if (r.spec.aborted !== true || this.names.has(r.metadata.name) || isCompleted(r)) continue;
      this.mark(r, {
        failedNodes: [...(r.status?.failedNodes ?? [])],
        aborted: true,
        reason: `aborted (spec.aborted): the nodes that took revision ${r.spec.number} roll back`,
      });
    }
  }
}

export interface Settled {
  desired: NetworkConfigRevision | undefined;
  /** Every node's verdict against the desired revision (none without one). */
  verdicts: Verdict[];
  /** Per revision (name): its failure record after this pass's counted failures. */
  records: Map<string, FailureRecord>;
}

/**
 * Failures count against the revision that was assigned, desired or not, and are counted from its
 * record (failures.ts). Repeats until nothing more is invalidated (each round invalidates one more).
 */
export function settle(
  invalid: InvalidSet,
  policy: Policy,
  verdictsFor: (desired: NetworkConfigRevision) => Verdict[],
): Settled {
  const { revisions } = invalid;
  for (;;) {
    const desired = chooseDesired(revisions, invalid.names).desired;
    const verdicts = desired ? verdictsFor(desired) : [];
    const records = failureRecords(revisions, verdicts, policy.maxFailedNodes);
    const failing = markFailing(invalid, records, policy);
    const carrying = markCarriers(invalid);
    if (!failing && !carrying) return { desired, verdicts, records };
  }
}

/**
 * Marks the revisions with more than --max-failures counted failures; whether it marked any. Oldest
 * first: a revision that failed on its own is invalid before a newer one could inherit its
 * failures; the newer one is then a carrier of its suspects (markCarriers).
 */
function markFailing(
  invalid: InvalidSet,
  records: ReadonlyMap<string, FailureRecord>,
  policy: Policy,
): boolean {
  const { revisions } = invalid;
  let more = false;
  for (const r of [...revisions].reverse()) {
    if (invalid.names.has(r.metadata.name)) continue;
    const rec = records.get(r.metadata.name) as FailureRecord;
    const counted = countedFailures(r, supersededSince(r, revisions, invalid.names), records, {
      all: revisions,
      isInvalid: (x) => invalid.names.has(x.metadata.name),
    });
    if (counted.failed <= policy.maxFailures) continue;
    const inherited = counted.inheritedFrom.length
      ? ` (its change failed nodes on superseded revision(s) ${counted.inheritedFrom.join(', ')} too, counted with its own)`
      : '';
    invalid.mark(r, {
      failedNodes: rec.failedNodes,
      reason: `${counted.failed} node(s) failed${inherited}, more than --max-failures=${policy.maxFailures}: ${nodeSummary(rec.failedNodes, rec.failed)}`,
    });
    more = true;
  }
  return more;
}

/** Marks the valid revisions that carry a held-back suspect; whether it marked any. */
function markCarriers(invalid: InvalidSet): boolean {
  const found = carriers(invalid.revisions, invalid.names, invalid.decided);
  for (const [r, bad] of found)
    invalid.mark(r, {
      failedNodes: [...(r.status?.failedNodes ?? [])],
      carries: true,
      reason: `carries ${bad.ref} of invalid revision ${bad.revision.spec.number}, which is held back (a new revision is built without it)`,
    });
  return found.length > 0;
}

/** Per revision, its failure record after this pass's counted failures. */
function failureRecords(
  revisions: readonly NetworkConfigRevision[],
  verdicts: readonly Verdict[],
  max: number,
): Map<string, FailureRecord> {
  const fresh = new Map<string, FailedNode[]>();
  for (const v of verdicts) {
    if (!v.failure || !v.counts || v.failedRevision === undefined) continue;
    fresh.set(v.failedRevision, [...(fresh.get(v.failedRevision) ?? []), v.failure]);
  }
  return new Map(
    revisions.map((r) => [r.metadata.name, failureRecord(r, fresh.get(r.metadata.name) ?? [], max)]),
  );
}

/**
 * The valid revisions older than `r` and newer than the last completed one before it that never
 * completed themselves: whose failures `r` inherits when it carries their change (failures.ts).
 */
function supersededSince(
  r: NetworkConfigRevision,
  revisions: readonly NetworkConfigRevision[],
  invalid: ReadonlySet<string>,
): NetworkConfigRevision[] {
  const isInvalid = (x: NetworkConfigRevision): boolean => invalid.has(x.metadata.name);
  const floor = revisionBefore(r, revisions, isInvalid)?.spec.number ?? 0;
  return revisions.filter(
    (x) => x.spec.number < r.spec.number && x.spec.number > floor && !isInvalid(x) && !isCompleted(x),
  );
}

/** Valid revisions that carry a suspect of an invalid one that holds its suspects back (suspects.ts). */
function carriers(
  revisions: readonly NetworkConfigRevision[],
  invalid: ReadonlySet<string>,
  invalidations: ReadonlyMap<string, Invalidation>,
): Array<[NetworkConfigRevision, { revision: NetworkConfigRevision; ref: string }]> {
  const out: Array<[NetworkConfigRevision, { revision: NetworkConfigRevision; ref: string }]> = [];
  const isInvalid = (x: NetworkConfigRevision): boolean => invalid.has(x.metadata.name);
  for (const bad of revisions) {
    if (!isInvalid(bad)) continue;
    const inv = invalidations.get(bad.metadata.name);
    if (
      inv
        ? inv.carries === true
        : !holdsBack({ ...bad, status: { ...bad.status, isInvalid: true } }, revisions)
    )
      continue;
    const suspects = effectiveSuspects(bad, revisions, isInvalid);
    if (suspects.length === 0) continue;
    for (const r of revisions) {
      if (isInvalid(r) || out.some(([x]) => x === r)) continue;
      // Invalidated in this pass: a newer revision built while its change was in flight carries it
      // when it keeps the values the change set, also from a follow-up write of the input (a change
      // is identified by its content, same-change.ts). Later writes are a person's new change.
      const followUp =
        inv !== undefined && r.spec.number > bad.spec.number && r.spec.retryOf !== bad.metadata.name
          ? carriedChange(r, bad, { all: revisions, isInvalid }, suspects)
          : undefined;
      const s = carriesSuspect(r, bad, suspects) ?? followUp;
      if (s) out.push([r, { revision: bad, ref: `${s.kind}/${s.name}` }]);
    }
  }
  return out;
}
