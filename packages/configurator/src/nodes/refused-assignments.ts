/**
 * Assignment writes the API server refuses (issue #37). A NodeConfig the API server will not take
 * (422 for its size, 403 for a missing right, `500 etcdserver: request is too large`, a 5xx that
 * persists) used to keep its node in a slot for ever: every pass handed it the revision again, the
 * write failed, and with a limit of one no healthy node ever moved. After ASSIGN_ATTEMPTS refused
 * writes in a row the node is **refused**: the planner reads it unavailable (rollout/classify.ts),
 * so it holds no slot, is listed in the revision's degradedNodes with the API's error, and counts
 * against no revision (the change did not fail there: it never reached the node). It is tried
 * again after a backoff (REFUSED_RETRY_MS doubling to REFUSED_RETRY_MAX_MS), one write at a time,
 * and a write that succeeds ends the refusal. Pure bookkeeping on the caller's monotonic clock.
 */
import { ASSIGNMENT_REFUSED } from '@nodenet/api';
import { KubeApiError } from '@nodenet/kube';
import { boundedMessage } from '../rollout/index.js';
import type { NodeInfo } from '../rollout/index.js';

/** Refused writes in a row before the node is taken out of the rollout. */
export const ASSIGN_ATTEMPTS = 3;
/** First wait before a refused node is tried again; doubled per refusal up to the maximum. */
export const REFUSED_RETRY_MS = 30_000;
export const REFUSED_RETRY_MAX_MS = 600_000;

/**
 * The text of an API error that refuses this node's write, or undefined for an error that says
 * nothing about the node: a conflict (a stale cache, looked at again), a NotFound (the object went
 * away), throttling (429) or no answer at all (every write fails then, not this node's).
 */
export function refusalText(err: unknown): string | undefined {
  if (!(err instanceof KubeApiError)) return undefined;
  const code = err.statusCode;
  if (code === 404 || code === 409 || code === 429 || code < 400) return undefined;
  const what = `${code}${err.reason ? ` ${err.reason}` : ''}`;
  return boundedMessage(`${ASSIGNMENT_REFUSED} (${what}): ${err.serverMessage}`);
}

interface Record {
  /** Refused writes in a row. */
  failures: number;
  /** Times the node was taken out (the backoff doubles with each). */
  refusals: number;
  message: string;
  /** Taken out until then (monotonic ms). */
  until?: number;
}

export class RefusedAssignments {
  private readonly records = new Map<string, Record>();

  /**
   * An assignment write of `node` failed. Returns the message when this failure takes the node out
   * (for an Event), else undefined.
   */
  failed(node: string, err: unknown, mono: number): string | undefined {
    const message = refusalText(err);
    if (message === undefined) return undefined;
    const r = this.records.get(node) ?? { failures: 0, refusals: 0, message };
    r.failures++;
    r.message = message;
    this.records.set(node, r);
    if (r.failures < ASSIGN_ATTEMPTS) return undefined;
    r.until = mono + Math.min(REFUSED_RETRY_MS * 2 ** r.refusals, REFUSED_RETRY_MAX_MS);
    r.refusals++;
    return message;
  }

  /** An assignment write of `node` succeeded: whatever refused it is over. */
  succeeded(node: string): void {
    this.records.delete(node);
  }

  /** The nodes taken out at `mono`, with the API's error. */
  refused(mono: number): Map<string, string> {
    const out = new Map<string, string>();
    for (const [node, r] of this.records)
      if (r.until !== undefined && mono < r.until) out.set(node, r.message);
    return out;
  }

  /** In how long the next refused node is due to be tried again (undefined: none is out). */
  nextRetryInMs(mono: number): number | undefined {
    let next: number | undefined;
    for (const r of this.records.values())
      if (r.until !== undefined && r.until > mono) next = Math.min(next ?? Infinity, r.until - mono);
    return next;
  }

  /** A new leader starts afresh (its own writes decide). */
  reset(): void {
    this.records.clear();
  }
}

/** The nodes with the refusals marked on them (a new NodeInfo for each refused node only). */
export function withRefusals(nodes: NodeInfo[], refused: ReadonlyMap<string, string>): NodeInfo[] {
  if (refused.size === 0) return nodes;
  return nodes.map((n) => {
    const why = refused.get(n.name);
    return why === undefined ? n : { ...n, assignRefused: why };
  });
}
