/**
 * Decoding of the Kubernetes protobuf envelope for the few built-in kinds kubectl sends as protobuf
 * (`kubectl create namespace | configmap | secret | serviceaccount | token` and `kubectl auth` use
 * typed clients that encode request bodies as `application/vnd.kubernetes.protobuf`). Responses are always JSON, which those
 * clients accept. Field numbers are those of k8s.io/api/core/v1/generated.proto and
 * k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto.
 */
import { ApiError } from '../objects/errors.js';
import { plainText } from '../objects/text.js';

type FieldType =
  | 'string'
  | 'bytes'
  | 'int'
  | 'bool'
  | 'time'
  | 'strings'
  | 'map'
  | 'bytesMap'
  | { message: MessageSchema }
  | { messages: MessageSchema };
type MessageSchema = Record<number, [name: string, type: FieldType]>;

const ownerReference: MessageSchema = {
  1: ['kind', 'string'],
  3: ['name', 'string'],
  4: ['uid', 'string'],
  5: ['apiVersion', 'string'],
  6: ['controller', 'bool'],
  7: ['blockOwnerDeletion', 'bool'],
};

const objectMeta: MessageSchema = {
  1: ['name', 'string'],
  2: ['generateName', 'string'],
  3: ['namespace', 'string'],
  5: ['uid', 'string'],
  6: ['resourceVersion', 'string'],
  7: ['generation', 'int'],
  8: ['creationTimestamp', 'time'],
  9: ['deletionTimestamp', 'time'],
  10: ['deletionGracePeriodSeconds', 'int'],
  11: ['labels', 'map'],
  12: ['annotations', 'map'],
  13: ['ownerReferences', { messages: ownerReference }],
  14: ['finalizers', 'strings'],
};

// k8s.io/api/authorization/v1 and authentication/v1: what `kubectl create token` and
// `kubectl auth can-i | whoami` post.
const resourceAttributes: MessageSchema = {
  1: ['namespace', 'string'],
  2: ['verb', 'string'],
  3: ['group', 'string'],
  4: ['version', 'string'],
  5: ['resource', 'string'],
  6: ['subresource', 'string'],
  7: ['name', 'string'],
};
const accessReviewSpec: MessageSchema = {
  1: ['resourceAttributes', { message: resourceAttributes }],
  2: ['nonResourceAttributes', { message: { 1: ['path', 'string'], 2: ['verb', 'string'] } }],
};

const KINDS: Record<string, MessageSchema> = {
  'authentication.k8s.io/v1/TokenRequest': {
    1: ['metadata', { message: objectMeta }],
    2: [
      'spec',
      {
        message: {
          1: ['audiences', 'strings'],
          3: [
            'boundObjectRef',
            {
              message: {
                1: ['kind', 'string'],
                2: ['apiVersion', 'string'],
                3: ['name', 'string'],
                4: ['uid', 'string'],
              },
            },
          ],
          4: ['expirationSeconds', 'int'],
        },
      },
    ],
  },
  'authentication.k8s.io/v1/SelfSubjectReview': { 1: ['metadata', { message: objectMeta }] },
  'authorization.k8s.io/v1/SelfSubjectAccessReview': {
    1: ['metadata', { message: objectMeta }],
    2: ['spec', { message: accessReviewSpec }],
  },
  'authorization.k8s.io/v1/SelfSubjectRulesReview': {
    1: ['metadata', { message: objectMeta }],
    2: ['spec', { message: { 1: ['namespace', 'string'] } }],
  },
  'authorization.k8s.io/v1/SubjectAccessReview': {
    1: ['metadata', { message: objectMeta }],
    2: [
      'spec',
      {
        message: {
          ...accessReviewSpec,
          3: ['user', 'string'],
          4: ['groups', 'strings'],
          6: ['uid', 'string'],
        },
      },
    ],
  },
  'v1/Namespace': {
    1: ['metadata', { message: objectMeta }],
    2: ['spec', { message: { 1: ['finalizers', 'strings'] } }],
    3: ['status', { message: { 1: ['phase', 'string'] } }],
  },
  'v1/ConfigMap': {
    1: ['metadata', { message: objectMeta }],
    2: ['data', 'map'],
    3: ['binaryData', 'bytesMap'],
    4: ['immutable', 'bool'],
  },
  'v1/Secret': {
    1: ['metadata', { message: objectMeta }],
    2: ['data', 'bytesMap'],
    3: ['type', 'string'],
    4: ['stringData', 'map'],
    5: ['immutable', 'bool'],
  },
  'v1/ServiceAccount': {
    1: ['metadata', { message: objectMeta }],
    4: ['automountServiceAccountToken', 'bool'],
  },
};

