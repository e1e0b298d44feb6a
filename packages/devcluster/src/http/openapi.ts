/**
 * OpenAPI documents with the schemas of the registered custom resources, as a real API server
 * publishes them: `/openapi/v2` (Swagger 2.0; kubectl asks for it as gnostic protobuf, other clients
 * as JSON) and the `components.schemas` of each `/openapi/v3/apis/<group>/<version>` document.
 * kubectl needs them for `kubectl explain` and for client-side validation (`kubectl apply -f` of a
 * `kind: List` or a multi-document file validates every item against v2).
 *
 * Definitions are named like kube-openapi names them (reversed group, version, kind:
 * `io.nodenet.network.v1alpha1.Layer2NetworkConfiguration`) and carry
 * `x-kubernetes-group-version-kind`. Built-in kinds have no definitions here; kubectl skips
 * client-side validation of kinds it finds no schema for, and the server validates them anyway.
 */
import YAML from 'yaml';
import type { ResourceType } from '../resources/resources.js';
import type { Schema } from '../schema/schema.js';

export const definitionName = (t: Pick<ResourceType, 'group' | 'version' | 'kind'>): string =>
  `${t.group ? t.group.split('.').reverse().join('.') : 'io.k8s.api.core'}.${t.version}.${t.kind}`;

const gvk = (t: ResourceType): Array<Record<string, string>> => [
  { group: t.group, kind: t.kind, version: t.version },
];

/** Schemas of the custom resources among `types`, keyed by definition name. */
export function customResourceSchemas(types: ResourceType[]): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const t of types) {
    if (!t.crd || !t.schema) continue;
    out[definitionName(t)] = { ...withObjectMeta(t.schema), 'x-kubernetes-group-version-kind': gvk(t) };
  }
  return out;
}

/** apiVersion, kind and metadata described as on a real cluster (explain shows them). */
function withObjectMeta(schema: Schema): Record<string, unknown> {
  const props = { ...(schema.properties ?? {}) } as Record<string, Schema>;
  props.apiVersion = {
    ...props.apiVersion,
    type: 'string',
    description:
      'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values.',
  };
  props.kind = {
    ...props.kind,
    type: 'string',
    description:
      'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. In CamelCase.',
  };
  props.metadata = {
    ...props.metadata,
    type: 'object',
    description: "Standard object's metadata.",
  };
  return { ...schema, properties: props };
}

/** The Swagger 2.0 document (`/openapi/v2`) as JSON. */
export function openApiV2(types: ResourceType[], version: string): Record<string, unknown> {
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version },
    paths: {},
    definitions: Object.fromEntries(
      Object.entries(customResourceSchemas(types)).map(([k, s]) => [k, toV2(s)]),
    ),
  };
}

/** OpenAPI v3 schema → Swagger 2.0 schema: v2 has no `nullable` (kube-openapi drops it too). */
function toV2(node: unknown): Record<string, unknown> {
  const s = node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'nullable') continue;
    if (k === 'properties') {
      out.properties = Object.fromEntries(
        Object.entries(v as Record<string, unknown>).map(([p, ps]) => [p, toV2(ps)]),
      );
    } else if (
      (k === 'items' || k === 'additionalProperties' || k === 'not') &&
      typeof v === 'object' &&
      v !== null
    ) {
      out[k] = toV2(v);
    } else if ((k === 'allOf' || k === 'anyOf' || k === 'oneOf') && Array.isArray(v)) {
      out[k] = v.map(toV2);
    } else {
      out[k] = v;
    }
  }
  return out;
}

// ---------------------------------------------------------------- gnostic protobuf (openapi_v2.Document)

/**
 * Encodes the v2 document as gnostic's `openapi.v2.Document` protobuf, the form kubectl requests
 * (`application/com.github.proto-openapi.spec.v2@v1.0+protobuf`). Field numbers are those of
 * gnostic's OpenAPIv2.proto; only the parts this server fills are encoded.
 */
