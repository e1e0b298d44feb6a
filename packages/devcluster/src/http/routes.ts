/**
 * Where a request goes: health, version, discovery and OpenAPI documents are answered here; a resource
 * path becomes a `Route` (type, namespace, name, subresource, watch). Also the write and delete options
 * a request carries.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Cluster } from '../cluster/cluster.js';
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
import { ApiError, badRequest } from '../objects/errors.js';
import { send } from './http.js';
import { encodeOpenApiV2, openApiV2 } from './openapi.js';
import type { ResourceType } from '../resources/resources.js';
import type { WriteOptions } from '../cluster/strategy.js';
import { isObject } from '../objects/types.js';
import type { DeleteOptions, PropagationPolicy } from '../cluster/writes.js';

export interface Route {
  type: ResourceType;
  namespace?: string;
  name?: string;
  subresource?: string;
  watch: boolean;
}

const notFoundPath = (): ApiError =>
  new ApiError(404, 'NotFound', 'the server could not find the requested resource');

/** The server a request reaches: its cluster, and the address it listens on (for discovery). */
export interface RouteSite {
  cluster: Cluster;
  address: string;
}

/**
 * Answers the non-resource paths and the discovery documents (returns undefined then), or resolves a
 * resource path to its route.
 */
export function routeRequest(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  site: RouteSite,
): Route | undefined {
  const { cluster } = site;
  const answer = (body: unknown): undefined => {
    send(res, 200, body);
    return undefined;
  };
  if (answerFixedPath(req, res, path, site)) return undefined;
  if (path.startsWith('/openapi/v3/')) {
    const m = path.match(/^\/openapi\/v3\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))$/);
    const doc = m ? openApiV3GroupVersion(cluster.allTypes(), m[2] ?? '', m[1] ?? m[3] ?? '') : undefined;
    if (!doc) throw notFoundPath();
    return answer(doc);
  }

  // The path arrives decoded (request-target.ts), as kube-apiserver reads req.URL.Path.
  const segs = path.split('/').filter((s) => s !== '');
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
      const doc = apiGroup(cluster.allTypes(), group);
      if (!doc) throw notFoundPath();
      return answer(doc);
    }
    version = segs[2] ?? '';
    rest = segs.slice(3);
  } else {
    throw notFoundPath();
  }
  if (rest.length === 0) {
    const doc = apiResourceList(cluster.allTypes(), group, version);
    if (!doc) throw notFoundPath();
    return answer(doc);
  }

  return resourceRoute(cluster, group, version, rest);
}

/** Answers version, health and the OpenAPI roots; false for any other path. */
function answerFixedPath(req: IncomingMessage, res: ServerResponse, path: string, site: RouteSite): boolean {
  const { cluster } = site;
  const answer = (body: unknown): true => {
    send(res, 200, body);
    return true;
  };
  switch (path) {
    case '/version':
      return answer(versionInfo());
    case '/healthz':
    case '/readyz':
    case '/livez':
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('ok');
      return true;
    case '/api':
      return answer(apiVersions(site.address));
    case '/apis':
      return answer(apiGroupList(cluster.allTypes()));
    case '/openapi/v3':
      return answer(openApiV3Root(cluster.allTypes()));
    case '/openapi/v2': {
      const doc = openApiV2(cluster.allTypes(), SERVER_VERSION.gitVersion);
      if (!(req.headers.accept ?? '').includes('protobuf')) return answer(doc);
      // The accept type has an '@' that Go's mime parser refuses in a Content-Type; kube-openapi answers
      // protobuf as octet-stream too.
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      res.end(encodeOpenApiV2(doc));
      return true;
    }
    default:
      return false;
  }
}

function resourceRoute(cluster: Cluster, group: string, version: string, rest: string[]): Route {
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
  const type = cluster.typeFor(group, version, plural);
  const nf = notFoundPath;
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

/** `?dryRun`, `?fieldManager` and `?fieldValidation` of a write. */
export function writeOptions(q: URLSearchParams, warnings: string[]): WriteOptions {
  const opts: WriteOptions = { dryRun: q.getAll('dryRun').includes('All'), warnings };
  const fieldManager = q.get('fieldManager');
  if (fieldManager) opts.fieldManager = fieldManager;
  const fv = q.get('fieldValidation');
  if (fv === 'Strict' || fv === 'Warn' || fv === 'Ignore') opts.fieldValidation = fv;
  else if (fv) throw badRequest(`fieldValidation ${fv} is invalid, valid values are: Ignore, Warn, Strict`);
  return opts;
}

/** DeleteOptions from the body and the query (`propagationPolicy`, `orphanDependents`, `dryRun`). */
export function deleteOptions(body: unknown, q: URLSearchParams): DeleteOptions {
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
