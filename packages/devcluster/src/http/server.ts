/**
 * The HTTP front of the devcluster: the server's lifecycle and the verb dispatch of resource requests.
 * Paths are resolved in `routes.ts`; lists in `list.ts`, watches in `watch.ts`, representations in
 * `output.ts`, HTTP plumbing in `http.ts`.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { ServingCert } from './tls.js';
import type { Cluster } from '../cluster/cluster.js';
import { ApiError, methodNotAllowed } from '../objects/errors.js';
import type { Access } from '../auth/access.js';
import { review, tokenRequest } from '../auth/endpoints.js';
import { isReviewType } from '../resources/auth-kinds.js';
import { requestInfo, type RequestInfo } from '../auth/request-info.js';
import { effectiveFieldSelector } from '../query/field-selector.js';
import { yamlDuplicateKeys } from './yaml-duplicates.js';
import { JSON_TYPE, jsonDuplicateFields, parseBody, readBody, send, sendError } from './http.js';
import { deleteCollection, serveList } from './list.js';
import { sendObject } from './output.js';
import { patchTypeOf } from '../objects/patch.js';
import { parseListOptions } from '../query/query.js';
import { storageKeyOf } from '../resources/resources.js';
import { BAD_REQUEST_TARGET, parseRequestTarget } from '../query/request-target.js';
import { admissionWarnings } from '../cluster/conflict-warnings.js';
import { deleteOptions, routeRequest, writeOptions, type Route } from './routes.js';
import type { WriteOptions } from '../cluster/strategy.js';
import type { UserInfo } from '../cluster/admission.js';
import { Watches } from './watch.js';

export interface ServerOptions {
  bookmarkIntervalMs?: number;
  /** Serve HTTPS with this key and certificate (plain HTTP without). */
  tls?: ServingCert;
}

/** A write to a resource path: the exchange, its route and query, who writes, the warnings to send back. */
interface ResourceWrite {
  req: IncomingMessage;
  res: ServerResponse;
  route: Route;
  q: URLSearchParams;
  user: UserInfo;
  opts: WriteOptions;
  warnings: string[];
  sub: 'status' | undefined;
}

const isTokenRequest = (i: RequestInfo): boolean =>
  i.resourceRequest && i.apiGroup === '' && i.resource === 'serviceaccounts' && i.subresource === 'token';

export class ApiServer {
  readonly server: http.Server;
  private readonly watches = new Watches();
  private address = '127.0.0.1:0';

  constructor(
    readonly cluster: Cluster,
    readonly access: Access,
    private readonly options: ServerOptions = {},
  ) {
    const serverOptions = { requestTimeout: 0, keepAliveTimeout: 65_000 };
    const handler = (req: IncomingMessage, res: ServerResponse): void => {
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
    };
    this.server = options.tls
      ? https.createServer({ ...serverOptions, ...options.tls }, handler)
      : http.createServer(serverOptions, handler);
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
    this.watches.startBookmarks(this.options.bookmarkIntervalMs ?? 10_000);
    return actual;
  }

