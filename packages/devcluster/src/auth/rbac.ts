/**
 * RBAC authorization (rbac.authorization.k8s.io/v1), pure, with kube-apiserver's semantics:
 *
 * - ClusterRoleBinding grants its ClusterRole everywhere (every namespace, cluster-scoped objects,
 *   non-resource URLs); RoleBinding grants its Role or ClusterRole only in the binding's namespace,
 *   and never non-resource URLs.
 * - Subjects: User (by name), Group (member of), ServiceAccount (`system:serviceaccount:<ns>:<name>`).
 * - Rules: verbs, apiGroups and resources with `*`; `resource/subresource` and `* /subresource`
 *   (a bare `*` covers subresources too); resourceNames limit requests that name an object (so a
 *   list or create never matches a rule with resourceNames); nonResourceURLs exact or with a
 *   trailing `*` prefix.
 * - The bootstrap roles every cluster has that decide what any authenticated user may do:
 *   cluster-admin for system:masters, discovery, public info and self-reviews.
 * Aggregated ClusterRoles are not implemented (not needed by anything here).
 */
import type { UserInfo } from './admission-policy.js';

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}
export interface Role {
  metadata: { name: string; namespace?: string };
  rules?: PolicyRule[];
}
export interface Subject {
  kind: 'User' | 'Group' | 'ServiceAccount';
  name: string;
  namespace?: string;
}
export interface Binding {
  metadata: { name: string; namespace?: string };
  roleRef: { kind: 'Role' | 'ClusterRole'; name: string; apiGroup?: string };
  subjects?: Subject[];
}
export interface RbacObjects {
  roles: readonly Role[];
  clusterRoles: readonly Role[];
  roleBindings: readonly Binding[];
  clusterRoleBindings: readonly Binding[];
}

/** What is asked, as kube-apiserver's RequestInfo describes it. */
export type RequestAttributes =
  | {
      resourceRequest: true;
      user: UserInfo;
      verb: string;
      apiGroup: string;
      resource: string;
      subresource: string;
      name: string;
      namespace: string;
    }
  | { resourceRequest: false; user: UserInfo; verb: string; path: string };

export type Decision = { allowed: true; reason: string } | { allowed: false };

/** The roles kube-apiserver bootstraps that matter to authorization decisions. */
export const BOOTSTRAP: RbacObjects = {
  roles: [],
  roleBindings: [],
  clusterRoles: [
    {
      metadata: { name: 'cluster-admin' },
      rules: [
        { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
        { nonResourceURLs: ['*'], verbs: ['*'] },
      ],
    },
    {
      metadata: { name: 'system:discovery' },
      rules: [
        {
          nonResourceURLs: [
            '/api',
            '/api/*',
            '/apis',
            '/apis/*',
            '/openapi',
            '/openapi/*',
            '/version',
            '/version/',
          ],
          verbs: ['get'],
        },
      ],
    },
    {
      metadata: { name: 'system:public-info-viewer' },
      rules: [
        {
          nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'],
          verbs: ['get'],
        },
      ],
    },
    {
      metadata: { name: 'system:basic-user' },
      rules: [
        {
          apiGroups: ['authorization.k8s.io'],
          resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
          verbs: ['create'],
        },
        { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] },
      ],
    },
  ],
  clusterRoleBindings: [
    ['cluster-admin', 'system:masters'],
    ['system:discovery', 'system:authenticated'],
    ['system:public-info-viewer', 'system:authenticated'],
    ['system:public-info-viewer', 'system:unauthenticated'],
    ['system:basic-user', 'system:authenticated'],
  ].map(([role, group]) => ({
    metadata: { name: role! },
    roleRef: { kind: 'ClusterRole' as const, name: role! },
    subjects: [{ kind: 'Group' as const, name: group! }],
  })),
};

const has = (list: readonly string[] | undefined, value: string): boolean =>
  (list ?? []).some((v) => v === '*' || v === value);

export function subjectMatches(s: Subject, user: UserInfo, bindingNamespace = ''): boolean {
  switch (s.kind) {
    case 'User':
      return s.name === user.username;
    case 'Group':
      return user.groups.includes(s.name);
    case 'ServiceAccount': {
      const ns = s.namespace ?? bindingNamespace;
      return ns !== '' && user.username === `system:serviceaccount:${ns}:${s.name}`;
    }
  }
}

