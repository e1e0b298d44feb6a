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

/**
 * What a node leaving invalid revision `leaving` may lose (invariant 6): what the revision it ran
 * before that one (still valid) lacks. Rolled back into `leaving` from a newer revision that failed
 * too, the planner knows only that newer one (RAN_BEFORE_ANNOTATION, one step of memory), so the
 * node goes back to the newest completed valid revision, which every node ran (configurator
 * identity.ts rollbackTarget); then forward, counted (README "Open", seed 23 of issue 35's extras).
 */
export function leavingBase(
  ran: readonly number[],
  leaving: NetworkConfigRevision,
  all: readonly NetworkConfigRevision[],
  isInvalid: (x: NetworkConfigRevision) => boolean,
): { base: NetworkConfigRevision | undefined; what: string } {
  const n = leaving.spec.number;
  const before = ran[ran.lastIndexOf(n) - 1];
  if (before !== undefined && before > n) {
    const base = all.find((x) => x.spec.number < n && !isInvalid(x) && x.status?.completedAt !== undefined);
    return {
      base,
      what: `leaving invalid rev ${n}, rolled back into from rev ${before}; rev ${base?.spec.number} completed`,
    };
  }
  const own = [...ran].reverse().find((m) => m < n && all.some((x) => x.spec.number === m && !isInvalid(x)));
  return {
    base: all.find((x) => x.spec.number === own),
    what: `leaving invalid rev ${n}; it ran rev ${own} before`,
  };
}