  async close(): Promise<void> {
    this.watches.closeAll();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  get watchCount(): number {
    return this.watches.count;
  }

  /** Ends every open watch stream, as a restarting API server or a watch timeout does. */
  dropWatches(): number {
    return this.watches.drop();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // A malformed request target is answered before anything else, as Go's HTTP server does.
    const target = parseRequestTarget(req.url ?? '/');
    if (!target) {
      res.writeHead(BAD_REQUEST_TARGET.status, BAD_REQUEST_TARGET.headers);
      res.end(BAD_REQUEST_TARGET.body);
      return;
    }
    const { path, query: q } = target;
    const method = req.method ?? 'GET';
    // Authentication and authorization come first, from the URL alone, as in kube-apiserver's
    // filter chain: a refused request learns nothing about what exists.
    const info = requestInfo(method, path, q);
    const user = this.access.userOf(req.headers);
    this.access.authorizeRequest(info, user);
    if (isTokenRequest(info) && info.resourceRequest) {
      if (method !== 'POST') throw methodNotAllowed();
      const body = parseBody(await readBody(req), req.headers['content-type']);
      return send(
        res,
        201,
        tokenRequest(this.cluster, this.access, { namespace: info.namespace, name: info.name }, body),
      );
    }
    const route = routeRequest(req, res, path, { cluster: this.cluster, address: this.address });
    if (!route) return;
    if (isReviewType(route.type)) {
      if (method !== 'POST' || route.name) throw methodNotAllowed();
      const body = parseBody(await readBody(req), req.headers['content-type']);
      return send(res, 201, review(this.access, route.type.plural, user, body));
    }
    if (method === 'GET') return this.read(req, res, route, q);
    const warnings: string[] = [];
    const opts = writeOptions(q, warnings);
    opts.user = user;
    const sub = route.subresource === 'status' ? 'status' : undefined;
    const write: ResourceWrite = { req, res, route, q, user, opts, warnings, sub };
    switch (method) {
      case 'POST':
        return this.create(write);
      case 'PUT':
        return this.replace(write);
      case 'PATCH':
        return this.patch(write);
      case 'DELETE':
        return this.remove(write);
      default:
        throw methodNotAllowed();
    }
  }

  /** GET: one object, a list, or a watch. */
  private read(req: IncomingMessage, res: ServerResponse, route: Route, q: URLSearchParams): void {
    const t = route.type;
    if (route.name && !route.watch) {
      const stored = this.cluster.get(t, route.namespace, route.name);
      return sendObject(req, res, stored, { code: 200, t, q });
    }
    const lo = parseListOptions(q, route.watch);
    // The legacy `/watch/<plural>/<name>` path watches that one object.
    const fieldSelector = effectiveFieldSelector(q.get('fieldSelector'), route.name);
    const lq = new URLSearchParams(q);
    if (fieldSelector !== null) lq.set('fieldSelector', fieldSelector);
    const list = { route, q: lq, lo };
    if (lo.watch) return this.watches.serve(this.cluster, req, res, list);
    return serveList(this.cluster, req, res, list);
  }

  /** The write's options with the JSON body's duplicate fields (unless the request ignores them). */
  private withDuplicates(w: ResourceWrite, raw: Buffer): WriteOptions {
    if (w.opts.fieldValidation !== 'Ignore')
      w.opts.duplicateFields = jsonDuplicateFields(raw, w.req.headers['content-type']);
    return w.opts;
  }

  private async create(w: ResourceWrite): Promise<void> {
    const { req, res, route, q, warnings } = w;
    const t = route.type;
    if (route.name) throw methodNotAllowed();
    const raw = await readBody(req);
    const body = parseBody(raw, req.headers['content-type']);
    const stored = this.cluster.create(t, route.namespace, body, this.withDuplicates(w, raw));
    warnings.push(...admissionWarnings(this.cluster, t, stored.obj));
    return sendObject(req, res, stored, { code: 201, t, q, warnings });
  }

  private async replace(w: ResourceWrite): Promise<void> {
    const { req, res, route, q, warnings, sub } = w;
    const t = route.type;
    if (!route.name) throw methodNotAllowed();
    const raw = await readBody(req);
    const body = parseBody(raw, req.headers['content-type']);
    const target = { namespace: route.namespace, name: route.name, subresource: sub };
    const stored = this.cluster.update(t, target, body, this.withDuplicates(w, raw));
    if (!sub) warnings.push(...admissionWarnings(this.cluster, t, stored.obj));
    return sendObject(req, res, stored, { code: 200, t, q, warnings });
  }

  private async patch(w: ResourceWrite): Promise<void> {
    const { req, res, route, q, warnings, sub } = w;
    const t = route.type;
    const ns = route.namespace;
    if (!route.name) throw methodNotAllowed();
    const type = patchTypeOf(req.headers['content-type']);
    const raw = await readBody(req);
    const apply = type === 'apply';
    const body = parseBody(raw, apply ? 'application/yaml' : JSON_TYPE, { uniqueKeys: false });
    const writeOpts = w.opts;
    if (writeOpts.fieldValidation !== 'Ignore' && apply)
      writeOpts.applyDuplicateKeys = yamlDuplicateKeys(raw.toString('utf8'));
    else if (writeOpts.fieldValidation !== 'Ignore')
      writeOpts.duplicateFields = jsonDuplicateFields(raw, JSON_TYPE);
    const existed =
      apply &&
      !!this.cluster.store.get(storageKeyOf(t), ns && t.namespaced ? `${ns}/${route.name}` : route.name);
    const target = { namespace: ns, name: route.name, subresource: sub };
    const stored = this.cluster.patch(t, target, { type, body }, writeOpts);
    if (!sub) warnings.push(...admissionWarnings(this.cluster, t, stored.obj));
    return sendObject(req, res, stored, { code: apply && !existed ? 201 : 200, t, q, warnings });
  }

  private async remove(w: ResourceWrite): Promise<void> {
    const { req, res, route, q } = w;
    const raw = await readBody(req);
    const body = raw.toString('utf8').trim() ? parseBody(raw, req.headers['content-type']) : {};
    const opts = deleteOptions(body, q);
    opts.user = w.user;
    if (!route.name) return deleteCollection(this.cluster, res, { route, q, opts });
    const stored = this.cluster.delete(route.type, route.namespace, route.name, opts);
    return sendObject(req, res, stored, { code: 200, t: route.type, q });
  }
}