export function ruleAllows(rule: PolicyRule, a: RequestAttributes): boolean {
  if (!has(rule.verbs, a.verb)) return false;
  if (!a.resourceRequest) {
    return (rule.nonResourceURLs ?? []).some(
      (u) => u === '*' || u === a.path || (u.endsWith('*') && a.path.startsWith(u.slice(0, -1))),
    );
  }
  if (!has(rule.apiGroups, a.apiGroup)) return false;
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const resourceOk = (rule.resources ?? []).some(
    (r) => r === '*' || r === combined || (a.subresource !== '' && r === `*/${a.subresource}`),
  );
  if (!resourceOk) return false;
  if (!rule.resourceNames?.length) return true;
  return a.name !== '' && rule.resourceNames.includes(a.name);
}

/** Allowed when any binding of the user grants a matching rule; RBAC never denies explicitly. */
export function authorize(objects: RbacObjects, a: RequestAttributes): Decision {
  const all = [objects, BOOTSTRAP];
  const clusterRole = (name: string) =>
    all.flatMap((o) => o.clusterRoles).find((r) => r.metadata.name === name);
  for (const b of all.flatMap((o) => o.clusterRoleBindings)) {
    if (b.roleRef.kind !== 'ClusterRole') continue;
    if (!(b.subjects ?? []).some((s) => subjectMatches(s, a.user))) continue;
    if ((clusterRole(b.roleRef.name)?.rules ?? []).some((r) => ruleAllows(r, a))) {
      return {
        allowed: true,
        reason: `RBAC: allowed by ClusterRoleBinding "${b.metadata.name}" of ClusterRole "${b.roleRef.name}" to ${describe(a.user)}`,
      };
    }
  }
  if (!a.resourceRequest || a.namespace === '') return { allowed: false };
  for (const b of objects.roleBindings) {
    if (b.metadata.namespace !== a.namespace) continue;
    if (!(b.subjects ?? []).some((s) => subjectMatches(s, a.user, b.metadata.namespace))) continue;
    const role =
      b.roleRef.kind === 'ClusterRole'
        ? clusterRole(b.roleRef.name)
        : objects.roles.find(
            (r) => r.metadata.name === b.roleRef.name && r.metadata.namespace === a.namespace,
          );
    if ((role?.rules ?? []).some((r) => ruleAllows(r, a))) {
      return {
        allowed: true,
        reason: `RBAC: allowed by RoleBinding "${b.metadata.name}/${a.namespace}" of ${b.roleRef.kind} "${b.roleRef.name}" to ${describe(a.user)}`,
      };
    }
  }
  return { allowed: false };
}

const describe = (u: UserInfo): string =>
  u.username.startsWith('system:serviceaccount:')
    ? `ServiceAccount "${u.username.split(':')[3]}/${u.username.split(':')[2]}"`
    : `User "${u.username}"`;

/** The message of kube-apiserver's 403 (responsewriters.forbiddenMessage + NewForbidden). */
export function forbiddenMessage(a: RequestAttributes): string {
  if (!a.resourceRequest) return `forbidden: User "${a.user.username}" cannot ${a.verb} path "${a.path}"`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const where = a.namespace ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
  const why = `User "${a.user.username}" cannot ${a.verb} resource "${resource}" in API group "${a.apiGroup}" ${where}`;
  const qualified = a.apiGroup ? `${a.resource}.${a.apiGroup}` : a.resource;
  return a.name ? `${qualified} "${a.name}" is forbidden: ${why}` : `${qualified} is forbidden: ${why}`;
}

/** The Status object kube-apiserver answers a refused request with (HTTP 403). */
export function forbiddenStatus(a: RequestAttributes): Record<string, unknown> {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: forbiddenMessage(a),
    reason: 'Forbidden',
    details: a.resourceRequest
      ? { ...(a.name ? { name: a.name } : {}), group: a.apiGroup, kind: a.resource }
      : {},
    code: 403,
  };
}
