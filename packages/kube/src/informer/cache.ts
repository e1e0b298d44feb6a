/**
 * The one rule by which an informer's cache takes objects in, whatever brings them: a list, a watch
 * event, or a write this process made (`Informer.mutated`). Pure: a Map in, an event (or nothing) out.
 *
 * - Never backwards: an object older than the cached one (numeric resourceVersion) is ignored, so a
 *   late watch event cannot undo a write already fed back.
 * - No news, no event: the same resourceVersion as the cached object is not an update.
 * - A delete removes the entry and reports the last state known: the deleted object, or the cached
 *   one when that is newer.
 */
import type { KubeObject } from '../client/resources.js';

export type InformerEventType = 'add' | 'update' | 'delete' | 'resync';

export interface InformerEvent<T> {
  type: InformerEventType;
  object: T;
  old?: T;
}

export const objectKey = (o: KubeObject): string => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;

/** Compares numeric resourceVersions; `undefined` when either is not a plain integer (then opaque). */
export function compareResourceVersions(a: string | undefined, b: string | undefined): number | undefined {
  if (!a || !b || !/^\d+$/.test(a) || !/^\d+$/.test(b)) return undefined;
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

const isNewer = (a: KubeObject, b: KubeObject): boolean =>
  compareResourceVersions(a.metadata.resourceVersion, b.metadata.resourceVersion) === 1;

/** Adds or replaces `obj`; returns the event to deliver, or undefined when nothing changed. */
export function upsert<T extends KubeObject>(cache: Map<string, T>, obj: T): InformerEvent<T> | undefined {
  const k = objectKey(obj);
  const cur = cache.get(k);
  if (!cur) {
    cache.set(k, obj);
    return { type: 'add', object: obj };
  }
  if (isNewer(cur, obj) || cur.metadata.resourceVersion === obj.metadata.resourceVersion) return undefined;
  cache.set(k, obj);
  return { type: 'update', object: obj, old: cur };
}

/** Removes `obj`'s entry; returns the delete event, or undefined when it was not cached. */
export function remove<T extends KubeObject>(cache: Map<string, T>, obj: T): InformerEvent<T> | undefined {
  const k = objectKey(obj);
  const cur = cache.get(k);
  if (!cur) return undefined;
  cache.delete(k);
  return { type: 'delete', object: isNewer(cur, obj) ? cur : obj };
}

/**
 * Makes the cache equal to a full list taken at `listVersion`: upserts every item, removes what the
 * list lacks, except an entry newer than the list itself (a write fed back after the list was taken).
 */
export function replace<T extends KubeObject>(
  cache: Map<string, T>,
  items: readonly T[],
  listVersion: string | undefined,
): InformerEvent<T>[] {
  const events: InformerEvent<T>[] = [];
  const seen = new Set<string>();
  for (const obj of items) {
    seen.add(objectKey(obj));
    const e = upsert(cache, obj);
    if (e) events.push(e);
  }
  for (const [k, cur] of [...cache]) {
    if (seen.has(k)) continue;
    if (compareResourceVersions(cur.metadata.resourceVersion, listVersion) === 1) continue;
    const e = remove(cache, cur);
    if (e) events.push(e);
  }
  return events;
}
