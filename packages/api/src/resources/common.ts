/**
 * Schema pieces every nodenet resource shares: the structural string enum, conditions, label
 * selectors, input status, and the bounded field kinds (names, timestamps, prefixes). schema.ts
 * builds the resources from them; the limits come from grammar/limits.ts.
 */
import { Kind, Type, TypeRegistry, type Static, type TString, type TUnsafe } from '@sinclair/typebox';
import { CIDR_PATTERN, LABEL_KEY_PATTERN, LABEL_VALUE_PATTERN } from '../grammar/patterns.js';
import * as L from '../grammar/limits.js';
import { cidrRules, labelKeyRules } from './cel-rules.js';

// TypeBox's own enums are `anyOf` of `const`, which a structural schema forbids; this kind emits
// `{type: string, enum: [...]}` and teaches TypeBox's checker what it means.
TypeRegistry.Set<{ enum: string[] }>(
  'StringEnum',
  (schema, value) => typeof value === 'string' && schema.enum.includes(value),
);

/** A string enum in the form a structural schema accepts. */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: Record<string, unknown> = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ [Kind]: 'StringEnum', type: 'string', enum: [...values], ...options });
}

/**
 * A prefix field: the character pattern, then (at `kubectl apply` time) the Kubernetes CEL CIDR
 * library's own parse and nodenet's rules for what the field may hold (cel-rules.ts).
 */
export const Cidr = (description: string, use: 'network' | 'gateway'): TString =>
  Type.String({
    pattern: CIDR_PATTERN,
    maxLength: L.MAX_CIDR_LENGTH,
    description,
    'x-kubernetes-validations': cidrRules(use),
  });
/** A name of another object (or of the object an entry came from). */
export const Name = (options: Record<string, unknown> = {}): TString =>
  Type.String({ maxLength: L.MAX_NAME_LENGTH, ...options });
export const Timestamp = (): TString =>
  Type.String({ format: 'date-time', maxLength: L.MAX_TIMESTAMP_LENGTH });

export const Condition = Type.Object({
  type: Type.String({
    maxLength: L.MAX_CONDITION_TYPE_LENGTH,
    description: 'Condition type, e.g. Accepted, Progressing, Complete, Invalid.',
  }),
  status: StringEnum(['True', 'False', 'Unknown'] as const),
  reason: Type.String({
    maxLength: L.MAX_CONDITION_REASON_LENGTH,
    description: 'CamelCase reason for the last transition.',
  }),
  message: Type.String({ maxLength: L.MAX_MESSAGE_LENGTH, description: 'Human-readable details.' }),
  lastTransitionTime: Timestamp(),
  observedGeneration: Type.Optional(Type.Integer({ minimum: 0 })),
});
export type Condition = Static<typeof Condition>;

export const LabelSelectorRequirement = Type.Object({
  key: Type.String({
    minLength: 1,
    maxLength: L.MAX_LABEL_KEY_LENGTH,
    pattern: LABEL_KEY_PATTERN,
    description: 'Label key: [prefix/]name, as Kubernetes labels have them.',
    'x-kubernetes-validations': labelKeyRules('self'),
  }),
  // Not an enum on purpose: an unknown operator is reported by semantic validation with the
  // field path and the list of valid operators, which is clearer than a bare enum error.
  operator: Type.String({ maxLength: 16, description: 'In, NotIn, Exists or DoesNotExist.' }),
  values: Type.Optional(
    Type.Array(Type.String({ maxLength: L.MAX_LABEL_VALUE_LENGTH, pattern: LABEL_VALUE_PATTERN }), {
      maxItems: L.MAX_MATCH_VALUES,
    }),
  ),
});
export type LabelSelectorRequirement = Static<typeof LabelSelectorRequirement>;

export const LabelSelector = Type.Object(
  {
    matchLabels: Type.Optional(
      Type.Record(
        Type.String(),
        Type.String({ maxLength: L.MAX_LABEL_VALUE_LENGTH, pattern: LABEL_VALUE_PATTERN }),
        // Keys of a map have no schema (and so no length bound) in a CRD: a CEL rule over them would
        // exceed kube-apiserver's estimated cost limit, so their syntax is the configurator's check.
        { maxProperties: L.MAX_MATCH_LABELS },
      ),
    ),
    matchExpressions: Type.Optional(
      Type.Array(LabelSelectorRequirement, { maxItems: L.MAX_MATCH_EXPRESSIONS }),
    ),
  },
  { description: 'Kubernetes label selector; an empty selector matches every node.' },
);
export type LabelSelector = Static<typeof LabelSelector>;

export const InputStatus = Type.Object({
  conditions: Type.Optional(Type.Array(Condition, { maxItems: L.MAX_CONDITIONS })),
  observedGeneration: Type.Optional(Type.Integer({ minimum: 0 })),
  /** The revision that carries this input's generation `revisionGeneration` (its outcome is Applied). */
  revision: Type.Optional(Name()),
  revisionGeneration: Type.Optional(Type.Integer({ minimum: 0 })),
});
export type InputStatus = Static<typeof InputStatus>;
