/** Lists: selectors, resourceVersion semantics and pagination with continue tokens; collection deletes. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Cluster } from '../cluster/cluster.js';
import { ApiError, badRequest } from '../objects/errors.js';
import { negotiate, send } from './http.js';
import { outputJson } from './output.js';
import type { ListOptions } from '../query/query.js';
import { apiVersionOf, viewOf, type ResourceType } from '../resources/resources.js';
import type { Route } from './routes.js';
import { selectorPredicate, type Predicate } from '../query/selectors.js';
import type { StoredObject } from '../storage/store.js';
import { renderTable, type IncludeObject } from '../resources/table.js';
import { isObject, type KObject } from '../objects/types.js';
import type { DeleteOptions } from '../cluster/writes.js';

/** Selectors of a converting type are evaluated on its own form (`regarding.name`, not `involvedObject.name`). */
export function predicateFor(t: ResourceType, q: URLSearchParams): Predicate | undefined {
  const p = selectorPredicate(q.get('labelSelector') ?? undefined, q.get('fieldSelector') ?? undefined);
  const convert = t.convert;
  return p && convert ? (obj) => p(convert.fromStorage(obj)) : p;
}

function encodeContinue(rv: number, key: string): string {
  return Buffer.from(JSON.stringify({ rv, start: key })).toString('base64url');
}

function decodeContinue(token: string): { rv: number; start: string } {
  try {
    const v = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown;
    if (isObject(v) && typeof v.rv === 'number' && typeof v.start === 'string')
      return { rv: v.rv, start: v.start };
  } catch {
    // fall through
  }
  throw badRequest(
    'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
  );
}

const keyOf = (o: KObject): string =>
  o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : (o.metadata.name ?? '');

/** Objects for a list request, after selectors and pagination. */
function selectForList(
  cluster: Cluster,
  route: Route,
  q: URLSearchParams,
  lo: ListOptions,
): { items: StoredObject[]; rv: number; continue?: string; remaining?: number } {
  const t = route.type;
  const rvParam = lo.resourceVersion;
  const match = lo.resourceVersionMatch;
  const current = cluster.store.resourceVersion;
  if (rvParam && rvParam !== '0') {
    const want = Number(rvParam);
    if (!Number.isInteger(want) || want < 0) throw badRequest(`invalid resource version: ${rvParam}`);
    if (want > current)
      throw new ApiError(
        504,
        'Timeout',
        `Timeout: Too large resource version: ${want}, current: ${current}`,
        { retryAfterSeconds: 1 },
      );
    if (match === 'Exact' && want !== current)
      throw new ApiError(410, 'Expired', `The resourceVersion for the provided list is too old.`);
  }
  const predicate = predicateFor(t, q);
  let all = cluster.list(t, route.namespace);
  const cont = q.get('continue');
  let listRv = current;
  if (cont) {
    const token = decodeContinue(cont);
    listRv = token.rv;
    all = all.filter((s) => keyOf(s.obj) > token.start);
  }
  const filtered = predicate ? all.filter((s) => predicate(s.obj)) : all;
  const limit = lo.limit;
  if (limit > 0 && filtered.length > limit) {
    const items = filtered.slice(0, limit);
    const last = items[items.length - 1];
    return {
      items,
      rv: listRv,
      continue: encodeContinue(listRv, last ? keyOf(last.obj) : ''),
      remaining: filtered.length - limit,
    };
  }
  return { items: filtered, rv: listRv };
}

/** A list or watch request: its route, its query, and the list options read from that query. */
export interface ListRequest {
  route: Route;
  q: URLSearchParams;
  lo: ListOptions;
}

export function serveList(
  cluster: Cluster,
  req: IncomingMessage,
  res: ServerResponse,
  list: ListRequest,
): void {
  const { route, q, lo } = list;
  const t = route.type;
  const sel = selectForList(cluster, route, q, lo);
  const neg = negotiate(req.headers.accept);
  const meta: { resourceVersion: string; continue?: string; remainingItemCount?: number } = {
    resourceVersion: String(sel.rv),
  };
  if (sel.continue) meta.continue = sel.continue;
  if (sel.remaining !== undefined) meta.remainingItemCount = sel.remaining;
  if (neg.as === 'Table') {
    const include = (q.get('includeObject') ?? 'Metadata') as IncludeObject;
    return send(
      res,
      200,
      renderTable(
        t.table,
        sel.items.map((s) => viewOf(t, s.obj)),
        meta,
        { include, apiVersion: neg.apiVersion },
      ),
    );
  }
  if (neg.as === 'PartialObjectMetadata' || neg.as === 'PartialObjectMetadataList') {
    return send(res, 200, {
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1',
      metadata: meta,
      items: sel.items.map((s) => ({
        kind: 'PartialObjectMetadata',
        apiVersion: 'meta.k8s.io/v1',
        metadata: s.obj.metadata,
      })),
    });
  }
  // items are concatenated from their cached JSON: a list costs no re-serialization
  const head = JSON.stringify({ kind: t.listKind, apiVersion: apiVersionOf(t), metadata: meta });
  const body = `${head.slice(0, -1)},"items":[${sel.items.map((s) => outputJson(s, t)).join(',')}]}`;
  send(res, 200, body);
}

/** Deletes every object of the route's collection the query selects, answering the deleted ones. */
export function deleteCollection(
  cluster: Cluster,
  res: ServerResponse,
  collection: { route: Route; q: URLSearchParams; opts: DeleteOptions },
): void {
  const { route, q, opts } = collection;
  const t = route.type;
  const predicate = predicateFor(t, q);
  const targets = cluster.list(t, route.namespace).filter((s) => !predicate || predicate(s.obj));
  const results: StoredObject[] = [];
  for (const s of targets) {
    try {
      results.push(cluster.delete(t, s.obj.metadata.namespace, s.obj.metadata.name ?? '', opts));
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 404)) throw e;
    }
  }
  const head = JSON.stringify({
    kind: t.listKind,
    apiVersion: apiVersionOf(t),
    metadata: { resourceVersion: String(cluster.store.resourceVersion) },
  });
  send(res, 200, `${head.slice(0, -1)},"items":[${results.map((s) => outputJson(s, t)).join(',')}]}`);
}
