/**
 * Validation of a value against a structural schema (types, formats, patterns, bounds, enums,
 * required and CEL rules), with error messages worded like the real API server, and the check that a
 * CRD's schema can be used at all.
 */
import { isIP } from 'node:net';
import { renderValue, type FieldError } from '../objects/errors.js';
import { CelError, compileCel, evaluateCelBool } from './cel.js';
import { deepEqual, joinPath, type Schema, type ValidationRule } from './schema.js';
import { isObject } from '../objects/types.js';

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function typeMatches(schema: Schema, v: unknown): boolean {
  if (schema['x-kubernetes-int-or-string'])
    return typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));
  switch (schema.type) {
    case undefined:
    case '':
      return true;
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number';
    case 'string':
      return typeof v === 'string';
    case 'boolean':
      return typeof v === 'boolean';
    case 'object':
      return isObject(v);
    case 'array':
      return Array.isArray(v);
    default:
      return true;
  }
}

const FORMATS: Record<string, (s: string) => boolean> = {
  ipv4: (s) => isIP(s) === 4,
  ipv6: (s) => isIP(s) === 6,
  cidr: (s) => {
    const [ip, len, extra] = s.split('/');
    if (extra !== undefined || !ip || len === undefined || !/^\d+$/.test(len)) return false;
    const fam = isIP(ip);
    return fam !== 0 && Number(len) <= (fam === 4 ? 32 : 128);
  },
  mac: (s) => /^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$/.test(s),
  uuid: (s) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s),
  'date-time': (s) => /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(s),
  datetime: (s) => FORMATS['date-time']?.(s) ?? false,
  date: (s) => /^\d{4}-\d{2}-\d{2}$/.test(s),
  hostname: (s) =>
    s.length <= 255 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/i.test(s),
  byte: (s) => /^[A-Za-z0-9+/]*={0,2}$/.test(s) && s.length % 4 === 0,
};

const patternCache = new Map<string, RegExp>();
function compilePattern(p: string): RegExp {
  let re = patternCache.get(p);
  if (!re) {
    // ECMA-262 and RE2 agree on the patterns CRDs use; 'u' keeps \p{..} and surrogate pairs right.
    re = new RegExp(p, 'u');
    patternCache.set(p, re);
  }
  return re;
}

function invalidErr(field: string, value: unknown, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, message: `Invalid value: ${renderValue(value)}: ${detail}` };
}

/** Validates `value` against `schema`; `path` is the field path of `value` ("" for the root). */
export function validate(value: unknown, schema: Schema | undefined, path = ''): FieldError[] {
  const errs: FieldError[] = [];
  if (!schema) return errs;
  const name = path || '<root>';

  if (value === null) {
    if (schema.nullable) return errs;
    if (schema.type || schema['x-kubernetes-int-or-string']) {
      errs.push(
        invalidErr(
          name,
          'null',
          `${name} in body must be of type ${schema.type ?? 'integer-or-string'}: "null"`,
        ),
      );
    }
    return errs;
  }
  if (!typeMatches(schema, value)) {
    const actual = jsonType(value);
    const want = schema['x-kubernetes-int-or-string'] ? 'integer-or-string' : (schema.type ?? '');
    errs.push(invalidErr(name, actual, `${name} in body must be of type ${want}: ${JSON.stringify(actual)}`));
    return errs;
  }

  if (schema.enum && !schema.enum.some((e) => deepEqual(e, value))) {
    errs.push({
      type: 'FieldValueNotSupported',
      field: name,
      message: `Unsupported value: ${renderValue(value)}: supported values: ${schema.enum.map(renderValue).join(', ')}`,
    });
  }

  if (typeof value === 'number') errs.push(...numberErrors(value, schema, name));
  if (typeof value === 'string') errs.push(...stringErrors(value, schema, name));
  if (Array.isArray(value)) errs.push(...arrayErrors(value, schema, path, name));
  if (isObject(value)) errs.push(...objectErrors(value, schema, path, name));
  errs.push(...combinatorErrors(value, schema, path, name));
  // CEL rules run on a node whose structure is valid (their expressions assume the declared types).
  if (schema['x-kubernetes-validations'] && errs.length === 0)
    errs.push(...validateRules(value, schema['x-kubernetes-validations'], path));
  return errs;
}

