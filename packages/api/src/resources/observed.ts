/**
 * `NodeConfig.status.observed`: what the node's FRR shows at run time (BGP sessions, VNIs and their
 * type, FRR version), written by the agent only when it changed. Nobody could see it from the API
 * before (issue #14); `kubectl get nc -o wide` shows the summaries.
 */
import { Kind, Type, type Static, type TUnsafe } from '@sinclair/typebox';
import {
  MAX_AGENT_MESSAGE_LENGTH,
  MAX_NODE_CONFIG_CONDITIONS,
  MAX_OBSERVED_ITEMS,
  MAX_OBSERVED_WORD_LENGTH,
  MAX_TIMESTAMP_LENGTH,
  MAX_WORD_LENGTH,
} from '../grammar/limits.js';
import {
  CONDITION_REASON_PATTERN,
  CONDITION_TYPE_PATTERN,
  OBSERVED_WORD_PATTERN,
} from '../grammar/patterns.js';
import { Condition } from './common.js';

/** A word the agent writes (limits.ts): bounded, and stored by JSON byte for byte. */
const Word = (description?: string) =>
  Type.String({
    maxLength: MAX_OBSERVED_WORD_LENGTH,
    pattern: OBSERVED_WORD_PATTERN,
    ...(description !== undefined ? { description } : {}),
  });

// Not `StringEnum` from schema.ts: schema.ts imports this module, so importing back would read it
// before it is initialised. Same schema form; common.ts registers the 'StringEnum' kind's check.
const VNI_TYPES = ['L2', 'L3'] as const;
const VniType: TUnsafe<(typeof VNI_TYPES)[number]> = Type.Unsafe({
  [Kind]: 'StringEnum',
  type: 'string',
  enum: [...VNI_TYPES],
});

export const ObservedBgpSession = Type.Object({
  vrf: Word("VRF of the BGP instance ('default' for the default instance)."),
  peer: Word('Neighbour address, or the interface of an unnumbered session.'),
  state: Word("FRR's state of the session: Established, Active, Idle, Connect, …"),
  since: Type.Optional(
    Type.String({
      format: 'date-time',
      pattern: OBSERVED_WORD_PATTERN,
      maxLength: MAX_TIMESTAMP_LENGTH,
      description:
        "When the session entered its state (FRR's uptime subtracted from the agent's clock at the read, to the second). Absent when it never was established.",
    }),
  ),
  remoteAs: Type.Optional(Type.Integer({ minimum: 0 })),
});
export type ObservedBgpSession = Static<typeof ObservedBgpSession>;

export const ObservedVni = Type.Object({
  vni: Type.Integer({ minimum: 1 }),
  type: VniType,
  vrf: Type.Optional(Word('Tenant VRF (L2: the VRF of its SVI, L3: its VRF).')),
  vxlanInterface: Type.Optional(Word()),
  state: Type.Optional(Word("L3 VNIs: FRR's state of the VRF's VNI (Up or Down).")),
});
export type ObservedVni = Static<typeof ObservedVni>;

export const ObservedState = Type.Object({
  frrVersion: Type.Optional(
    Type.String({ maxLength: MAX_WORD_LENGTH, description: 'FRR version, as `show version` names it.' }),
  ),
  bgpSummary: Type.Optional(
    Type.String({
      maxLength: MAX_WORD_LENGTH,
      description: 'Established / total BGP sessions, e.g. 3/4 (a printer column).',
    }),
  ),
  vniSummary: Type.Optional(
    Type.String({
      maxLength: MAX_WORD_LENGTH,
      description: 'VNIs by type, e.g. "2 L2, 1 L3" (a printer column).',
    }),
  ),
  bgpSessions: Type.Optional(Type.Array(ObservedBgpSession, { maxItems: MAX_OBSERVED_ITEMS })),
  vnis: Type.Optional(Type.Array(ObservedVni, { maxItems: MAX_OBSERVED_ITEMS })),
  error: Type.Optional(
    Type.String({
      maxLength: MAX_AGENT_MESSAGE_LENGTH,
      description: 'What could not be read from FRR (then the rest may be missing).',
    }),
  ),
});
export type ObservedState = Static<typeof ObservedState>;

/** A NodeConfig's conditions as the agent writes them (bounded: part of the size budget, issue #37). */
export const AgentConditions = Type.Array(
  Type.Composite([
    Type.Omit(Condition, ['type', 'reason', 'message']),
    Type.Object({
      type: Type.String({ maxLength: 64, pattern: CONDITION_TYPE_PATTERN }),
      reason: Type.String({ maxLength: 128, pattern: CONDITION_REASON_PATTERN }),
      message: Type.String({ maxLength: MAX_AGENT_MESSAGE_LENGTH }),
    }),
  ]),
  { maxItems: MAX_NODE_CONFIG_CONDITIONS },
);
