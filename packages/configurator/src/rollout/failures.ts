/**
 * Failures are recorded once, on the revision they count against (`status.failedNodes` and the
 * count `status.failed`), and counted from that record (docs/rollout.md, "Failure"): a NodeConfig
 * that is collected, a node that recovers, or a revision that is superseded never erases one. What
 * is copied into a revision's status is bounded, so the invalidation write can never be refused for
 * its size whatever an agent wrote into its message.
 */
import { escapeControls, type FailedNode, type NetworkConfigRevision } from '@nodenet/api';
import { carriedChange, type Revisions } from './same-change.js';

/** Nodes listed in a revision's failedNodes / degradedNodes (the rest is counted). */
export const MAX_LISTED_NODES = 20;
/** Characters kept of the first line of a node's message. */
export const MAX_MESSAGE_CHARS = 300;

/** The first line of a message, cut to MAX_MESSAGE_CHARS with a marker saying how much was left out. */
export function boundedMessage(message: string): string {
  const nl = message.indexOf('\n');
  const raw = nl >= 0 ? message.slice(0, nl) : message;
  const dropped = message.length - raw.length;
  // An agent's text, copied: its controls escaped (issue #37).
  const first = escapeControls(raw);
  if (first.length <= MAX_MESSAGE_CHARS) return dropped > 0 ? `${first} (+${dropped} chars)` : first;
  return `${first.slice(0, MAX_MESSAGE_CHARS)}… (+${first.length + dropped - MAX_MESSAGE_CHARS} chars)`;
}

export const boundedNode = (f: FailedNode): FailedNode => ({ ...f, message: boundedMessage(f.message) });

export interface FailureRecord {
  /** Listed failures (at most `max`), the old ones first with their first `at`. */
  failedNodes: FailedNode[];
  /** Every counted failure, the listed ones and those beyond the list. */
  failed: number;
  /** Failures first seen in this pass. */
  fresh: FailedNode[];
}

/**
 * The record of `r` after this pass's failures (counted ones attributed to it). A node already
 * listed is not counted again; beyond the list, the count never shrinks and grows by the failures
 * this pass sees that are not listed.
 */
export function failureRecord(
  r: NetworkConfigRevision,
  now: readonly FailedNode[],
  max = MAX_LISTED_NODES,
): FailureRecord {
  const old = r.status?.failedNodes ?? [];
  const listed = new Set(old.map((f) => f.node));
  const overflowBefore = Math.max(0, (r.status?.failed ?? 0) - old.length);
  const fresh = now.filter((f) => !listed.has(f.node)).map(boundedNode);
  const room = Math.max(0, max - old.length);
  const failedNodes = [...old, ...fresh.slice(0, room)];
  const beyond = fresh.length - Math.min(room, fresh.length);
  return { failedNodes, failed: failedNodes.length + Math.max(overflowBefore, beyond), fresh };
}

/** `a: m; b: m; and N more`: a bounded summary of listed nodes for a condition message. */
export function nodeSummary(list: readonly FailedNode[], total: number, shown = 5): string {
  const text = list
    .slice(0, shown)
    .map((f) => `${f.node}: ${f.message}`)
    .join('; ');
  const more = total - Math.min(shown, list.length);
  return more > 0 ? `${text}; and ${more} more` : text;
}

/** A revision's failures as counted against --max-failures: its own and those it inherits. */
export interface CountedFailures {
  failed: number;
  /** Numbers of the superseded revisions whose failures it inherits (empty: its own only). */
  inheritedFrom: number[];
}

/**
 * A change that failed nodes on a revision that never completed is the same change when a newer
 * revision carries it (docs/rollout.md, "Failure"): those failures count against the newer one's
 * --max-failures too, or each unrelated merge would give the change a fresh budget and one more
 * node. Only revisions since the last completed one before `r` count (`since`), only valid ones
 * that never completed, and only when `r` carries one of their changes: the fields of a changed
 * input's entry they set, with the same values (same-change.ts; a follow-up edit of the input, e.g.
 * its nodeSelector widened, still carries it).
 * The nodes stay listed on the revision they failed: they were never handed `r`. A node listed on
 * both counts once.
 */
export function countedFailures(
  r: NetworkConfigRevision,
  older: readonly NetworkConfigRevision[],
  records: ReadonlyMap<string, FailureRecord>,
  among: Revisions = { all: older, isInvalid: () => false },
): CountedFailures {
  const own = records.get(r.metadata.name);
  const nodes = new Set((own?.failedNodes ?? []).map((f) => f.node));
  let overflow = Math.max(0, (own?.failed ?? 0) - (own?.failedNodes.length ?? 0));
  const inheritedFrom: number[] = [];
  for (const x of older) {
    const rec = records.get(x.metadata.name);
    if (!rec || rec.failed === 0 || carriedChange(r, x, among) === undefined) continue;
    inheritedFrom.push(x.spec.number);
    for (const f of rec.failedNodes) nodes.add(f.node);
    overflow += Math.max(0, rec.failed - rec.failedNodes.length);
  }
  return { failed: nodes.size + overflow, inheritedFrom };
}