/** The schema combinators: every `allOf`, at least one `anyOf`, exactly one `oneOf`, not the `not`. */
function combinatorErrors(value: unknown, schema: Schema, path: string, name: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const sub of schema.allOf ?? []) errs.push(...validate(value, sub, path));
  if (schema.anyOf && !schema.anyOf.some((s) => validate(value, s, path).length === 0))
    errs.push(invalidErr(name, value, `${name} in body must validate at least one schema (anyOf)`));
  if (schema.oneOf && schema.oneOf.filter((s) => validate(value, s, path).length === 0).length !== 1)
    errs.push(invalidErr(name, value, `${name} in body must validate one and only one schema (oneOf)`));
  if (schema.not && validate(value, schema.not, path).length === 0)
    errs.push(invalidErr(name, value, `${name} in body must not validate the schema (not)`));
  return errs;
}

function numberErrors(value: number, schema: Schema, name: string): FieldError[] {
  const errs: FieldError[] = [];
  if (schema.minimum !== undefined) {
    if (schema.exclusiveMinimum ? value <= schema.minimum : value < schema.minimum)
      errs.push(
        invalidErr(
          name,
          value,
          `${name} in body should be greater than ${schema.exclusiveMinimum ? '' : 'or equal to '}${schema.minimum}`,
        ),
      );
  }
  if (schema.maximum !== undefined) {
    if (schema.exclusiveMaximum ? value >= schema.maximum : value > schema.maximum)
      errs.push(
        invalidErr(
          name,
          value,
          `${name} in body should be less than ${schema.exclusiveMaximum ? '' : 'or equal to '}${schema.maximum}`,
        ),
      );
  }
  if (
    schema.multipleOf !== undefined &&
    schema.multipleOf > 0 &&
    !Number.isInteger(value / schema.multipleOf)
  )
    errs.push(invalidErr(name, value, `${name} in body should be a multiple of ${schema.multipleOf}`));
  return errs;
}

function stringErrors(value: string, schema: Schema, name: string): FieldError[] {
  const errs: FieldError[] = [];
  const len = [...value].length;
  if (schema.maxLength !== undefined && len > schema.maxLength)
    errs.push({
      type: 'FieldValueTooLong',
      field: name,
      message: `Too long: may not be more than ${schema.maxLength} bytes`,
    });
  if (schema.minLength !== undefined && len < schema.minLength)
    errs.push(invalidErr(name, value, `${name} in body should be at least ${schema.minLength} chars long`));
  if (schema.pattern !== undefined && !compilePattern(schema.pattern).test(value))
    errs.push(invalidErr(name, value, `${name} in body should match '${schema.pattern}'`));
  if (schema.format && !schema['x-kubernetes-int-or-string']) {
    const check = FORMATS[schema.format];
    if (check && !check(value))
      errs.push(
        invalidErr(name, value, `${name} in body must be of type ${schema.format}: ${JSON.stringify(value)}`),
      );
  }
  return errs;
}

function arrayErrors(value: unknown[], schema: Schema, path: string, name: string): FieldError[] {
  const errs: FieldError[] = [];
  if (schema.maxItems !== undefined && value.length > schema.maxItems)
    errs.push({
      type: 'FieldValueTooMany',
      field: name,
      message: `Too many: ${value.length}: must have at most ${schema.maxItems} items`,
    });
  if (schema.minItems !== undefined && value.length < schema.minItems)
    errs.push(invalidErr(name, value, `${name} in body should have at least ${schema.minItems} items`));
  const listType = schema['x-kubernetes-list-type'];
  if (schema.uniqueItems || listType === 'set') {
    const seen = new Set<string>();
    value.forEach((item, i) => {
      const k = JSON.stringify(item);
      if (seen.has(k))
        errs.push({
          type: 'FieldValueDuplicate',
          field: `${path}[${i}]`,
          message: `Duplicate value: ${renderValue(item)}`,
        });
      seen.add(k);
    });
  } else if (listType === 'map' && schema['x-kubernetes-list-map-keys']) {
    const keys = schema['x-kubernetes-list-map-keys'];
    const seen = new Set<string>();
    value.forEach((item, i) => {
      if (!isObject(item)) return;
      const k = JSON.stringify(keys.map((key) => item[key]));
      if (seen.has(k)) {
        const shown = Object.fromEntries(keys.map((key) => [key, item[key]]));
        errs.push({
          type: 'FieldValueDuplicate',
          field: `${path}[${i}]`,
          message: `Duplicate value: ${JSON.stringify(shown)}`,
        });
      }
      seen.add(k);
    });
  }
  if (schema.items) value.forEach((item, i) => errs.push(...validate(item, schema.items, `${path}[${i}]`)));
  return errs;
}

