/**
 * The first rule every object passes: its spec against the schema the CRD carries (so this also
 * catches objects written around the API server's checks), with reasons worded for people.
 */
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/value';
import type { ResourceKind } from '../names/kubernetes.js';
import { MAX_IFNAME_LENGTH, MAX_VRF_NAME_LENGTH } from '../names/kubernetes.js';
import {
  CIDR_PATTERN,
  COMMUNITY_PATTERN,
  LABEL_KEY_PATTERN,
  LABEL_VALUE_PATTERN,
  labelKeyProblem,
  labelValueProblem,
  MAC_PATTERN,
  PEER_ADDRESS_PATTERN,
  ROUTE_TARGET_PATTERN,
  VRF_NAME_PATTERN,
} from '../grammar/patterns.js';
import { deviceNames } from '../names/devices.js';
import { problem, type Problem } from './problem.js';

/** Reports every schema fault of `obj` into `out`; true when the spec is well-formed. */
export function checkSchema(
  obj: { metadata: { name: string }; spec: unknown },
  kind: ResourceKind,
  schema: TSchema,
  out: Problem[],
): boolean {
  const name = obj.metadata.name;
  if (obj.spec === null || typeof obj.spec !== 'object') {
    out.push(problem({ kind, name }, 'spec', obj.spec, 'is required and must be an object'));
    return false;
  }
  const checker = compiled(schema);
  // The compiled check is cheap; errors are only collected for the rare object that fails it.
  if (checker.Check(obj.spec)) return true;
  const seen = new Set<string>();
  let ok = true;
  for (const err of checker.Errors(obj.spec)) {
    const field = 'spec' + jsonPointerToPath(err.path);
    // TypeBox reports a missing property twice (required, then wrong type): keep the first.
    if (seen.has(field)) continue;
    seen.add(field);
    ok = false;
    out.push(problem({ kind, name }, field, shownValue(err), schemaReason(err)));
  }
  return ok;
}

/**
 * The value a problem quotes: a list or map over its size limit by its size, a string over its
 * length limit by its first characters; a message never carries a whole oversized value.
 */
function shownValue(err: ValueError): unknown {
  const v = err.value;
  if (
    (err.type === ValueErrorType.ArrayMaxItems || err.type === ValueErrorType.ArrayMinItems) &&
    Array.isArray(v)
  )
    return v.length;
  if (err.type === ValueErrorType.ObjectMaxProperties && v !== null && typeof v === 'object') {
    return Object.keys(v).length;
  }
  if (err.type === ValueErrorType.StringMaxLength && typeof v === 'string' && v.length > SHOWN_PREFIX) {
    return `${v.slice(0, SHOWN_PREFIX)}…`;
  }
  return v;
}
const SHOWN_PREFIX = 24;

const checkers = new Map<TSchema, TypeCheck<TSchema>>();
function compiled(schema: TSchema): TypeCheck<TSchema> {
  let checker = checkers.get(schema);
  if (!checker) checkers.set(schema, (checker = TypeCompiler.Compile(schema)));
  return checker;
}

function jsonPointerToPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((seg) => {
      const s = seg.replace(/~1/g, '/').replace(/~0/g, '~');
      return /^[0-9]+$/.test(s)
        ? `[${s}]`
        : /^[A-Za-z_][A-Za-z0-9_]*$/.test(s)
          ? `.${s}`
          : `[${JSON.stringify(s)}]`;
    })
    .join('');
}

const PATTERN_REASONS: Record<string, string> = {
  [VRF_NAME_PATTERN]: 'must be 1 to 12 characters of A-Z, a-z, 0-9, "_" or "-"',
  [MAC_PATTERN]: 'must be a MAC address like 02:00:5e:00:01:01',
  [COMMUNITY_PATTERN]: 'must be a BGP community (AA:NN, A:B:C or a well-known name such as no-export)',
  [ROUTE_TARGET_PATTERN]: 'must be a route target (ASN:NN or IPv4:NN)',
  [CIDR_PATTERN]: 'must be an IPv4 or IPv6 prefix in CIDR notation',
  [PEER_ADDRESS_PATTERN]: 'must be an IPv4 or IPv6 address without a prefix length',
};

type SchemaFields = Record<string, unknown>;
type Reason = (s: SchemaFields, err: ValueError) => string;

const atLeast: Reason = (s) => `must be at least ${String(s.minimum)}`;
const atMost: Reason = (s) => `must be at most ${String(s.maximum)}`;

function tooLong(s: SchemaFields, err: ValueError): string {
  if (s.pattern === VRF_NAME_PATTERN && typeof err.value === 'string') return vrfNameTooLong(err.value);
  return `must be at most ${String(s.maxLength)} characters long (this one has ${String((err.value as string).length)})`;
}

function patternReason(s: SchemaFields, err: ValueError): string {
  const value = err.value;
  if (typeof value === 'string') {
    if (s.pattern === LABEL_KEY_PATTERN) return labelKeyProblem(value) ?? 'must be a label key';
    if (s.pattern === LABEL_VALUE_PATTERN) return labelValueProblem(value) ?? 'must be a label value';
    if (s.pattern === VRF_NAME_PATTERN && /^[A-Za-z0-9_-]+$/.test(value)) return vrfNameTooLong(value);
  }
  return PATTERN_REASONS[String(s.pattern)] ?? `must match ${String(s.pattern)}`;
}

/** Reasons worded for people, by TypeBox error; any other error keeps TypeBox's own message. */
const REASONS: Partial<Record<ValueErrorType, Reason>> = {
  [ValueErrorType.ObjectRequiredProperty]: () => 'is required',
  [ValueErrorType.Integer]: () => 'must be an integer',
  [ValueErrorType.IntegerMinimum]: atLeast,
  [ValueErrorType.NumberMinimum]: atLeast,
  [ValueErrorType.IntegerMaximum]: atMost,
  [ValueErrorType.NumberMaximum]: atMost,
  [ValueErrorType.String]: () => 'must be a string',
  [ValueErrorType.Boolean]: () => 'must be true or false',
  [ValueErrorType.Array]: () => 'must be a list',
  [ValueErrorType.Object]: () => 'must be an object',
  [ValueErrorType.ArrayMaxItems]: (s) => `must have at most ${String(s.maxItems)} items`,
  [ValueErrorType.ArrayMinItems]: (s) =>
    `must have at least ${String(s.minItems)} item${s.minItems === 1 ? '' : 's'}`,
  [ValueErrorType.ObjectMaxProperties]: (s) => `must have at most ${String(s.maxProperties)} entries`,
  [ValueErrorType.StringMinLength]: (s) => `must be at least ${String(s.minLength)} characters long`,
  [ValueErrorType.StringMaxLength]: tooLong,
  [ValueErrorType.StringPattern]: patternReason,
  [ValueErrorType.Kind]: (s, err) =>
    Array.isArray(s.enum) ? `must be one of ${s.enum.join(', ')}` : err.message,
};

function schemaReason(err: ValueError): string {
  const reason = REASONS[err.type];
  return reason ? reason(err.schema, err) : err.message;
}

/** The VRF name limit exists because of interface names; say so, with the name that would not fit. */
function vrfNameTooLong(vrf: string): string {
  const longest = deviceNames.vrf(vrf);
  return (
    `is ${vrf.length} characters; interface name "${longest}" would exceed the kernel's ` +
    `${MAX_IFNAME_LENGTH}-character limit (VRF names have at most ${MAX_VRF_NAME_LENGTH})`
  );
}
