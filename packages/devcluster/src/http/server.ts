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
import { nodeSelectorWarnings } from '../cluster/selector-warnings.js';
import { deleteOptions, routeRequest, writeOptions } from './routes.js';
import { Watches } from './watch.js';

export interface ServerOptions {
  bookmarkIntervalMs?: number;
  /** Serve HTTPS with this key and certificate (plain HTTP without). */
  tls?: ServingCert;
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
    const route = routeRequest(req, res, path, this.cluster, this.address);
    if (!route) return;
    if (isReviewType(route.type)) {
      if (method !== 'POST' || route.name) throw methodNotAllowed();
      const body = parseBody(await readBody(req), req.headers['content-type']);
      return send(res, 201, review(this.access, route.type.plural, user, body));
    }
    const warnings: string[] = [];
    const t = route.type;
    const ns = route.namespace;

    if (method === 'GET') {
      if (route.name && !route.watch) {
        const stored = this.cluster.get(t, ns, route.name);
        return sendObject(req, res, 200, stored, t, q);
      }
      const lo = parseListOptions(q, route.watch);
      // The legacy `/watch/<plural>/<name>` path watches that one object.
      const fieldSelector = effectiveFieldSelector(q.get('fieldSelector'), route.name);
      const lq = new URLSearchParams(q);
      if (fieldSelector !== null) lq.set('fieldSelector', fieldSelector);
      if (lo.watch) return this.watches.serve(this.cluster, req, res, route, lq, lo);
      return serveList(this.cluster, req, res, route, lq, lo);
    }

    const writeOpts = writeOptions(q, warnings);
    writeOpts.user = user;
    const sub = route.subresource === 'status' ? 'status' : undefined;

    switch (method) {
      case 'POST': {
        if (route.name) throw methodNotAllowed();
        const raw = await readBody(req);
        const body = parseBody(raw, req.headers['content-type']);
        if (writeOpts.fieldValidation !== 'Ignore')
          writeOpts.duplicateFields = jsonDuplicateFields(raw, req.headers['content-type']);
        const stored = this.cluster.create(t, ns, body, writeOpts);
        warnings.push(...nodeSelectorWarnings(this.cluster, t, stored.obj));
        return sendObject(req, res, 201, stored, t, q, warnings);
      }
      case 'PUT': {
        if (!route.name) throw methodNotAllowed();
        const raw = await readBody(req);
        const body = parseBody(raw, req.headers['content-type']);
        if (writeOpts.fieldValidation !== 'Ignore')
          writeOpts.duplicateFields = jsonDuplicateFields(raw, req.headers['content-type']);
        const stored = this.cluster.update(
          t,
          { namespace: ns, name: route.name, subresource: sub },
          body,
          writeOpts,
        );
        if (!sub) warnings.push(...nodeSelectorWarnings(this.cluster, t, stored.obj));
        return sendObject(req, res, 200, stored, t, q, warnings);
      }
      case 'PATCH': {
        if (!route.name) throw methodNotAllowed();
        const type = patchTypeOf(req.headers['content-type']);
        const raw = await readBody(req);
        const apply = type === 'apply';
        const body = parseBody(raw, apply ? 'application/yaml' : JSON_TYPE, { uniqueKeys: false });
        if (writeOpts.fieldValidation !== 'Ignore' && apply)
          writeOpts.applyDuplicateKeys = yamlDuplicateKeys(raw.toString('utf8'));
        else if (writeOpts.fieldValidation !== 'Ignore')
          writeOpts.duplicateFields = jsonDuplicateFields(raw, JSON_TYPE);
        const existed =
          type === 'apply' &&
          !!this.cluster.store.get(storageKeyOf(t), ns && t.namespaced ? `${ns}/${route.name}` : route.name);
        const stored = this.cluster.patch(
          t,
          { namespace: ns, name: route.name, subresource: sub },
          { type, body },
          writeOpts,
        );
        if (!sub) warnings.push(...nodeSelectorWarnings(this.cluster, t, stored.obj));
        return sendObject(req, res, type === 'apply' && !existed ? 201 : 200, stored, t, q, warnings);
      }
      case 'DELETE': {
        const raw = await readBody(req);
        const body = raw.toString('utf8').trim() ? parseBody(raw, req.headers['content-type']) : {};
        const opts = deleteOptions(body, q);
        opts.user = user;
        if (!route.name) return deleteCollection(this.cluster, req, res, route, q, opts);
        const stored = this.cluster.delete(t, ns, route.name, opts);
        return sendObject(req, res, 200, stored, t, q);
      }
      default:
        throw methodNotAllowed();
    }
  }
}
