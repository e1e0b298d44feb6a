/**
 * Each input's status after a build (pure): `Accepted` (this generation's own problems), the
 * revision carrying its current generation (for those not carried yet; none while blocked),
 * `Applied` (outcome.ts) and `Selected`. Only inputs whose status changes are listed.
 */
import {
  canonicalEqual,
  findCondition,
  setConditions,
  type HeldSuspect,
  type InputObject,
  type InputStatus,
  type NetworkConfigRevision,
  type Problem,
} from '@nodenet/api';
import {
  appliedCondition,
  carried,
  selectedCondition,
  type AppliedCondition,
  type BuildOutcome,
} from './outcome.js';

export interface InputStatusUpdate {
  object: InputObject;
  status: InputStatus;
  /** The Accepted condition changed to False (or its message changed): worth a Warning Event. */
  newlyRejected?: string;
  /** The Selected condition changed to False: its message, worth a Warning Event. */
  newlySelectsNoNode?: string;
}

export interface StatusContext {
  /** No revision is built (an input in force no longer validates). */
  blocked: boolean;
  /** Problems of each refused input, by `Kind/name`. */
  refused: ReadonlyMap<string, Problem[]>;
  /** The revision that carries the current generations, if one is created or found. */
  carrier: string | undefined;
  revisions: readonly NetworkConfigRevision[];
  nowText: string;
  suspects: ReadonlyMap<string, HeldSuspect>;
  /** Labels of the managed nodes: each input with a node selector gets `Selected`; absent, it stays. */
  nodeLabels: readonly Readonly<Record<string, string>>[] | undefined;
  /** The API's error when the revision could not be created. */
  notCreated?: string;
}

/** At most this many problems, and this many characters, in an `Accepted` message. */
const MAX_PROBLEMS_SHOWN = 5;
const MAX_MESSAGE = 2000;

const keyOf = (o: InputObject): string => `${o.kind}/${o.metadata.name}`;

export function inputStatuses(objects: readonly InputObject[], ctx: StatusContext): InputStatusUpdate[] {
  const out: InputStatusUpdate[] = [];
  // What the build decided, for the inputs it accepted and for those it refused: two objects for
  // thousands of inputs.
  const notCreated = ctx.notCreated !== undefined ? { notCreated: ctx.notCreated } : {};
  const outcomes = {
    accepted: { accepted: true, blocked: ctx.blocked, ...notCreated },
    refused: { accepted: false, blocked: ctx.blocked, ...notCreated },
  };
  for (const obj of objects) {
    const update = statusUpdate(obj, ctx, outcomes);
    if (update) out.push(update);
  }
  return out;
}

const NO_PROBLEMS: readonly Problem[] = [];

/** The input's next status, or undefined when it stays as it is. */
function statusUpdate(
  obj: InputObject,
  ctx: StatusContext,
  outcomes: Record<'accepted' | 'refused', BuildOutcome>,
): InputStatusUpdate | undefined {
  // Most builds refuse nothing and hold back nothing: no key to build then.
  const key = ctx.refused.size > 0 || ctx.suspects.size > 0 ? keyOf(obj) : '';
  const mine = ctx.refused.get(key) ?? NO_PROBLEMS;
  const generation = obj.metadata.generation;
  const accepted = acceptedCondition(mine, ctx.blocked);
  const old = obj.status ?? {};
  const suspect = ctx.suspects.get(key);
  const ref = reference(obj, mine.length === 0, suspect, ctx);
  const withRef: InputStatus = ref ? { ...old, ...ref } : old;
  const outcome = appliedCondition(
    obj,
    withRef,
    mine.length === 0 ? outcomes.accepted : outcomes.refused,
    ctx.revisions,
  );
  const applied = suspect
    ? {
        ...outcome,
        message: `${outcome.message}; held back from newer revisions until this input changes or revision ${suspect.revision.metadata.name} is retried`,
      }
    : outcome;
  const selected = ctx.nodeLabels && selectedCondition(obj, ctx.nodeLabels);
  const acceptedNow: AppliedCondition =
    generation !== undefined
      ? {
          type: accepted.type,
          status: accepted.status,
          reason: accepted.reason,
          message: accepted.message,
          observedGeneration: generation,
        }
      : accepted;
  const conditions = setConditions(
    // Selected only while the input has a node selector (and the nodes are known).
    ctx.nodeLabels && !selected ? old.conditions?.filter((c) => c.type !== 'Selected') : old.conditions,
    selected ? [acceptedNow, applied, selected] : [acceptedNow, applied],
    ctx.nowText,
  );
  const next = obj.status === undefined ? firstStatus(ref, conditions) : { ...withRef, conditions };
  if (generation !== undefined) next.observedGeneration = generation;
  if (canonicalEqual(next, old)) return undefined;
  if (accepted.status !== 'False' && selected?.status !== 'False') return { object: obj, status: next };
  return { object: obj, status: next, ...newlyFalse(old, accepted, selected) };
}

