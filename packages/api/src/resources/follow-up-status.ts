/**
 * Status fields of an invalid revision that record its suspects' follow-up writes (issue 35,
 * held-back/follow-ups.ts): set once, when the revision is invalidated.
 */
import { Type } from '@sinclair/typebox';
import * as L from '../grammar/limits.js';

export const FollowUpStatus = {
  /**
   * The generation (`Kind/name@generation`) of each suspect's input at the invalidation, where a
   * write had come after the suspect's own generation. Such a follow-up was made while the change
   * was in flight: it stays held back while its entry still carries the change. A later generation
   * is a new change.
   */
  followUpGenerations: Type.Optional(
    Type.Array(Type.String({ maxLength: L.MAX_INPUT_REF_LENGTH }), {
      maxItems: L.MAX_CHANGED_INPUTS,
      description:
        'Suspect inputs (Kind/name@generation) written again while the change was in flight, as they were at the invalidation: held back while they still carry the change.',
    }),
  ),
  /** Follow-up generations not listed (the list is kept within 32 KiB). */
  followUpGenerationsOmitted: Type.Optional(
    Type.Integer({
      minimum: 1,
      description:
        'Follow-up generations not listed in followUpGenerations (kept within 32 KiB): with it, any generation of a suspect input that still carries the change is held back.',
    }),
  ),
};
