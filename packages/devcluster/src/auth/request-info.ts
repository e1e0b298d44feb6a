/**
 * What a request asks for, read from its method, path and query alone, as kube-apiserver's
 * RequestInfoFactory does (k8s.io/apiserver/pkg/endpoints/request/requestinfo.go). Authorization
 * runs on this before the request reaches its handler, so a refused request is refused the same
 * way whether or not the object or even the resource exists.
 *
 * - `/api/v1/<resource>…` and `/apis/<group>/<version>/<resource>…` are resource requests; every
 *   other path (discovery documents included) is a non-resource request with the method's verb.
 * - Verbs: POST create, GET/HEAD get (list without a name, watch with `?watch` or the `/watch/`
 *   prefix), PUT update, PATCH patch, DELETE delete (deletecollection without a name).
 * - `namespaces/<ns>/<resource>/<name>/<subresource>`; `namespaces/<ns>` itself (and its `status`
 *   and `finalize`) is the resource `namespaces` named `<ns>`.
 * - A list or watch whose field selector pins `metadata.name` names that object, so a rule with
 *   resourceNames can allow an informer on one object. The selector is parsed exactly as the
 *   list filter parses it (`field-selector.ts`); one that does not parse names nothing.
 * - The path comes decoded (`request-target.ts`), as Go's `URL.Path`.
 */
import { pinnedName } from '../query/field-selector.js';

export interface ResourceInfo {
  resourceRequest: true;
  verb: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  name: string;
  namespace: string;
}
export interface NonResourceInfo {
  resourceRequest: false;
  verb: string;
  path: string;
}
export type RequestInfo = ResourceInfo | NonResourceInfo;

const METHOD_VERBS: Record<string, string> = {
  POST: 'create',
  GET: 'get',
  HEAD: 'get',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

/** Query booleans as kube-apiserver parses them: anything but `0` / `false` is true. */
const truthy = (v: string | null): boolean => v !== null && v !== '0' && v.toLowerCase() !== 'false';

export function requestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const verb = METHOD_VERBS[method.toUpperCase()] ?? method.toLowerCase();
  const nonResource: NonResourceInfo = { resourceRequest: false, verb, path };
  const parts = path.split('/').filter((s) => s !== '');
  let apiGroup: string;
  let apiVersion: string;
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 3) {
    apiGroup = '';
    apiVersion = parts[1]!;
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    apiGroup = parts[1]!;
    apiVersion = parts[2]!;
    rest = parts.slice(3);
  } else return nonResource;

  const info: ResourceInfo = {
    resourceRequest: true,
    verb,
    apiGroup,
    apiVersion,
    resource: '',
    subresource: '',
    name: '',
    namespace: '',
  };
  if (rest[0] === 'watch') {
    info.verb = 'watch';
    rest = rest.slice(1);
  }
  if (rest[0] === 'namespaces' && rest.length > 1) {
    info.namespace = rest[1]!;
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2]!)) rest = rest.slice(2);
  }
  info.resource = rest[0] ?? '';
  info.name = rest[1] ?? '';
  info.subresource = rest[2] ?? '';

  if (info.name === '' && info.verb === 'get') {
    info.verb = truthy(query.get('watch')) ? 'watch' : 'list';
    const pinned = pinnedName(query.get('fieldSelector'));
    if (pinned) info.name = pinned;
  }
  if (info.name === '' && info.verb === 'delete') info.verb = 'deletecollection';
  return info;
}