/**
 * The status of an input that has none yet (each input of a first build, thousands): written as a
 * literal (as the Accepted condition above): a spread copy that then gained a member made up two
 * thirds of the status step (2,500 inputs: ~6.5 -> ~1.8 ms CPU).
 */
const firstStatus = (
  ref: Pick<InputStatus, 'revision' | 'revisionGeneration'> | undefined,
  conditions: InputStatus['conditions'],
): InputStatus =>
  ref?.revision !== undefined && ref.revisionGeneration !== undefined
    ? { revision: ref.revision, revisionGeneration: ref.revisionGeneration, conditions }
    : { ...ref, conditions };

const VALID: AppliedCondition = { type: 'Accepted', status: 'True', reason: 'Valid', message: 'valid' };
const VALID_BUT_BLOCKED: AppliedCondition = {
  type: 'Accepted',
  status: 'True',
  reason: 'ValidButBlocked',
  message: 'valid, but no new revision while an input in force no longer validates',
};

function acceptedCondition(mine: readonly Problem[], blocked: boolean): AppliedCondition {
  if (mine.length === 0) return blocked ? VALID_BUT_BLOCKED : VALID;
  const shown = mine
    .slice(0, MAX_PROBLEMS_SHOWN)
    .map((p) => p.message)
    .join('; ');
  const more = mine.length > MAX_PROBLEMS_SHOWN ? `; and ${mine.length - MAX_PROBLEMS_SHOWN} more` : '';
  return { type: 'Accepted', status: 'False', reason: 'Invalid', message: bounded(shown + more) };
}

/**
 * Which revision the status names: the one a suspect broke or the new carrier; undefined when it
 * keeps the one it named.
 */
function reference(
  obj: InputObject,
  accepted: boolean,
  suspect: HeldSuspect | undefined,
  ctx: StatusContext,
): Pick<InputStatus, 'revision' | 'revisionGeneration'> | undefined {
  const generation = obj.metadata.generation ?? 0;
  // Held back: it reads off the revision it broke (Applied=False, RolledBack).
  if (suspect) return { revision: suspect.revision.metadata.name, revisionGeneration: generation };
  if (ctx.carrier !== undefined && accepted && !carried(obj, ctx.revisions))
    return { revision: ctx.carrier, revisionGeneration: generation };
  return undefined;
}

/** The messages worth a Warning Event: Accepted newly False (or reworded), Selected newly False. */
function newlyFalse(
  old: InputStatus,
  accepted: AppliedCondition,
  selected: AppliedCondition | undefined,
): Pick<InputStatusUpdate, 'newlyRejected' | 'newlySelectsNoNode'> {
  const prevAccepted = findCondition(old.conditions, 'Accepted');
  const newlyRejected =
    accepted.status === 'False' &&
    (prevAccepted?.status !== 'False' || prevAccepted.message !== accepted.message);
  const newlySelectsNoNode =
    selected?.status === 'False' && findCondition(old.conditions, 'Selected')?.status !== 'False';
  return {
    ...(newlyRejected && accepted.message ? { newlyRejected: accepted.message } : {}),
    ...(newlySelectsNoNode && selected.message ? { newlySelectsNoNode: selected.message } : {}),
  };
}

const bounded = (text: string): string =>
  text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE - 1)}…` : text;
