/**
 * Revision identity (docs/rollout.md, "The model"): which revision a node is assigned, which
 * revision is desired (with the known-good fallback after an invalidation), and what kind of move
 * takes a node from one to the other. All by revision number, never by content hash: a revert or a
 * retry has the content of another revision and is still its own revision.
 */
import { hashConfig, type MoveKind, type NetworkConfigRevision, type NodeConfig } from '@nodenet/api';
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
 * The newest valid revision newer than every invalid one; else the fallback: the newest completed
 * valid revision older than the newest invalid one, else the empty config (only when some revision
 * is invalid; with no revisions at all nothing is desired). Valid
 * revisions between the fallback and the invalid one never completed: they are passed over, and
 * their nodes move back (older number: a rollback).
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
 * Where nodes leaving invalid revision `bad` go: the newest completed valid revision older than it
 * (known good), else the empty config (no revision ever completed). Never a newer revision, never one
 * that did not complete (it may carry the failed change: its suspects are counted from the last
 * completed revision, suspects.ts).
 */
export function fallbackOf(
  bad: NetworkConfigRevision,
  newestFirst: readonly NetworkConfigRevision[],
  invalid: ReadonlySet<string>,
): NetworkConfigRevision {
  const older = newestFirst.filter((r) => !invalid.has(r.metadata.name) && r.spec.number < bad.spec.number);
  return older.find(isCompleted) ?? emptyRevision();
}

/**
 * The revision a node is moved to: the fallback of its assignment when that is invalid (it goes
 * back to known-good first, even when a newer revision is desired, unless that is a retry of it or
 * the fallback would be the empty config); the revision of a rollback or a restore that failed
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
    // A retry of the invalid revision is the new attempt a person asked for; the empty config is
    // the last resort only when nothing newer is desired.
    if (desired.spec.retryOf === assigned.metadata.name) return desired;
    const back = fallbackOf(assigned, newestFirst, invalid);
    return back.spec.number < desired.spec.number && back.spec.number > 0 ? back : desired;
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
