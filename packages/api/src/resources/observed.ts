/**
 * `NodeConfig.status.observed`: what the node's FRR shows at run time (BGP sessions, VNIs and their
 * type, FRR version), written by the agent only when it changed. Nobody could see it from the API
 * before (issue #14); `kubectl get nc -o wide` shows the summaries.
 */
import { Kind, Type, type Static, type TUnsafe } from '@sinclair/typebox';
import {
  MAX_MESSAGE_LENGTH,
  MAX_NAME_LENGTH,
  MAX_OBSERVED_ITEMS,
  MAX_TIMESTAMP_LENGTH,
  MAX_WORD_LENGTH,
} from '../grammar/limits.js';

// Not `StringEnum` from schema.ts: schema.ts imports this module, so importing back would read it
// before it is initialised. Same schema form; common.ts registers the 'StringEnum' kind's check.
const VNI_TYPES = ['L2', 'L3'] as const;
const VniType: TUnsafe<(typeof VNI_TYPES)[number]> = Type.Unsafe({
  [Kind]: 'StringEnum',
  type: 'string',
  enum: [...VNI_TYPES],
});

export const ObservedBgpSession = Type.Object({
  vrf: Type.String({
    maxLength: MAX_NAME_LENGTH,
    description: "VRF of the BGP instance ('default' for the default instance).",
  }),
  peer: Type.String({
    maxLength: MAX_WORD_LENGTH,
    description: 'Neighbour address, or the interface of an unnumbered session.',
  }),
  state: Type.String({
    maxLength: MAX_WORD_LENGTH,
    description: "FRR's state of the session: Established, Active, Idle, Connect, …",
  }),
  since: Type.Optional(
    Type.String({
      format: 'date-time',
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
  vrf: Type.Optional(
    Type.String({
      maxLength: MAX_NAME_LENGTH,
      description: 'Tenant VRF (L2: the VRF of its SVI, L3: its VRF).',
    }),
  ),
  vxlanInterface: Type.Optional(Type.String({ maxLength: MAX_WORD_LENGTH })),
  state: Type.Optional(
    Type.String({
      maxLength: MAX_WORD_LENGTH,
      description: "L3 VNIs: FRR's state of the VRF's VNI (Up or Down).",
    }),
  ),
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
      maxLength: MAX_MESSAGE_LENGTH,
      description: 'What could not be read from FRR (then the rest may be missing).',
    }),
  ),
});
export type ObservedState = Static<typeof ObservedState>;
