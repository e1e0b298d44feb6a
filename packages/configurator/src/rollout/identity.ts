/**
 * Revision identity (docs/rollout.md, "The model"): which revision a node is assigned, which
 * revision is desired (with the known-good fallback after an invalidation), and what kind of move
 * takes a node from one to the other. All by revision number, never by content hash: a revert or a
 * retry has the content of another revision and is still its own revision.
 */
import {
  fallbackBefore,
  hashConfig,
  type MoveKind,
  type NetworkConfigRevision,
  type NodeConfig,
} from '@nodenet/api';
import { factsOf } from './facts.js';

const EMPTY_CONFIG = { vrf: [], layer2: [], routingTable: [] };

/** Name of the stand-in for the state before nodenet: the fallback when no revision can be. */
export const EMPTY_REVISION_NAME = 'empty-config';

/** The empty config as a revision (number 0): never stored, only assigned as a last-resort fallback. */
export const emptyRevision = (): NetworkConfigRevision => ({
  apiVersion: 'network.nodenet.io/v1alpha1',
  kind: 'NetworkConfigRevision',
  metadata: { name: EMPTY_REVISION_NAME },
  spec: { config: EMPTY_CONFIG, hash: hashConfig(EMPTY_CONFIG), number: 0 },
});

export interface RevisionIndex {
  byNumber: ReadonlyMap<number, NetworkConfigRevision>;
  /** Newest revision per hash (for NodeConfigs written without the number label). */
  newestByHash: ReadonlyMap<string, NetworkConfigRevision>;
}

/** `revisions` newest first. */
export function indexRevisions(revisions: readonly NetworkConfigRevision[]): RevisionIndex {
  const byNumber = new Map<number, NetworkConfigRevision>();
  const newestByHash = new Map<string, NetworkConfigRevision>();
  for (const r of revisions) {
    byNumber.set(r.spec.number, r);
    if (!newestByHash.has(r.spec.hash)) newestByHash.set(r.spec.hash, r);
  }
  return { byNumber, newestByHash };
}

/** The last answer of assignedRevision: a verdict asks twice in a row (targetFor's caller, then classify). */
let last: { nc: NodeConfig; index: RevisionIndex; r: NetworkConfigRevision | undefined } | undefined;

/** The revision a NodeConfig was handed: by its number label; without one, the newest with its hash. */
export function assignedRevision(nc: NodeConfig, index: RevisionIndex): NetworkConfigRevision | undefined {
  if (last !== undefined && last.nc === nc && last.index === index) return last.r;
  const r = assignedOnce(nc, index);
  last = { nc, index, r };
  return r;
}

function assignedOnce(nc: NodeConfig, index: RevisionIndex): NetworkConfigRevision | undefined {
  const n = factsOf(nc).number;
  if (n !== undefined) {
    const r = index.byNumber.get(n);
    // A label naming a revision of other content (hand-edited): trust the content.
    if (r && r.spec.hash === nc.spec.revision) return r;
  }
  if (nc.spec.revision === emptyRevision().spec.hash && n === 0) return emptyRevision();
  return index.newestByHash.get(nc.spec.revision);
}

export const isCompleted = (r: NetworkConfigRevision): boolean => r.status?.completedAt !== undefined;

export interface DesiredChoice {
  /** The revision nodes are moved to (the empty config when nothing else may be). */
  desired: NetworkConfigRevision | undefined;
  /** Desired because the newest revision is invalid (known-good fallback). */
  fallback: boolean;
}

/**
 * The newest valid revision newer than every invalid one; else the fallback of the newest invalid
 * one (fallbackOf), else the empty config (only when some revision is invalid; with no revisions
 * at all nothing is desired). Valid revisions between the fallback and the invalid one did not run
 * well: they are passed over, and their nodes move to the fallback (forward, counted).
 */
export function chooseDesired(
  newestFirst: readonly NetworkConfigRevision[],
  invalid: ReadonlySet<string>,
): DesiredChoice {
  const newestInvalid = newestFirst.find((r) => invalid.has(r.metadata.name));
  const valid = newestFirst.filter((r) => !invalid.has(r.metadata.name));
  const ahead = valid.find((r) => !newestInvalid || r.spec.number > newestInvalid.spec.number);
  if (ahead || !newestInvalid) return { desired: ahead, fallback: false };
  return { desired: fallbackOf(newestInvalid, newestFirst, invalid), fallback: true };
}

/**
 * The revision desired when `bad` is the newest revision and invalid (issue 35): the newest valid
 * revision older than it that ran well (it completed, or some node ran it and none failed it;
 * @nodenet/api fallbackBefore), else the empty config (no input ever ran without the failed
 * change). The failed change's suspects are counted from the same revision (suspects.ts), so the
 * fallback takes back only the failed change. Never a newer revision.
 */
export function fallbackOf(
  bad: NetworkConfigRevision,
  newestFirst: readonly NetworkConfigRevision[],
  invalid: ReadonlySet<string>,
): NetworkConfigRevision {
  return fallbackBefore(bad, newestFirst, (r) => invalid.has(r.metadata.name)) ?? emptyRevision();
}

