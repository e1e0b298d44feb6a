/**
 * Failures are recorded once, on the revision they count against (`status.failedNodes` and the
 * count `status.failed`), and counted from that record (docs/rollout.md, "Failure"): a NodeConfig
 * that is collected, a node that recovers, or a revision that is superseded never erases one. What
 * is copied into a revision's status is bounded, so the invalidation write can never be refused for
 * its size whatever an agent wrote into its message.
 */
import type { FailedNode, NetworkConfigRevision } from '@nodenet/api';

/** Nodes listed in a revision's failedNodes / degradedNodes (the rest is counted). */
export const MAX_LISTED_NODES = 20;
/** Characters kept of the first line of a node's message. */
export const MAX_MESSAGE_CHARS = 300;

/** The first line of a message, cut to MAX_MESSAGE_CHARS with a marker saying how much was left out. */
export function boundedMessage(message: string): string {
  const nl = message.indexOf('\n');
  const first = nl >= 0 ? message.slice(0, nl) : message;
  const dropped = message.length - first.length;
  if (first.length <= MAX_MESSAGE_CHARS) return dropped > 0 ? `${first} (+${dropped} chars)` : first;
  return `${first.slice(0, MAX_MESSAGE_CHARS)}… (+${message.length - MAX_MESSAGE_CHARS} chars)`;
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
