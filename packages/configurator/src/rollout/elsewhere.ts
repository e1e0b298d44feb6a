/**
 * The verdict of a node whose assignment is not the desired revision, or not with the spec its
 * labels give (classify.ts): its failures recorded against the revision it was assigned, soaking or
 * busy there (holding its slot), unavailable, or outdated (waiting for a slot).
 */
import type { NodeConfig } from '@nodenet/api';
import { everReported, type Progress } from './progress.js';
import {
  countedMove,
  hostRuns,
  inFlightUnselected,
  type Base,
  type Facts,
  type NodeReading,
  type Verdict,
} from './verdict.js';

/** What the decisions about a node elsewhere share. */
interface Elsewhere {
  nc: NodeConfig;
  /** Took its assignment forward, onto a revision that has not completed. */
  forward: boolean;
  /** Its assignment is an invalid revision. */
  onInvalid: boolean;
  /** The host already runs the desired revision (see Verdict.hostOnDesired). */
  hostOnDesired: { hostOnDesired?: true };
}

export function elsewhereVerdict(b: Base, p: Progress, f: Facts, l: NodeReading): Verdict {
  const { ctx } = l;
  const nc = b.nc as NodeConfig;
  const e: Elsewhere = {
    nc,
    forward: countedMove(f.move, b.assigned),
    onInvalid: b.assigned !== undefined && ctx.invalid.has(b.assigned.metadata.name),
    hostOnDesired:
      hostRuns(nc, ctx.desired.spec.hash) && nc.spec.revision !== ctx.desired.spec.hash
        ? { hostOnDesired: true }
        : {},
  };
  if (p.kind === 'invalid') {
    const v = faultOnAssigned(b, p, e, l);
    if (v) return v;
  }
  if (
    p.kind === 'provisioned' &&
    e.forward &&
    !e.onInvalid &&
    l.soakEnd !== undefined &&
    ctx.mono < l.soakEnd &&
    l.down === undefined
  )
    // Soaking on a superseded revision: keeps its slot until the soak shows it was not cut off.
    return { ...b, state: 'soaking', deadline: l.soakEnd };
  if (!l.selected)
    // Relabelled out of the selector while busy with a revision it took forward: keeps its slot.
    return inFlightUnselected(b, p, f, l) && (p.kind === 'working' || p.kind === 'waiting')
      ? { ...b, state: 'pending', deadline: p.deadline }
      : { ...b, state: undefined };
  if (l.down !== undefined) return l.unavailable(l.down);
  if (f.misconfigured !== undefined)
    return e.onInvalid ? { ...b, state: 'outdated', ...e.hostOnDesired } : l.unavailable(f.misconfigured);
  if (p.kind === 'timedOut') return silentAgent(b, p, e, l);
  if (l.starting !== undefined) return l.unavailable(l.starting);
  if (p.kind === 'working' || p.kind === 'waiting') return busyElsewhere(b, p, f, e);
  return { ...b, state: 'outdated', ...e.hostOnDesired };
}

/**
 * Failures on the assigned revision are recorded there, whatever is desired now; a failed restore
 * leaves the node unavailable. Undefined: the report decides nothing here (an interruption).
 */
function faultOnAssigned(
  b: Base,
  p: Extract<Progress, { kind: 'invalid' }>,
  e: Elsewhere,
  l: NodeReading,
): Verdict | undefined {
  if (p.cause !== 'Interrupted' && e.forward) {
    const failed = l.fail(p.cause === 'RestoreFailed' ? `restore failed: ${p.message}` : p.message);
    if (!l.selected || l.down !== undefined) return failed;
    // A failed restore leaves the host in no known state: no forward move until it answers anew
    // (a rollback off an invalid revision is always made).
    if (p.cause === 'RestoreFailed' && !e.onInvalid)
      return {
        ...failed,
        state: 'unavailable',
        unavailable: `unavailable: ${failed.failure?.message ?? ''}`,
      };
    return { ...failed, state: 'outdated', ...e.hostOnDesired };
  }
  if (p.cause === 'RestoreFailed' && !e.onInvalid && l.selected && l.down === undefined)
    return l.unavailable(`restore failed on revision ${b.assigned?.spec.number ?? '?'}: ${p.message}`);
  return undefined;
}

/** Its agent stopped answering its assignment. */
function silentAgent(
  b: Base,
  p: Extract<Progress, { kind: 'timedOut' }>,
  e: Elsewhere,
  l: NodeReading,
): Verdict {
  if (!everReported(e.nc)) return l.unavailable(`agent never reported (${p.message})`);
  // A failure of that revision if it took it forward, and unavailable for the next one either way.
  const u = l.unavailable(`agent not answering (${p.message})`);
  // Off an invalid revision the rollback is made all the same (never held): its agent finds it
  // when it answers again.
  if (e.forward && e.onInvalid) return { ...l.fail(p.message), state: 'outdated', ...e.hostOnDesired };
  return e.forward ? { ...l.fail(p.message), ...u, state: 'unavailable' } : u;
}

/**
 * Busy with a revision no longer desired: keeps its slot; handed the desired one under the limit
 * once its agent has answered the assignment (an unanswered one is not known to be available: it
 * answers or times out first). A catch-up or a rollback in progress finishes first (it holds a slot
 * like any move).
 */
function busyElsewhere(
  b: Base,
  p: Extract<Progress, { kind: 'working' | 'waiting' }>,
  f: Facts,
  e: Elsewhere,
): Verdict {
  return e.forward
    ? {
        ...b,
        state: 'pending',
        ...(p.kind === 'working' ? { busyElsewhere: true } : {}),
        deadline: p.deadline,
      }
    : {
        ...b,
        state: 'pending',
        deadline: p.deadline,
        ...(f.move === 'unchanged' ? { hostOnDesired: true } : {}),
      };
}
