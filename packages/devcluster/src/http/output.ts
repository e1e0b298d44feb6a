/** The JSON form of stored objects as a client asked for them: served version, Table or metadata only. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { negotiate, send } from './http.js';
import { apiVersionOf, viewOf, type ResourceType } from '../resources/resources.js';
import { jsonOf, type EventType, type StoredObject } from '../storage/store.js';
import { renderTable, type IncludeObject } from '../resources/table.js';

/** Output form of a stored object for a given served version (storage is shared across versions). */
export function outputJson(stored: StoredObject, t: ResourceType): string {
  const av = apiVersionOf(t);
  if (stored.obj.apiVersion === av) return jsonOf(stored);
  // converted views are cached per stored object and version, so a watch event is converted once
  const cache = stored as StoredObject & { views?: Map<string, string> };
  cache.views ??= new Map();
  let json = cache.views.get(av);
  if (json === undefined) {
    json = JSON.stringify(t.convert ? t.convert.fromStorage(stored.obj) : { ...stored.obj, apiVersion: av });
    cache.views.set(av, json);
  }
  return json;
}

/** `{"type":..,"object":..}\n`, built once per (event, type) and shared by every watcher of the same version. */
export function eventLine(type: EventType, stored: StoredObject, t: ResourceType, av: string): string {
  const cache = stored as StoredObject & { lines?: Partial<Record<EventType, string>> };
  if (stored.obj.apiVersion !== av) return `{"type":"${type}","object":${outputJson(stored, t)}}\n`;
  cache.lines ??= {};
  let line = cache.lines[type];
  if (line === undefined) {
    line = `{"type":"${type}","object":${jsonOf(stored)}}\n`;
    cache.lines[type] = line;
  }
  return line;
}

/** How one object is answered: the status code, its type, the request's query, the warnings to send. */
export interface ObjectReply {
  code: number;
  t: ResourceType;
  q: URLSearchParams;
  warnings?: string[];
}

/** Answers one object in the representation the request negotiated. */
export function sendObject(
  req: IncomingMessage,
  res: ServerResponse,
  stored: StoredObject,
  reply: ObjectReply,
): void {
  const { code, t, q, warnings } = reply;
  const neg = negotiate(req.headers.accept);
  if (neg.as === 'Table') {
    const include = (q.get('includeObject') ?? 'Metadata') as IncludeObject;
    return send(
      res,
      code,
      renderTable(
        t.table,
        [viewOf(t, stored.obj)],
        { resourceVersion: stored.obj.metadata.resourceVersion ?? '' },
        { include, apiVersion: neg.apiVersion },
      ),
      warnings,
    );
  }
  if (neg.as === 'PartialObjectMetadata' || neg.as === 'PartialObjectMetadataList')
    return send(
      res,
      code,
      { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: stored.obj.metadata },
      warnings,
    );
  send(res, code, outputJson(stored, t), warnings);
}
