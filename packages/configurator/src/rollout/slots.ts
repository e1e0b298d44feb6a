/**
 * Slots: which nodes move now. Every assignment, a re-assignment too, happens inside a slot: the
 * node's own (a node busy with a revision no longer desired keeps its slot and is handed the desired
 * one at once), or a free one (update limit minus nodes in progress). Then the strict start order
 * the verdicts come in.
 *
 * Rollback (leaving an invalid revision) is never held: not by pause, not by soak (soaking nodes
 * hold no slot against a rollback), and nodes really running the invalid revision go first. A node
 * that already restored the desired revision on its own needs no slot: the move changes nothing on
 * its host.
 *
 * A node that took the revision as a forward move and then went NotReady may have been cut off by
 * it. Until it is back or --not-ready-timeout fails it, no further node takes the revision forward:
 * otherwise the rest of its wave finishes its soak, frees slots, and the change walks on through
 * the fleet while the cut-off node waits out its timeout.
 */
import { shortHash } from '@nodenet/api';
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
  /** The fleet-wide pause (RolloutPolicy `default`): holds whatever revision is desired. */
  fleetPaused?: boolean;
}

export interface SlotResult {
  assignments: AssignAction[];
  /** State of each target node after the assignments. */
  states: Map<string, NodeState>;
  inProgress: number;
  /** Forward moves are held because this node went NotReady after taking the revision forward. */
  heldBy?: string;
}

export function fillSlots({ verdicts, desired, limit, invalidHashes, fleetPaused }: SlotInput): SlotResult {
  const paused = desired.spec.paused === true || fleetPaused === true;
  const states = new Map<string, NodeState>();
  const assignments: AssignAction[] = [];
  let inProgress = 0;
  let soaking = 0;
  for (const v of verdicts) {
    states.set(v.name, v.state as NodeState);
    if (v.hostOnDesired) continue;
    if ((v.state && SLOT_STATES.has(v.state)) || v.busyElsewhere) inProgress++;
    if (v.state === 'soaking') soaking++;
  }
  const isRollback = (v: Verdict): boolean => v.nc !== undefined && invalidHashes.has(v.nc.spec.revision);
  /** The host runs the invalid revision (it took it, or is taking it): most urgent. */
  const runsInvalid = (v: Verdict): boolean =>
    v.nc?.status?.lastAppliedRevision !== undefined && invalidHashes.has(v.nc.status.lastAppliedRevision);
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
  const heldBy = verdicts.find((v) => v.state === 'notReady' && v.counts)?.name;
  // Pause and a suspect NotReady node stop forward moves only: a rollback away from an invalid
  // revision is never held.
  const may = (v: Verdict): boolean => (!paused && heldBy === undefined) || isRollback(v);

  for (const v of verdicts) {
    if (v.busyElsewhere && may(v))
      assign(
        v,
        `node was busy with ${shortHash(v.nc?.spec.revision ?? '')}, which is no longer desired; keeps its slot`,
      );
  }
  const waiting = verdicts.filter((v) => v.state === 'outdated' && !v.busyElsewhere && may(v));
  for (const v of waiting.filter((x) => x.hostOnDesired && isRollback(x)))
    assign(
      v,
      `rollback from invalid revision ${shortHash(v.nc?.spec.revision ?? '')}; host already restored it, no slot`,
    );
  const rollbacks = waiting.filter((v) => isRollback(v) && !v.hostOnDesired);
  const ordered = [
    ...rollbacks.filter(runsInvalid),
    ...rollbacks.filter((v) => !runsInvalid(v)),
    ...waiting.filter((v) => !isRollback(v)),
  ];
  // Soaking nodes hold their slots against forward moves only.
  let freeForRollback = Math.max(0, limit - (inProgress - soaking));
  let free = Math.max(0, limit - inProgress);
  for (const v of ordered) {
    const rollback = isRollback(v);
    if (rollback ? freeForRollback === 0 : free === 0) {
      if (rollback) continue;
      break;
    }
    freeForRollback = Math.max(0, freeForRollback - 1);
    free = Math.max(0, free - 1);
    inProgress++;
    const why = v.reassign
      ? v.reassign
      : !v.nc
        ? 'new node'
        : isRollback(v)
          ? `rollback from invalid revision ${shortHash(v.nc.spec.revision)}`
          : v.nc.spec.revision === desired.spec.hash
            ? 'node labels changed its spec'
            : `outdated (${shortHash(v.nc.spec.revision)})`;
    assign(v, `${why}; slot ${inProgress}/${limit}`);
  }
  return { assignments, states, inProgress, ...(heldBy !== undefined ? { heldBy } : {}) };
}
