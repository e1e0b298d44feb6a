/**
 * The HTTP front of the devcluster: Kubernetes REST paths, content negotiation (JSON, Table,
 * PartialObjectMetadata), list pagination and streaming watches.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { parse as parseYaml } from 'yaml';
import {
  Cluster,
  type DeleteOptions,
  type FieldValidation,
  type PropagationPolicy,
  type WriteOptions,
} from './cluster.js';
import {
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  openApiV3GroupVersion,
  openApiV3Root,
  SERVER_VERSION,
  versionInfo,
} from './discovery.js';
import { encodeOpenApiV2, openApiV2 } from './openapi.js';
import { parseListOptions, type ListOptions } from './query.js';

import { ApiError, badRequest, methodNotAllowed } from './errors.js';
import { patchTypeOf } from './patch.js';
import { decodeProtobuf } from './protobuf.js';
import { apiVersionOf, storageKeyOf, viewOf, type ResourceType } from './resources.js';
import { selectedName, selectorPredicate, type Predicate } from './selectors.js';
import { GoneError, jsonOf, type EventType, type StoredObject, type Watcher } from './store.js';
import { renderTable, tableRow, type IncludeObject } from './table.js';
import { isObject, type KObject } from './types.js';

const JSON_TYPE = 'application/json';
const MAX_BODY = 8 * 1024 * 1024;
/** A watcher this far behind is cut off (the client re-lists), like the real server's slow-consumer handling. */
const MAX_WATCH_BACKLOG = 16 * 1024 * 1024;

export interface ServerOptions {
  bookmarkIntervalMs?: number;
}

interface Route {
  type: ResourceType;
  namespace?: string;
  name?: string;
  subresource?: string;
  watch: boolean;
}

type Negotiated =
  | { as: 'Table'; apiVersion: string }
  | { as: 'PartialObjectMetadata' | 'PartialObjectMetadataList' }
  | { as: 'json' };

function negotiate(accept: string | undefined): Negotiated {
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

function send(res: ServerResponse, code: number, body: unknown, warnings?: string[]): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const headers: http.OutgoingHttpHeaders = {
    'Content-Type': JSON_TYPE,
    'Content-Length': Buffer.byteLength(text),
  };
  if (warnings?.length) headers.Warning = warnings.map((w) => `299 - ${JSON.stringify(w)}`);
  res.writeHead(code, headers);
  res.end(text);
}

