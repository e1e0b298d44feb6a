/**
 * Invariant 6 (ledger.ts): the revision a node's host runs, as far as the ledger can tell. Pure.
 */
import type { NetworkConfigRevision } from '@nodenet/api';
import { contentOf } from './planner-adapter.js';

/**
 * The newest of the revisions the node's agent reported provisioned (`ran`, oldest first) that has
 * every input and value on the host; undefined: none. Not simply the last one it ran: an agent
 * restores the previous config when a change cuts it off after it reported provisioned.
 */
export function hostRevision(
  ran: readonly number[],
  host: Readonly<Record<string, number>>,
  byNumber: (n: number) => NetworkConfigRevision | undefined,
): number | undefined {
  return [...ran].reverse().find((n) => {
    const r = byNumber(n);
    const content = r ? contentOf(r) : undefined;
    return content !== undefined && Object.entries(host).every(([k, x]) => content[k] === x);
  });
}