function objectErrors(
  value: Record<string, unknown>,
  schema: Schema,
  path: string,
  name: string,
): FieldError[] {
  const errs: FieldError[] = [];
  for (const req of schema.required ?? []) {
    if (value[req] === undefined)
      errs.push({ type: 'FieldValueRequired', field: joinPath(path, req), message: 'Required value' });
  }
  const count = Object.keys(value).length;
  if (schema.maxProperties !== undefined && count > schema.maxProperties)
    errs.push({
      type: 'FieldValueTooMany',
      field: name,
      message: `Too many: ${count}: must have at most ${schema.maxProperties} items`,
    });
  if (schema.minProperties !== undefined && count < schema.minProperties)
    errs.push(
      invalidErr(name, value, `${name} in body should have at least ${schema.minProperties} properties`),
    );
  for (const [key, v] of Object.entries(value)) {
    const prop = schema.properties?.[key];
    if (prop) errs.push(...validate(v, prop, joinPath(path, key)));
    else if (isObject(schema.additionalProperties))
      errs.push(...validate(v, schema.additionalProperties, joinPath(path, key)));
  }
  return errs;
}

/**
 * `x-kubernetes-validations` of one node, worded as apiextensions-apiserver words them:
 * `<path>: Invalid value: "object": <message>` (the value shown is the node's type).
 */
function validateRules(value: unknown, rules: ValidationRule[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const r of rules) {
    const field = r.fieldPath ? joinPath(path, r.fieldPath.replace(/^\./, '')) : path || '<root>';
    let ok: boolean;
    try {
      ok = evaluateCelBool(r.rule, { self: value });
    } catch (err) {
      errs.push({
        type: 'FieldValueInvalid',
        field,
        message: `Invalid value: ${renderValue(jsonType(value))}: ${(err as Error).message}`,
      });
      continue;
    }
    if (ok) continue;
    let message = r.message ?? `failed rule: ${r.rule}`;
    if (r.messageExpression) {
      try {
        const m = compileCel(r.messageExpression)({ self: value });
        if (typeof m === 'string' && m.trim()) message = m;
      } catch (err) {
        if (!(err instanceof CelError)) throw err;
      }
    }
    errs.push(ruleError(r.reason, field, jsonType(value), message));
  }
  return errs;
}

function ruleError(
  reason: ValidationRule['reason'],
  field: string,
  type: string,
  message: string,
): FieldError {
  switch (reason) {
    case 'FieldValueRequired':
      return { type: reason, field, message: `Required value: ${message}` };
    case 'FieldValueForbidden':
      return { type: reason, field, message: `Forbidden: ${message}` };
    case 'FieldValueDuplicate':
      return { type: reason, field, message: `Duplicate value: ${message}` };
    case 'FieldValueInvalid':
    case undefined:
      return { type: 'FieldValueInvalid', field, message: `Invalid value: ${renderValue(type)}: ${message}` };
  }
}

/** Structural problems that make a CRD schema unusable (reported when the CRD is created). */
export function checkSchemaSupported(schema: Schema, path = 'openAPIV3Schema'): string[] {
  const problems: string[] = [];
  if (schema.pattern !== undefined) {
    try {
      compilePattern(schema.pattern);
    } catch (e) {
      problems.push(
        `${path}.pattern: Invalid value: ${JSON.stringify(schema.pattern)}: ${(e as Error).message}`,
      );
    }
  }
  (schema['x-kubernetes-validations'] ?? []).forEach((r, i) => {
    for (const [key, expr] of [
      ['rule', r.rule],
      ['messageExpression', r.messageExpression],
    ] as const) {
      if (expr === undefined) continue;
      try {
        compileCel(expr);
      } catch (e) {
        problems.push(
          `${path}.x-kubernetes-validations[${i}].${key}: Invalid value: ${JSON.stringify(expr)}: ${(e as Error).message}`,
        );
      }
    }
  });
  for (const [k, p] of Object.entries(schema.properties ?? {}))
    problems.push(...checkSchemaSupported(p, `${path}.properties[${k}]`));
  if (schema.items) problems.push(...checkSchemaSupported(schema.items, `${path}.items`));
  if (isObject(schema.additionalProperties))
    problems.push(...checkSchemaSupported(schema.additionalProperties, `${path}.additionalProperties`));
  return problems;
}
