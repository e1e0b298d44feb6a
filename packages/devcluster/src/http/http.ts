/** HTTP plumbing: content negotiation, request bodies, JSON responses and Status errors. */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { ApiError, badRequest } from '../objects/errors.js';
import { decodeProtobuf } from './protobuf.js';
import { duplicateFields } from './json-duplicates.js';
import { MAX_REQUEST_BODY_BYTES, requestEntityTooLarge } from '../objects/object-size.js';

export const JSON_TYPE = 'application/json';

export type Negotiated =
  | { as: 'Table'; apiVersion: string }
  | { as: 'PartialObjectMetadata' | 'PartialObjectMetadataList' }
  | { as: 'json' };

/** The representation an `Accept` header asks for (Table, PartialObjectMetadata or the object). */
export function negotiate(accept: string | undefined): Negotiated {
  if (!accept) return { as: 'json' };
  for (const part of accept.split(',')) {
    const params = new Map<string, string>();
    const [media, ...rest] = part.split(';');
    for (const p of rest) {
      const [k, v] = p.split('=');
      if (k && v) params.set(k.trim(), v.trim());
    }
    const as = params.get('as');
    const mt = media?.trim();
    if (as && params.get('g') === 'meta.k8s.io' && (mt === JSON_TYPE || mt === '*/*')) {
      const v = params.get('v') ?? 'v1';
      if (as === 'Table') return { as: 'Table', apiVersion: `meta.k8s.io/${v}` };
      if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') return { as };
      continue;
    }
    if (!as && (mt === JSON_TYPE || mt === '*/*' || mt === 'application/*')) return { as: 'json' };
  }
  return { as: 'json' };
}

export function send(res: ServerResponse, code: number, body: unknown, warnings?: string[]): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const headers: http.OutgoingHttpHeaders = {
    'Content-Type': JSON_TYPE,
    'Content-Length': Buffer.byteLength(text),
  };
  if (warnings?.length) headers.Warning = warnings.map((w) => `299 - ${JSON.stringify(w)}`);
  res.writeHead(code, headers);
  res.end(text);
}

export function sendError(res: ServerResponse, err: ApiError): void {
  send(res, err.code, err.toStatus());
}

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (refused) {
        // The client is still sending what was refused: read it away so that it sees the 413,
        // up to a bound.
        if (size > 8 * MAX_REQUEST_BODY_BYTES) req.destroy();
        return;
      }
      if (size > MAX_REQUEST_BODY_BYTES) {
        refused = true;
        chunks.length = 0;
        reject(requestEntityTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** `yaml.uniqueKeys: false` decodes repeated keys as Go's non-strict YAML decoder does: the last wins. */
export function parseBody(
  body: Buffer,
  contentType: string | undefined,
  yaml: { uniqueKeys?: false } = {},
): unknown {
  const ct = (contentType ?? JSON_TYPE).split(';')[0]?.trim().toLowerCase() ?? JSON_TYPE;
  if (ct === 'application/vnd.kubernetes.protobuf') return decodeProtobuf(body);
  if (ct !== JSON_TYPE && !ct.includes('json') && !ct.includes('yaml') && ct !== '*/*')
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf`,
    );
  const text = body.toString('utf8');
  try {
    return ct.includes('yaml') ? parseYaml(text, yaml) : JSON.parse(text);
  } catch (e) {
    throw badRequest(`the request body could not be decoded: ${(e as Error).message.split('\n')[0]}`);
  }
}

/** Keys a JSON body holds twice (none for YAML or protobuf bodies, whose decoders differ). */
export function jsonDuplicateFields(body: Buffer, contentType: string | undefined): string[] {
  const ct = (contentType ?? JSON_TYPE).split(';')[0]?.trim().toLowerCase() ?? JSON_TYPE;
  if (ct.includes('yaml') || ct.includes('protobuf')) return [];
  return duplicateFields(body.toString('utf8'));
}
