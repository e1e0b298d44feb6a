/**
 * Structural OpenAPI v3 schemas as CustomResourceDefinitions carry them: the types, defaulting and
 * pruning of unknown fields. Validation, worded like the real API server, is in schema-validate.ts.
 */
import { clone, isObject } from '../objects/types.js';

export interface Schema {
  type?: string;
  description?: string;
  format?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  not?: Schema;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-validations'?: ValidationRule[];
}

/** A CEL rule of a CRD schema (apiextensions.k8s.io/v1 ValidationRule). */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  /** JSONPath-like path relative to the node, e.g. `.le`, that the error names. */
  fieldPath?: string;
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
}

export const joinPath = (base: string, key: string): string => (base ? `${base}.${key}` : key);

// ---------------------------------------------------------------- defaulting

/** Fills `default`s of absent (or null, non-nullable) properties, in place, recursively. */
export function applyDefaults(value: unknown, schema: Schema | undefined): void {
  if (!schema) return;
  if (isObject(value)) {
    if (schema.properties) {
      for (const [key, prop] of Object.entries(schema.properties)) {
        const cur = value[key];
        if (prop.default !== undefined && (cur === undefined || (cur === null && !prop.nullable))) {
          value[key] = clone(prop.default);
        }
        if (value[key] !== undefined) applyDefaults(value[key], prop);
      }
    }
    if (isObject(schema.additionalProperties)) {
      const ap = schema.additionalProperties;
      for (const key of Object.keys(value)) {
        if (schema.properties?.[key]) continue;
        applyDefaults(value[key], ap);
      }
    }
  } else if (Array.isArray(value) && schema.items) {
    for (let i = 0; i < value.length; i++) {
      if (value[i] === null && schema.items.default !== undefined && !schema.items.nullable)
        value[i] = clone(schema.items.default);
      applyDefaults(value[i], schema.items);
    }
  }
}

// ---------------------------------------------------------------- pruning

/**
 * Removes fields the schema does not declare (unless x-kubernetes-preserve-unknown-fields), in place.
 * Returns the paths that were removed, for `fieldValidation=Strict|Warn`.
 * At the root, apiVersion, kind and metadata are kept (metadata is handled by the server).
 */
export function prune(value: unknown, schema: Schema | undefined, path = '', isRoot = true): string[] {
  const removed: string[] = [];
  if (!schema) return removed;
  if (isObject(value)) {
    const embedded = isRoot || schema['x-kubernetes-embedded-resource'] === true;
    if (schema['x-kubernetes-preserve-unknown-fields'] && !schema.properties && !schema.additionalProperties)
      return removed;
    for (const key of Object.keys(value)) {
      if (embedded && (key === 'apiVersion' || key === 'kind' || key === 'metadata')) continue;
      const prop = schema.properties?.[key];
      if (prop) {
        removed.push(...prune(value[key], prop, joinPath(path, key), false));
      } else if (isObject(schema.additionalProperties)) {
        removed.push(...prune(value[key], schema.additionalProperties, joinPath(path, key), false));
      } else if (schema.additionalProperties === true || schema['x-kubernetes-preserve-unknown-fields']) {
        continue;
      } else {
        delete value[key];
        removed.push(joinPath(path, key));
      }
    }
  } else if (Array.isArray(value) && schema.items) {
    value.forEach((item, i) => removed.push(...prune(item, schema.items, `${path}[${i}]`, false)));
  }
  return removed;
}

// ---------------------------------------------------------------- validation

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a))
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}
