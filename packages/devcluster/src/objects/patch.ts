/**
 * The patch formats of the Kubernetes API: JSON patch (RFC 6902, via fast-json-patch), JSON merge
 * patch (RFC 7386) and strategic merge patch for built-in kinds (with the merge keys of the fields
 * those kinds use: conditions by type, addresses by type, ownerReferences by uid, finalizers as a set).
 */
import jsonpatch from 'fast-json-patch';
import { ApiError, badRequest } from './errors.js';
import { clone, isObject } from './types.js';

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

export function patchTypeOf(contentType: string | undefined): PatchType {
  const ct = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  switch (ct) {
    case 'application/json-patch+json':
      return 'json';
    case 'application/merge-patch+json':
      return 'merge';
    case 'application/strategic-merge-patch+json':
      return 'strategic';
    case 'application/apply-patch+yaml':
    case 'application/apply-patch+json':
      return 'apply';
    default:
      throw new ApiError(
        415,
        'UnsupportedMediaType',
        `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json`,
      );
  }
}

export function applyJsonPatch(doc: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw badRequest('json patch must be an array of operations');
  try {
    return jsonpatch.applyPatch(clone(doc), ops as jsonpatch.Operation[], true, true).newDocument;
  } catch (e) {
    const msg = e instanceof Error ? e.message.split('\n')[0] : String(e);
    throw new ApiError(
      422,
      'Invalid',
      `the server rejected our request due to an error in our request: ${msg}`,
    );
  }
}

/** RFC 7386: objects merge recursively, null deletes, everything else replaces. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch);
  const result: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete result[k];
    else result[k] = applyMergePatch(result[k], v);
  }
  return result;
}

const MERGE_KEYS: Record<string, string> = {
  conditions: 'type',
  addresses: 'type',
  ownerReferences: 'uid',
  images: 'names',
  volumesInUse: '',
};
const SET_LISTS = new Set(['finalizers']);

/** Strategic merge patch as the API server applies it to the built-in kinds this server serves. */
export function applyStrategicMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch);
  if (patch.$patch === 'replace') {
    const { $patch: _ignored, ...rest } = patch;
    return clone(rest);
  }
  const result: Record<string, unknown> = isObject(target) ? { ...target } : {};
  let retainKeys: string[] | undefined;
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$patch') continue;
    if (k === '$retainKeys') {
      if (Array.isArray(v)) retainKeys = v.map(String);
      continue;
    }
    if (k.startsWith('$setElementOrder/')) continue;
    if (k.startsWith('$deleteFromPrimitiveList/')) {
      const field = k.slice('$deleteFromPrimitiveList/'.length);
      const cur = result[field];
      if (Array.isArray(cur) && Array.isArray(v)) result[field] = cur.filter((x) => !v.includes(x));
      continue;
    }
    if (v === null) delete result[k];
    else if (Array.isArray(v)) result[k] = mergeList(result[k], v, k);
    else if (isObject(v)) {
      if (v.$patch === 'delete') delete result[k];
      else result[k] = applyStrategicMergePatch(result[k], v);
    } else result[k] = v;
  }
  if (retainKeys) for (const k of Object.keys(result)) if (!retainKeys.includes(k)) delete result[k];
  return result;
}

function mergeList(current: unknown, patch: unknown[], field: string): unknown[] {
  const cur: unknown[] = Array.isArray(current) ? current : [];
  if (patch.some((p) => isObject(p) && p.$patch === 'replace')) {
    return clone(patch.filter((p) => !(isObject(p) && p.$patch === 'replace')));
  }
  if (SET_LISTS.has(field)) {
    const out = [...cur];
    for (const p of patch) if (!out.includes(p)) out.push(p);
    return out;
  }
  const key = MERGE_KEYS[field];
  if (!key) return clone(patch);
  const out = cur.map((x) => x);
  for (const p of patch) {
    if (!isObject(p)) continue;
    const idx = out.findIndex((x) => isObject(x) && x[key] === p[key]);
    if (p.$patch === 'delete') {
      if (idx >= 0) out.splice(idx, 1);
    } else if (idx >= 0) out[idx] = applyStrategicMergePatch(out[idx], p);
    else out.push(applyStrategicMergePatch(undefined, p));
  }
  return out;
}
