/**
 * Slots: which nodes move now. Every assignment, a re-assignment too, happens inside a slot: the
 * node's own (a node busy with a revision no longer desired keeps its slot and is handed the desired
 * one at once), or a free one (update limit minus nodes in progress). Nodes leaving an invalid
 * revision go first; then the strict start order the verdicts come in.
 */
import type { MoveKind, NetworkConfigRevision } from '@nodenet/api';
import type { Verdict } from './classify.js';
import { SLOT_STATES, type AssignAction, type NodeState } from './types.js';

export interface SlotInput {
  /** Target nodes' verdicts in start order. */
  verdicts: readonly Verdict[];
  desired: NetworkConfigRevision;
  limit: number;
  /** Hashes of revisions marked invalid. */
  invalidHashes: ReadonlySet<string>;
}

export interface SlotResult {
  assignments: AssignAction[];
  /** State of each target node after the assignments. */
  states: Map<string, NodeState>;
  inProgress: number;
}

const short = (h: string): string => h.slice(0, 10);

export function fillSlots({ verdicts, desired, limit, invalidHashes }: SlotInput): SlotResult {
  const paused = desired.spec.paused === true;
  const states = new Map<string, NodeState>();
  const assignments: AssignAction[] = [];
  let inProgress = 0;
  for (const v of verdicts) {
    states.set(v.name, v.state as NodeState);
    if ((v.state && SLOT_STATES.has(v.state)) || v.busyElsewhere) inProgress++;
  }
  const isRollback = (v: Verdict): boolean => v.nc !== undefined && invalidHashes.has(v.nc.spec.revision);
  const assign = (v: Verdict, reason: string): void => {
    const from = v.nc?.spec.revision;
    const rollback = isRollback(v);
    const move: MoveKind = rollback ? 'rollback' : desired.status?.completedAt ? 'catch-up' : 'forward';
    assignments.push({
      type: 'assign',
      node: v.name,
      revision: desired.metadata.name,
      hash: desired.spec.hash,
      number: desired.spec.number,
      ...(from !== undefined ? { from } : {}),
      rollback,
      move,
      reason,
    });
    states.set(v.name, 'pending');
  };
  // Pause stops forward moves only: a rollback away from an invalid revision is never held.
  const may = (v: Verdict): boolean => !paused || isRollback(v);

  for (const v of verdicts) {
    if (v.busyElsewhere && may(v))
      assign(
        v,
        `node was busy with ${short(v.nc?.spec.revision ?? '')}, which is no longer desired; keeps its slot`,
      );
  }
  const waiting = verdicts.filter((v) => v.state === 'outdated' && !v.busyElsewhere && may(v));
  const ordered = [...waiting.filter(isRollback), ...waiting.filter((v) => !isRollback(v))];
  let free = Math.max(0, limit - inProgress);
  for (const v of ordered) {
    if (free === 0) break;
    free--;
    inProgress++;
    const why = v.reassign
      ? v.reassign
      : !v.nc
        ? 'new node'
        : isRollback(v)
          ? `rollback from invalid revision ${short(v.nc.spec.revision)}`
          : v.nc.spec.revision === desired.spec.hash
            ? 'node labels changed its spec'
            : `outdated (${short(v.nc.spec.revision)})`;
    assign(v, `${why}; slot ${limit - free}/${limit}`);
  }
  return { assignments, states, inProgress };
}