export function encodeOpenApiV2(doc: Record<string, unknown>): Buffer {
  const info = doc.info as { title: string; version: string };
  const defs = doc.definitions as Record<string, Record<string, unknown>>;
  return message([
    str(1, String(doc.swagger)),
    msg(2, message([str(1, info.title), str(2, info.version)])),
    msg(8, message([])),
    msg(
      9,
      message(Object.entries(defs).map(([name, s]) => msg(1, message([str(1, name), msg(2, schema(s))])))),
    ),
  ]);
}

const SCALARS: Record<string, [number, 'string' | 'double' | 'bool' | 'int']> = {
  format: [2, 'string'],
  title: [3, 'string'],
  description: [4, 'string'],
  multipleOf: [6, 'double'],
  maximum: [7, 'double'],
  exclusiveMaximum: [8, 'bool'],
  minimum: [9, 'double'],
  exclusiveMinimum: [10, 'bool'],
  maxLength: [11, 'int'],
  minLength: [12, 'int'],
  pattern: [13, 'string'],
  maxItems: [14, 'int'],
  minItems: [15, 'int'],
  uniqueItems: [16, 'bool'],
  maxProperties: [17, 'int'],
  minProperties: [18, 'int'],
};

function schema(s: Record<string, unknown>): Buffer {
  const parts: Buffer[] = [];
  for (const [key, value] of Object.entries(s)) {
    const scalar = SCALARS[key];
    if (scalar) {
      const [n, kind] = scalar;
      if (kind === 'string') parts.push(str(n, String(value)));
      else if (kind === 'double') parts.push(double(n, Number(value)));
      else if (kind === 'bool') parts.push(varintField(n, value ? 1 : 0));
      else parts.push(varintField(n, Number(value)));
      continue;
    }
    switch (key) {
      case 'default':
        parts.push(msg(5, anyYaml(value)));
        break;
      case 'required':
        for (const r of value as string[]) parts.push(str(19, r));
        break;
      case 'enum':
        for (const e of value as unknown[]) parts.push(msg(20, anyYaml(e)));
        break;
      case 'additionalProperties':
        parts.push(
          msg(
            21,
            typeof value === 'boolean'
              ? varintField(2, value ? 1 : 0)
              : msg(1, schema(value as Record<string, unknown>)),
          ),
        );
        break;
      case 'type':
        parts.push(msg(22, str(1, String(value))));
        break;
      case 'items':
        parts.push(msg(23, msg(1, schema(value as Record<string, unknown>))));
        break;
      case 'allOf':
        for (const a of value as Record<string, unknown>[]) parts.push(msg(24, schema(a)));
        break;
      case 'properties':
        parts.push(
          msg(
            25,
            message(
              Object.entries(value as Record<string, Record<string, unknown>>).map(([name, p]) =>
                msg(1, message([str(1, name), msg(2, schema(p))])),
              ),
            ),
          ),
        );
        break;
      default:
        if (key.startsWith('x-')) parts.push(msg(31, message([str(1, key), msg(2, anyYaml(value))])));
    }
  }
  return message(parts);
}

/** gnostic `Any`: the value as YAML text (field 2). */
const anyYaml = (v: unknown): Buffer => str(2, YAML.stringify(v).trimEnd());

function varint(n: number): Buffer {
  const bytes: number[] = [];
  let v = BigInt.asUintN(64, BigInt(Math.trunc(n)));
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    bytes.push(b);
  } while (v > 0n);
  return Buffer.from(bytes);
}
const key = (field: number, wire: number): Buffer => varint((field << 3) | wire);
const varintField = (field: number, n: number): Buffer => Buffer.concat([key(field, 0), varint(n)]);
const bytesField = (field: number, b: Buffer): Buffer => Buffer.concat([key(field, 2), varint(b.length), b]);
const str = (field: number, s: string): Buffer => bytesField(field, Buffer.from(s, 'utf8'));
const msg = (field: number, b: Buffer): Buffer => bytesField(field, b);
const message = (parts: Buffer[]): Buffer => Buffer.concat(parts);
function double(field: number, n: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeDoubleLE(n);
  return Buffer.concat([key(field, 1), b]);
}
