/**
 * How a disruptive revision rolls (RolloutPolicy `default` spec.disruptive, issue 39; pure): while
 * the desired revision's disruption class (`status.disruption.worst`, worked out once by the
 * configurator with the agent's host plan) is the knob's `from` or worse, the update limit is at
 * most the knob's and waves are barriers. A revision whose class is not known (not worked out yet,
 * or built before the summary existed) counts as disruptive: the knob only ever slows a rollout down,
 * so not knowing must not speed one up. Rollbacks toward the desired revision share its limit, as
 * they share the one budget (slots.ts).
 */
import {
  DISRUPTION_CLASSES,
  findCondition,
  type DisruptionClass,
  type NetworkConfigRevision,
  type NetworkConfigRevisionStatus,
} from '@nodenet/api';
import type { ConditionInput } from '@nodenet/api';
import { updateLimitFor, type Policy } from '../policy/policy.js';

/** What the knob does to this pass; undefined when the knob is not set. */
export interface DisruptiveCap {
  /** The desired revision is `from` or worse (or its class is not known): the cap is in force. */
  applies: boolean;
  /** The update limit in force (the normal one, or the knob's when lower). */
  limit: number;
  /** The normal update limit (spec.updateLimit or the flag). */
  normal: number;
  /** Waves are barriers for this revision (the knob's waveBarrier, or the policy's own). */
  waveBarrier: boolean;
  /** The wave label (spec.waveLabel or the flag): without one there are no waves to hold. */
  waveLabel?: string;
  /** The desired revision's class; undefined when not known. */
  worst?: DisruptionClass;
  from: DisruptionClass;
}

const rank = (c: DisruptionClass): number => DISRUPTION_CLASSES.indexOf(c);

/** Whether class `c` (undefined: not known) is `from` or worse. */
export const disruptiveFrom = (c: DisruptionClass | undefined, from: DisruptionClass): boolean =>
  c === undefined || rank(c) >= rank(from);

/** The limit and barrier for the desired revision, `movable` nodes, and the normal limit. */
export function disruptiveCap(
  policy: Policy,
  desired: NetworkConfigRevision,
  { movable, normal }: { movable: number; normal: number },
): DisruptiveCap | undefined {
  const d = policy.disruptive;
  if (!d) return undefined;
  const worst = desired.status?.disruption?.worst;
  const applies = disruptiveFrom(worst, d.from);
  const capped = updateLimitFor(d.updateLimit, movable);
  return {
    applies,
    limit: applies ? Math.min(normal, capped) : normal,
    normal,
    waveBarrier: policy.waveBarrier === true || (applies && d.waveBarrier),
    ...(worst !== undefined ? { worst } : {}),
    ...(policy.waveLabel ? { waveLabel: policy.waveLabel } : {}),
    from: d.from,
  };
}

export const DISRUPTIVE_CONDITION = 'Disruptive';

/**
 * The desired revision's `Disruptive` condition: why its update limit is lower (or that it is not).
 * Only while the knob is set, or to clear one left from when it was.
 */
export function disruptiveCondition(
  cap: DisruptiveCap | undefined,
  old: NetworkConfigRevisionStatus,
): ConditionInput | undefined {
  if (!cap)
    return findCondition(old.conditions, DISRUPTIVE_CONDITION, 'True')
      ? {
          type: DISRUPTIVE_CONDITION,
          status: 'False',
          reason: 'NoKnob',
          message: 'spec.disruptive is not set',
        }
      : undefined;
  const what = cap.worst ?? 'not known yet';
  if (!cap.applies)
    return {
      type: DISRUPTIVE_CONDITION,
      status: 'False',
      reason: 'MilderThanKnob',
      message: `disruption ${what} is milder than spec.disruptive.from=${cap.from}: update limit ${cap.limit}`,
    };
  const limit =
    cap.limit < cap.normal
      ? `update limit ${cap.limit} instead of ${cap.normal}`
      : `update limit ${cap.limit}`;
  return {
    type: DISRUPTIVE_CONDITION,
    status: 'True',
    reason: cap.worst === undefined ? 'DisruptionNotKnown' : 'DisruptiveChange',
    message: `disruption ${what} (RolloutPolicy default spec.disruptive.from=${cap.from}): ${limit}${cap.waveBarrier && cap.waveLabel ? `, waves of ${cap.waveLabel} are barriers` : ''}`,
  };
}