class Reader {
  pos = 0;
  constructor(readonly buf: Buffer) {}
  get done(): boolean {
    return this.pos >= this.buf.length;
  }
  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.buf.length) throw new Error('truncated varint');
      const b = this.buf[this.pos++] as number;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
    }
  }
  bytes(): Buffer {
    const len = Number(this.varint());
    if (this.pos + len > this.buf.length) throw new Error('truncated field');
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }
  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else throw new Error(`unsupported wire type ${wire}`);
  }
}

function decodeMessage(buf: Buffer, schema: MessageSchema): Record<string, unknown> {
  const r = new Reader(buf);
  const out: Record<string, unknown> = {};
  while (!r.done) {
    const key = Number(r.varint());
    const field = key >>> 3;
    const wire = key & 7;
    const spec = schema[field];
    if (!spec) {
      r.skip(wire);
      continue;
    }
    const [name, type] = spec;
    if (type === 'int') out[name] = Number(BigInt.asIntN(64, r.varint()));
    else if (type === 'bool') out[name] = r.varint() !== 0n;
    else if (type === 'string') out[name] = r.bytes().toString('utf8');
    else if (type === 'bytes') out[name] = r.bytes().toString('base64');
    else if (type === 'strings') ((out[name] ??= []) as unknown[]).push(r.bytes().toString('utf8'));
    else if (type === 'time') {
      const t = decodeMessage(r.bytes(), { 1: ['seconds', 'int'], 2: ['nanos', 'int'] });
      out[name] = new Date(Number(t.seconds ?? 0) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    } else if (type === 'map' || type === 'bytesMap') {
      const e = decodeMessage(r.bytes(), {
        1: ['k', 'string'],
        2: ['v', type === 'map' ? 'string' : 'bytes'],
      });
      ((out[name] ??= {}) as Record<string, unknown>)[plainText(e.k ?? '')] = e.v ?? '';
    } else if ('message' in type) out[name] = decodeMessage(r.bytes(), type.message);
    else ((out[name] ??= []) as unknown[]).push(decodeMessage(r.bytes(), type.messages));
  }
  return out;
}

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]); // "k8s\0"

/** Decodes a protobuf request body into the JSON form of the object. */
export function decodeProtobuf(body: Buffer): Record<string, unknown> {
  const unsupported = (why: string): ApiError =>
    new ApiError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml (${why})`,
    );
  if (body.length < 4 || !body.subarray(0, 4).equals(MAGIC)) throw unsupported('missing protobuf envelope');
  try {
    const env = decodeMessage(body.subarray(4), {
      1: ['typeMeta', { message: { 1: ['apiVersion', 'string'], 2: ['kind', 'string'] } }],
      2: ['raw', 'bytes'],
    });
    const tm = (env.typeMeta ?? {}) as { apiVersion?: string; kind?: string };
    const schema = KINDS[`${tm.apiVersion ?? ''}/${tm.kind ?? ''}`];
    if (!schema) throw unsupported(`protobuf is supported for ${Object.keys(KINDS).join(', ')} only`);
    const obj = decodeMessage(Buffer.from(plainText(env.raw ?? ''), 'base64'), schema);
    return { apiVersion: tm.apiVersion, kind: tm.kind, ...obj, metadata: obj.metadata ?? {} };
  } catch (e) {
    if (e instanceof ApiError) throw e;
    throw new ApiError(400, 'BadRequest', `the protobuf body could not be decoded: ${(e as Error).message}`);
  }
}