/**
 * Where a node leaving invalid revision `bad` goes back to, uncounted (a rollback): what its own
 * host ran before it took `bad` (RAN_BEFORE_ANNOTATION), when that revision is older and valid: a
 * rollback gives a node nothing it did not run. Else (unknown, or invalid too) the newest completed
 * valid revision older than `bad`, which every node of its time ran, else the empty config. From
 * there the node moves forward, counted, to the desired revision.
 */
export function rollbackTarget(
  nc: NodeConfig,
  bad: NetworkConfigRevision,
  newestFirst: readonly NetworkConfigRevision[],
  invalid: ReadonlySet<string>,
): NetworkConfigRevision {
  const valid = (r: NetworkConfigRevision): boolean =>
    !invalid.has(r.metadata.name) && r.spec.number < bad.spec.number;
  const ran = factsOf(nc).ranBefore;
  const own = ran !== undefined ? newestFirst.find((r) => r.spec.number === ran) : undefined;
  if (own && valid(own)) return own;
  return newestFirst.find((r) => valid(r) && isCompleted(r)) ?? emptyRevision();
}

/**
 * The newest revision the node's host ran before a move to `to` (RAN_BEFORE_ANNOTATION): what its
 * agent reports on the host (appliedRevisionNumber), else its assignment when it reported it
 * provisioned, else what the annotation said; a re-assignment of the same revision keeps it.
 */
export function ranBeforeMove(
  nc: NodeConfig | undefined,
  assigned: NetworkConfigRevision | undefined,
  to: NetworkConfigRevision,
): number | undefined {
  if (!nc) return undefined;
  const f = factsOf(nc);
  if (assigned && assigned.spec.number === to.spec.number) return f.ranBefore;
  const st = nc.status;
  if (st?.lastAppliedRevision !== undefined && st.appliedRevisionNumber !== undefined)
    return st.appliedRevisionNumber;
  if (st?.configStatus === 'provisioned' && f.about && assigned) return assigned.spec.number;
  return f.ranBefore;
}

/**
 * The revision a node is moved to: its rollback target when its assignment is invalid (it goes
 * back to what it ran first, even when another revision is desired, unless that is a retry of it or
 * the rollback would be to the empty config); the revision of a rollback or a restore that failed
 * (retried there, never a forward move meanwhile); the last completed revision for a node whose agent never
 * reported; else the desired revision.
 */
export function targetFor({
  nc,
  assigned,
  desired,
  newestFirst,
  invalid,
}: {
  nc: NodeConfig | undefined;
  /** The revision `nc` was handed (assignedRevision). */
  assigned: NetworkConfigRevision | undefined;
  desired: NetworkConfigRevision;
  newestFirst: readonly NetworkConfigRevision[];
  invalid: ReadonlySet<string>;
}): NetworkConfigRevision {
  // A node whose agent never reported (a new node, an agent still starting) first gets the last
  // completed revision (catch-up, never counted); it moves forward once its agent has answered.
  if (!nc || nc.status?.configStatus === undefined) {
    const known = newestFirst.find((r) => isCompleted(r) && !invalid.has(r.metadata.name));
    if (known && known.spec.number < desired.spec.number) return known;
  }
  if (!nc || !assigned || assigned.spec.number === desired.spec.number) return desired;
  if (invalid.has(assigned.metadata.name)) {
    // A node whose agent has not answered its assignment gets no forward move, a retry neither
    // (issue 35: its silence would fail the retry): only its rollback, which it finds when it answers.
    const answered = factsOf(nc).about;
    // A retry of the invalid revision is the new attempt a person asked for; the empty config is
    // the last resort only when nothing newer is desired.
    if (desired.spec.retryOf === assigned.metadata.name && answered) return desired;
    const back = rollbackTarget(nc, assigned, newestFirst, invalid);
    if (!answered) return back;
    return back.spec.number !== desired.spec.number && back.spec.number > 0 ? back : desired;
  }
  const f = factsOf(nc);
  const failed = f.about && nc.status?.configStatus === 'invalid';
  if (failed && (f.move === 'rollback' || nc.status?.failureCause === 'RestoreFailed')) return assigned;
  return desired;
}

/**
 * The kind of a move from `from` (the node's assignment; undefined: none) to `to`: leaving an
 * invalid revision for an older one is a rollback; anything else is forward, or catch-up once `to`
 * completed (a node on a passed-over revision going back to the fallback is held and limited like
 * any move). A re-assignment of the same revision keeps the move it had (`same`).
 */
export function moveKind(
  from: NetworkConfigRevision | undefined,
  to: NetworkConfigRevision,
  same: MoveKind | undefined,
  fromInvalid = false,
): MoveKind {
  if (from && fromInvalid && from.spec.number > to.spec.number) return 'rollback';
  if (from && from.spec.number === to.spec.number && same !== undefined) return same;
  return isCompleted(to) ? 'catch-up' : 'forward';
}
