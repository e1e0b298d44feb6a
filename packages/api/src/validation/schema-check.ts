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
    out.push(problem(kind, name, 'spec', obj.spec, 'is required and must be an object'));
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
    out.push(problem(kind, name, field, shownValue(err), schemaReason(err)));
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

function schemaReason(err: ValueError): string {
  const s = err.schema as Record<string, unknown>;
  switch (err.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return 'is required';
    case ValueErrorType.Integer:
      return 'must be an integer';
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.NumberMinimum:
      return `must be at least ${String(s.minimum)}`;
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberMaximum:
      return `must be at most ${String(s.maximum)}`;
    case ValueErrorType.String:
      return 'must be a string';
    case ValueErrorType.Boolean:
      return 'must be true or false';
    case ValueErrorType.Array:
      return 'must be a list';
    case ValueErrorType.Object:
      return 'must be an object';
    case ValueErrorType.ArrayMaxItems:
      return `must have at most ${String(s.maxItems)} items`;
    case ValueErrorType.ArrayMinItems:
      return `must have at least ${String(s.minItems)} item${s.minItems === 1 ? '' : 's'}`;
    case ValueErrorType.ObjectMaxProperties:
      return `must have at most ${String(s.maxProperties)} entries`;
    case ValueErrorType.StringMinLength:
      return `must be at least ${String(s.minLength)} characters long`;
    case ValueErrorType.StringMaxLength:
      if (s.pattern === VRF_NAME_PATTERN && typeof err.value === 'string') return vrfNameTooLong(err.value);
      return `must be at most ${String(s.maxLength)} characters long (this one has ${String((err.value as string).length)})`;
    case ValueErrorType.StringPattern:
      if (s.pattern === LABEL_KEY_PATTERN && typeof err.value === 'string') {
        return labelKeyProblem(err.value) ?? 'must be a label key';
      }
      if (s.pattern === LABEL_VALUE_PATTERN && typeof err.value === 'string') {
        return labelValueProblem(err.value) ?? 'must be a label value';
      }
      if (
        s.pattern === VRF_NAME_PATTERN &&
        typeof err.value === 'string' &&
        /^[A-Za-z0-9_-]+$/.test(err.value)
      ) {
        return vrfNameTooLong(err.value);
      }
      return PATTERN_REASONS[String(s.pattern)] ?? `must match ${String(s.pattern)}`;
    case ValueErrorType.Kind:
      if (Array.isArray(s.enum)) return `must be one of ${s.enum.join(', ')}`;
      return err.message;
    default:
      return err.message;
  }
}

/** The VRF name limit exists because of interface names; say so, with the name that would not fit. */
function vrfNameTooLong(vrf: string): string {
  const longest = deviceNames.vrf(vrf);
  return (
    `is ${vrf.length} characters; interface name "${longest}" would exceed the kernel's ` +
    `${MAX_IFNAME_LENGTH}-character limit (VRF names have at most ${MAX_VRF_NAME_LENGTH})`
  );
}