function sendError(res: ServerResponse, err: ApiError): void {
  send(res, err.code, err.toStatus());
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(new ApiError(413, 'RequestEntityTooLarge', 'the request body is too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function parseBody(body: Buffer, contentType: string | undefined): unknown {
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
    return ct.includes('yaml') ? parseYaml(text) : JSON.parse(text);
  } catch (e) {
    throw badRequest(`the request body could not be decoded: ${(e as Error).message.split('\n')[0]}`);
  }
}

/** Output form of a stored object for a given served version (storage is shared across versions). */
function outputJson(stored: StoredObject, t: ResourceType): string {
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

/** Selectors of a converting type are evaluated on its own form (`regarding.name`, not `involvedObject.name`). */
function predicateFor(t: ResourceType, q: URLSearchParams): Predicate | undefined {
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

export class ApiServer {
  readonly server: http.Server;
  private readonly watches = new Set<{ res: ServerResponse; bookmark?: () => void; close?: () => void }>();
  private bookmarkTimer?: NodeJS.Timeout;
  private address = '127.0.0.1:0';

  constructor(
    readonly cluster: Cluster,
    private readonly options: ServerOptions = {},
  ) {
    this.server = http.createServer({ requestTimeout: 0, keepAliveTimeout: 65_000 }, (req, res) => {
      this.handle(req, res).catch((e: unknown) => {
        if (e instanceof ApiError) sendError(res, e);
        else {
          console.error('devcluster internal error:', e);
          if (!res.headersSent)
            sendError(
              res,
              new ApiError(500, 'InternalError', `Internal error occurred: ${(e as Error).message}`),
            );
          else res.destroy();
        }
      });
    });
    this.server.maxHeadersCount = 200;
  }

  async listen(port: number, host = '127.0.0.1'): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => resolve());
    });
    const addr = this.server.address();
    const actual = typeof addr === 'object' && addr ? addr.port : port;
    this.address = `${host}:${actual}`;
    this.bookmarkTimer = setInterval(() => {
      for (const w of this.watches) w.bookmark?.();
    }, this.options.bookmarkIntervalMs ?? 10_000);
    this.bookmarkTimer.unref();
    return actual;
  }

  async close(): Promise<void> {
    if (this.bookmarkTimer) clearInterval(this.bookmarkTimer);
    for (const w of this.watches) w.res.end();
    this.watches.clear();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  get watchCount(): number {
    return this.watches.size;
  }

  /** Ends every open watch stream, as a restarting API server or a watch timeout does. */
  dropWatches(): number {
    const all = [...this.watches];
    for (const w of all) (w.close ?? (() => w.res.end()))();
    return all.length;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://devcluster');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const method = req.method ?? 'GET';
    const q = url.searchParams;

    switch (path) {
      case '/version':
        return send(res, 200, versionInfo());
      case '/healthz':
      case '/readyz':
      case '/livez':
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end('ok');
        return;
      case '/api':
        return send(res, 200, apiVersions(this.address));
      case '/apis':
        return send(res, 200, apiGroupList(this.cluster.allTypes()));
      case '/openapi/v3':
        return send(res, 200, openApiV3Root(this.cluster.allTypes()));
      case '/openapi/v2': {
        const doc = openApiV2(this.cluster.allTypes(), SERVER_VERSION.gitVersion);
        if (!(req.headers.accept ?? '').includes('protobuf')) return send(res, 200, doc);
        // The accept type has an '@' that Go's mime parser refuses in a Content-Type; kube-openapi answers
        // protobuf as octet-stream too.
        res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
        res.end(encodeOpenApiV2(doc));
        return;
      }
    }
    if (path.startsWith('/openapi/v3/')) {
      const m = path.match(/^\/openapi\/v3\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))$/);
      const doc = m
        ? openApiV3GroupVersion(this.cluster.allTypes(), m[2] ?? '', m[1] ?? m[3] ?? '')
        : undefined;
      if (!doc) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
      return send(res, 200, doc);
    }

    const segs = path
      .split('/')
      .filter((s) => s !== '')
      .map(decodeURIComponent);
    let group: string;
    let version: string;
    let rest: string[];
    if (segs[0] === 'api' && segs.length >= 2) {
      group = '';
      version = segs[1] ?? '';
      rest = segs.slice(2);
    } else if (segs[0] === 'apis' && segs.length >= 2) {
      group = segs[1] ?? '';
      if (segs.length === 2) {
        const doc = apiGroup(this.cluster.allTypes(), group);
        if (!doc) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
        return send(res, 200, doc);
      }
      version = segs[2] ?? '';
      rest = segs.slice(3);
    } else {
      throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    }
    if (rest.length === 0) {
      const doc = apiResourceList(this.cluster.allTypes(), group, version);
      if (!doc) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
      return send(res, 200, doc);
    }

    const route = this.route(group, version, rest);
    const warnings: string[] = [];
    const t = route.type;
    const ns = route.namespace;

    if (method === 'GET') {
      if (route.name && !route.watch) {
        const stored = this.cluster.get(t, ns, route.name);
        return this.sendObject(req, res, 200, stored, t, q);
      }
      const lo = parseListOptions(q, route.watch);
      if (lo.watch) return this.serveWatch(req, res, route, q, lo);
      return this.serveList(req, res, route, q, lo);
    }

    const writeOpts: WriteOptions = { dryRun: q.getAll('dryRun').includes('All'), warnings };
    const fieldManager = q.get('fieldManager');
    if (fieldManager) writeOpts.fieldManager = fieldManager;
    const fv = q.get('fieldValidation');
    if (fv === 'Strict' || fv === 'Warn' || fv === 'Ignore')
      writeOpts.fieldValidation = fv as FieldValidation;
    else if (fv) throw badRequest(`fieldValidation ${fv} is invalid, valid values are: Ignore, Warn, Strict`);
    const sub = route.subresource === 'status' ? 'status' : undefined;

    switch (method) {
      case 'POST': {
        if (route.name) throw methodNotAllowed();
        const body = parseBody(await readBody(req), req.headers['content-type']);
        const stored = this.cluster.create(t, ns, body, writeOpts);
        return this.sendObject(req, res, 201, stored, t, q, warnings);
      }
      case 'PUT': {
        if (!route.name) throw methodNotAllowed();
        const body = parseBody(await readBody(req), req.headers['content-type']);
        const stored = this.cluster.update(t, ns, route.name, body, writeOpts, sub);
        return this.sendObject(req, res, 200, stored, t, q, warnings);
      }
      case 'PATCH': {
        if (!route.name) throw methodNotAllowed();
        const type = patchTypeOf(req.headers['content-type']);
        const body = parseBody(await readBody(req), type === 'apply' ? 'application/yaml' : JSON_TYPE);
        const existed =
          type === 'apply' &&
          !!this.cluster.store.get(storageKeyOf(t), ns && t.namespaced ? `${ns}/${route.name}` : route.name);
        const stored = this.cluster.patch(t, ns, route.name, type, body, writeOpts, sub);
        return this.sendObject(req, res, type === 'apply' && !existed ? 201 : 200, stored, t, q, warnings);
      }
      case 'DELETE': {
        const raw = await readBody(req);
        const body = raw.toString('utf8').trim() ? parseBody(raw, req.headers['content-type']) : {};
        const opts = this.deleteOptions(body, q);
        if (!route.name) return this.deleteCollection(req, res, route, q, opts);
        const stored = this.cluster.delete(t, ns, route.name, opts);
        return this.sendObject(req, res, 200, stored, t, q);
      }
      default:
        throw methodNotAllowed();
    }
  }

  private route(group: string, version: string, rest: string[]): Route {
    let watch = false;
    if (rest[0] === 'watch') {
      watch = true;
      rest = rest.slice(1);
    }
    let namespace: string | undefined;
    if (
      rest[0] === 'namespaces' &&
      rest.length >= 3 &&
      !(rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize'))
    ) {
      namespace = rest[1];
      rest = rest.slice(2);
    }
    const [plural = '', name, subresource, ...extra] = rest;
    const type = this.cluster.typeFor(group, version, plural);
    const nf = (): ApiError =>
      new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    if (!type || extra.length) throw nf();
    if (namespace !== undefined && !type.namespaced) throw nf();
    if (name !== undefined && type.namespaced && namespace === undefined) throw nf();
    if (
      subresource !== undefined &&
      !(subresource === 'status' && type.statusSubresource) &&
      !(subresource === 'finalize' && plural === 'namespaces')
    )
      throw nf();
    const r: Route = { type, watch };
    if (namespace !== undefined) r.namespace = namespace;
    if (name !== undefined) r.name = name;
    if (subresource !== undefined) r.subresource = subresource === 'finalize' ? undefined : subresource;
    return r;
  }

  private deleteOptions(body: unknown, q: URLSearchParams): DeleteOptions {
    const opts: DeleteOptions = {};
    const b = isObject(body) ? body : {};
    let policy = (q.get('propagationPolicy') ?? b.propagationPolicy) as string | undefined;
    const orphan =
      q.get('orphanDependents') ??
      (typeof b.orphanDependents === 'boolean' ? String(b.orphanDependents) : undefined);
    if (!policy && orphan !== undefined)
      policy = orphan === '0' || orphan.toLowerCase() === 'false' ? 'Background' : 'Orphan';
    if (policy !== undefined) {
      if (!['Background', 'Foreground', 'Orphan'].includes(policy))
        throw new ApiError(
          422,
          'Invalid',
          `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan", "nil"`,
        );
      opts.propagationPolicy = policy as PropagationPolicy;
    }
    if (isObject(b.preconditions)) {
      const p = b.preconditions;
      opts.preconditions = {};
      if (typeof p.uid === 'string') opts.preconditions.uid = p.uid;
      if (typeof p.resourceVersion === 'string') opts.preconditions.resourceVersion = p.resourceVersion;
    }
    const dry = q.getAll('dryRun');
    if (dry.includes('All') || (Array.isArray(b.dryRun) && b.dryRun.includes('All'))) opts.dryRun = true;
    return opts;
  }

  private sendObject(
    req: IncomingMessage,
    res: ServerResponse,
    code: number,
    stored: StoredObject,
    t: ResourceType,
    q: URLSearchParams,
    warnings?: string[],
  ): void {
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
          include,
          neg.apiVersion,
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

  /** Objects for a list request, after selectors and pagination. */
  private selectForList(
    route: Route,
    q: URLSearchParams,
    lo: ListOptions,
  ): { items: StoredObject[]; rv: number; continue?: string; remaining?: number } {
    const t = route.type;
    const rvParam = lo.resourceVersion;
    const match = lo.resourceVersionMatch;
    const current = this.cluster.store.resourceVersion;
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
    let all = this.cluster.list(t, route.namespace);
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

  private serveList(
    req: IncomingMessage,
    res: ServerResponse,
    route: Route,
    q: URLSearchParams,
    lo: ListOptions,
  ): void {
    const t = route.type;
    const sel = this.selectForList(route, q, lo);
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
          include,
          neg.apiVersion,
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

  private deleteCollection(
    req: IncomingMessage,
    res: ServerResponse,
    route: Route,
    q: URLSearchParams,
    opts: DeleteOptions,
  ): void {
    const t = route.type;
    const predicate = predicateFor(t, q);
    const targets = this.cluster.list(t, route.namespace).filter((s) => !predicate || predicate(s.obj));
    const results: StoredObject[] = [];
    for (const s of targets) {
      try {
        results.push(this.cluster.delete(t, s.obj.metadata.namespace, s.obj.metadata.name ?? '', opts));
      } catch (e) {
        if (!(e instanceof ApiError && e.code === 404)) throw e;
      }
    }
    const head = JSON.stringify({
      kind: t.listKind,
      apiVersion: apiVersionOf(t),
      metadata: { resourceVersion: String(this.cluster.store.resourceVersion) },
    });
    send(res, 200, `${head.slice(0, -1)},"items":[${results.map((s) => outputJson(s, t)).join(',')}]}`);
  }

  private serveWatch(
    req: IncomingMessage,
    res: ServerResponse,
    route: Route,
    q: URLSearchParams,
    lo: ListOptions,
  ): void {
    const t = route.type;
    const store = this.cluster.store;
    const predicate = predicateFor(t, q);
    const neg = negotiate(req.headers.accept);
    const av = apiVersionOf(t);
    const include = (q.get('includeObject') ?? 'Metadata') as IncludeObject;
    const rvParam = q.get('resourceVersion');
    const sendInitial = lo.sendInitialEvents === true;
    const bookmarks = lo.allowWatchBookmarks;

    res.writeHead(200, {
      'Content-Type': JSON_TYPE,
      'Transfer-Encoding': 'chunked',
      'Cache-Control': 'no-cache, private',
    });
    res.flushHeaders();
    res.socket?.setNoDelay(true);

    let closed = false;
    let timer: NodeJS.Timeout | undefined;
    let unregister: (() => void) | undefined;
    const entry: { res: ServerResponse; bookmark?: () => void; close?: () => void } = { res };
    const close = (): void => {
      if (closed) return;
      closed = true;
      unregister?.();
      this.watches.delete(entry);
      if (timer) clearTimeout(timer);
      if (!res.writableEnded) res.end();
    };
    entry.close = close;
    // Events committed in the same event-loop turn (a burst of writes) go out in one writev per
    // watcher instead of one syscall per event: corked here, flushed by a setImmediate.
    let corked = false;
    const write = (line: string): void => {
      if (closed) return;
      if (!corked) {
        corked = true;
        res.cork();
        setImmediate(() => {
          corked = false;
          res.uncork();
        });
      }
      res.write(line);
      if (res.writableLength > MAX_WATCH_BACKLOG) {
        close();
        res.destroy();
      }
    };

    const render =
      neg.as === 'Table'
        ? (type: EventType, stored: StoredObject): string =>
            `{"type":"${type}","object":${JSON.stringify({
              kind: 'Table',
              apiVersion: neg.apiVersion,
              metadata: { resourceVersion: stored.obj.metadata.resourceVersion },
              columnDefinitions: t.table.columns,
              rows: [tableRow(t.table, viewOf(t, stored.obj), Date.now(), include)],
            })}}\n`
        : neg.as === 'PartialObjectMetadata' || neg.as === 'PartialObjectMetadataList'
          ? (type: EventType, stored: StoredObject): string =>
              `{"type":"${type}","object":${JSON.stringify({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: stored.obj.metadata })}}\n`
          : (type: EventType, stored: StoredObject): string => eventLine(type, stored, t, av);

    const bookmarkLine = (initialEnd = false): string =>
      `{"type":"BOOKMARK","object":${JSON.stringify({
        kind: neg.as === 'Table' ? 'Table' : t.kind,
        apiVersion: neg.as === 'Table' ? neg.apiVersion : av,
        metadata: initialEnd
          ? {
              resourceVersion: String(store.resourceVersion),
              annotations: { 'k8s.io/initial-events-end': 'true' },
            }
          : { resourceVersion: String(store.resourceVersion) },
      })}}\n`;

    const name = selectedName(q.get('fieldSelector') ?? undefined);
    const watcher: Watcher = {
      ...(t.namespaced && route.namespace !== undefined ? { namespace: route.namespace } : {}),
      ...(name !== undefined ? { name } : {}),
      ...(predicate ? { predicate } : {}),
      deliver: (type, stored) => write(render(type, stored)),
    };

    if (!rvParam || rvParam === '0' || sendInitial) {
      // start from the current state: synthetic ADDED events, then live events (all synchronous, so none is missed)
      for (const s of this.cluster.list(t, route.namespace))
        if (!predicate || predicate(s.obj)) write(render('ADDED', s));
      if (sendInitial && bookmarks) write(bookmarkLine(true));
      unregister = store.watch(storageKeyOf(t), watcher);
    } else {
      const since = Number(rvParam);
      if (!Number.isInteger(since) || since < 0) {
        write(
          `{"type":"ERROR","object":${JSON.stringify(badRequest(`invalid resource version: ${rvParam}`).toStatus())}}\n`,
        );
        return close();
      }
      try {
        unregister = store.watch(storageKeyOf(t), watcher, since);
      } catch (e) {
        if (!(e instanceof GoneError)) throw e;
        const status = new ApiError(
          410,
          'Expired',
          `too old resource version: ${since} (${e.oldest + 1})`,
        ).toStatus();
        write(`{"type":"ERROR","object":${JSON.stringify(status)}}\n`);
        return close();
      }
    }
    if (bookmarks) entry.bookmark = () => write(bookmarkLine());
    this.watches.add(entry);
    const timeout = lo.timeoutSeconds;
    if (timeout > 0) timer = setTimeout(close, timeout * 1000);
    req.on('close', close);
    res.on('close', close);
    res.on('error', close);
  }
}

/** `{"type":..,"object":..}\n`, built once per (event, type) and shared by every watcher of the same version. */
function eventLine(type: EventType, stored: StoredObject, t: ResourceType, av: string): string {
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
