/**
 * The RolloutPolicy resource's schema: the fleet-wide pause and the rollout knobs (see
 * docs/rollout.md), as a structural schema for the CRD and a static type for the code.
 */
import { Type, type Static } from '@sinclair/typebox';
import { DISRUPTION_CLASSES, REVISION_PHASES } from './schema.js';
import { Condition, StringEnum } from './common.js';
import { DURATION_PATTERN, LABEL_KEY_PATTERN } from '../grammar/patterns.js';
import { MAX_CONDITIONS, MAX_KNOB_LENGTH, MAX_LABEL_KEY_LENGTH, MAX_NAME_LENGTH } from '../grammar/limits.js';

const Duration = (description: string) =>
  Type.Optional(
    Type.String({
      pattern: DURATION_PATTERN,
      maxLength: MAX_KNOB_LENGTH,
      description,
    }),
  );

/**
 * The fleet-wide rollout policy (the object named `default`): a pause that holds every revision, and
 * the rollout knobs, which override the configurator's flags while set.
 */
const UPDATE_LIMIT_PATTERN = '^([1-9][0-9]*|[0-9]+(\\.[0-9]+)?%)$';

/**
 * How a disruptive revision rolls (issue 39): when the desired revision's `status.disruption.worst`
 * is `from` or worse (or not known yet), the update limit is at most `updateLimit` and waves are
 * barriers. It only ever slows a rollout down.
 */
export const DisruptiveRollout = Type.Object({
  from: Type.Optional(
    StringEnum(DISRUPTION_CLASSES, {
      description: 'The mildest disruption class that rolls this way (default session-reset).',
    }),
  ),
  updateLimit: Type.Optional(
    Type.String({
      pattern: UPDATE_LIMIT_PATTERN,
      maxLength: MAX_KNOB_LENGTH,
      description:
        'The most nodes in progress at once for such a revision: a count or a percentage (default 1).',
    }),
  ),
  waveBarrier: Type.Optional(
    Type.Boolean({
      description: 'Waves (spec.waveLabel) are barriers for such a revision (default true).',
    }),
  ),
});
export type DisruptiveRollout = Static<typeof DisruptiveRollout>;

export const RolloutPolicySpec = Type.Object({
  paused: Type.Optional(
    Type.Boolean({
      description:
        'No new forward moves, whatever the revision (a new revision waits too); rollbacks still run.',
    }),
  ),
  updateLimit: Type.Optional(
    Type.String({
      pattern: UPDATE_LIMIT_PATTERN,
      maxLength: MAX_KNOB_LENGTH,
      description: 'Nodes in progress at once: a count (3) or a percentage of the targets (25%).',
    }),
  ),
  maxFailures: Type.Optional(
    Type.Integer({ minimum: 0, description: 'Failed nodes tolerated before a revision is invalid.' }),
  ),
  preconfigTimeout: Duration('No report on an assignment within this long: the node failed.'),
  configTimeout: Duration('No progress reported for this long: the node failed.'),
  notReadyTimeout: Duration('NotReady this long after taking a revision: the node failed.'),
  minSuccessTime: Duration('A node that finished holds its slot this long (soak).'),
  waveLabel: Type.Optional(
    Type.String({
      pattern: LABEL_KEY_PATTERN,
      maxLength: MAX_LABEL_KEY_LENGTH,
      description: 'Nodes start in the order of this label (numbers, text, unlabelled).',
    }),
  ),
  waveBarrier: Type.Optional(
    Type.Boolean({
      description:
        'Waves are barriers: a wave starts only when every node of the previous waves is on the revision and soaked.',
    }),
  ),
  disruptive: Type.Optional(DisruptiveRollout),
});
export type RolloutPolicySpec = Static<typeof RolloutPolicySpec>;

export const RolloutPolicyStatus = Type.Object({
  /** Name and number of the desired revision. */
  desiredRevision: Type.Optional(Type.String({ maxLength: MAX_NAME_LENGTH })),
  desiredNumber: Type.Optional(Type.Integer({ minimum: 1 })),
  phase: Type.Optional(StringEnum(REVISION_PHASES)),
  total: Type.Optional(Type.Integer({ minimum: 0 })),
  ready: Type.Optional(Type.Integer({ minimum: 0 })),
  ongoing: Type.Optional(Type.Integer({ minimum: 0 })),
  failed: Type.Optional(Type.Integer({ minimum: 0 })),
  observedGeneration: Type.Optional(Type.Integer({ minimum: 0 })),
  conditions: Type.Optional(Type.Array(Condition, { maxItems: MAX_CONDITIONS })),
});
export type RolloutPolicyStatus = Static<typeof RolloutPolicyStatus>;
