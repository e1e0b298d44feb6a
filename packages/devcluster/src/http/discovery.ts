/** Discovery documents (/api, /apis, group and group-version resource lists, /version, /openapi/v3). */
import { apiVersionOf, type ResourceType } from '../resources/resources.js';
import { customResourceSchemas } from './openapi.js';

export const SERVER_VERSION = { major: '1', minor: '32', gitVersion: 'v1.32.0-nodenet-devcluster' };

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export function versionInfo(): Record<string, string> {
  return {
    ...SERVER_VERSION,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2025-01-01T00:00:00Z',
    goVersion: 'go1.23.0',
    compiler: 'gc',
    platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
  };
}

export function apiVersions(serverAddress: string): Record<string, unknown> {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

/** Versions per group in the order types were registered (the first is preferred). */
function groups(types: ResourceType[]): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const t of types) {
    if (!t.group) continue;
    const vs = m.get(t.group) ?? [];
    if (!vs.includes(t.version)) vs.push(t.version);
    m.set(t.group, vs);
  }
  return m;
}

function groupDoc(name: string, versions: string[]): Record<string, unknown> {
  const vs = versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
  return { name, versions: vs, preferredVersion: vs[0] };
}

export function apiGroupList(types: ResourceType[]): Record<string, unknown> {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: [...groups(types)]
      .sort((a, b) => a[0].localeCompare(b[0]))
      .map(([name, vs]) => groupDoc(name, vs)),
  };
}

export function apiGroup(types: ResourceType[], group: string): Record<string, unknown> | undefined {
  const vs = groups(types).get(group);
  return vs ? { kind: 'APIGroup', apiVersion: 'v1', ...groupDoc(group, vs) } : undefined;
}

export function apiResourceList(
  types: ResourceType[],
  group: string,
  version: string,
): Record<string, unknown> | undefined {
  const mine = types.filter((t) => t.group === group && t.version === version);
  if (mine.length === 0 && !(group === '' && version === 'v1')) return undefined;
  const resources: Record<string, unknown>[] = [];
  for (const t of mine.sort((a, b) => a.plural.localeCompare(b.plural))) {
    const r: Record<string, unknown> = {
      name: t.plural,
      singularName: t.singular,
      namespaced: t.namespaced,
      kind: t.kind,
      verbs: t.verbs ?? VERBS,
    };
    if (t.shortNames.length) r.shortNames = t.shortNames;
    if (t.categories.length) r.categories = t.categories;
    resources.push(r);
    if (t.statusSubresource)
      resources.push({
        name: `${t.plural}/status`,
        singularName: '',
        namespaced: t.namespaced,
        kind: t.kind,
        verbs: ['get', 'patch', 'update'],
      });
    for (const sub of t.subresources ?? [])
      resources.push({
        name: `${t.plural}/${sub.name}`,
        singularName: '',
        namespaced: t.namespaced,
        group: sub.group,
        version: sub.version,
        kind: sub.kind,
        verbs: sub.verbs,
      });
  }
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: apiVersionOf({ group, version }),
    resources,
  };
}

/**
 * OpenAPI v3: only as much as kubectl needs to learn that the server validates fields itself
 * (`fieldValidation`), so that `kubectl apply` sends `fieldValidation=Strict` instead of validating
 * client-side against an OpenAPI v2 document (which this server does not serve). Every served
 * group-version is listed, each with a PATCH operation per kind carrying the
 * `x-kubernetes-group-version-kind` extension and the `fieldValidation` query parameter. Strategic
 * merge is deliberately not advertised: kubectl then computes built-in patches from its compiled-in
 * types, which needs no schema from the server.
 */
const gvPath = (group: string, version: string): string =>
  group ? `apis/${group}/${version}` : `api/${version}`;

export function openApiV3Root(types: ResourceType[]): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const t of types) {
    const p = gvPath(t.group, t.version);
    paths[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${openApiHash(types, t.group, t.version)}` };
  }
  return { paths };
}

function openApiHash(types: ResourceType[], group: string, version: string): string {
  const kinds = types
    .filter((t) => t.group === group && t.version === version)
    .map((t) => `${t.kind}:${t.plural}:${t.namespaced}`)
    .sort()
    .join(',');
  let h = 0;
  for (let i = 0; i < kinds.length; i++) h = (Math.imul(h, 31) + kinds.charCodeAt(i)) | 0;
  return (h >>> 0).toString(16).toUpperCase().padStart(8, '0');
}

/** The OpenAPI v3 document of one group-version (`/openapi/v3/apis/<g>/<v>`), or undefined when not served. */
export function openApiV3GroupVersion(
  types: ResourceType[],
  group: string,
  version: string,
): Record<string, unknown> | undefined {
  const mine = types.filter((t) => t.group === group && t.version === version);
  if (mine.length === 0) return undefined;
  const param = (name: string): Record<string, unknown> => ({
    name,
    in: 'query',
    schema: { type: 'string', uniqueItems: true },
  });
  const paths: Record<string, unknown> = {};
  for (const t of mine) {
    const base = `/${gvPath(group, version)}${t.namespaced ? '/namespaces/{namespace}' : ''}/${t.plural}/{name}`;
    paths[base] = {
      patch: {
        description: `partially update the specified ${t.kind}`,
        operationId: `patch${t.kind}`,
        parameters: [param('dryRun'), param('fieldManager'), param('fieldValidation'), param('force')],
        requestBody: {
          content: {
            'application/json-patch+json': { schema: { type: 'object' } },
            'application/merge-patch+json': { schema: { type: 'object' } },
            'application/apply-patch+yaml': { schema: { type: 'object' } },
          },
          required: true,
        },
        responses: { '200': { description: 'OK' } },
        'x-kubernetes-action': 'patch',
        'x-kubernetes-group-version-kind': { group, kind: t.kind, version },
      },
    };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: SERVER_VERSION.gitVersion },
    paths,
    components: { schemas: customResourceSchemas(mine) },
  };
}
