/**
 * Who may do what on this server: authentication (bearer tokens), impersonation, authorization and
 * validating admission, wired to the cluster's RBAC and policy objects.
 *
 * Two modes, as kube-apiserver's `--authorization-mode`:
 * - `AlwaysAllow` (the default, for the local demo and the tests that predate authentication): a
 *   request without credentials acts as the admin; a token, when sent, must be valid; everything
 *   is allowed and no admission policy runs.
 * - `RBAC`: a request must carry a valid token (anonymous requests get 401, as with
 *   `--anonymous-auth=false`), is authorized by the cluster's Roles and bindings, and every write
 *   passes the bound ValidatingAdmissionPolicies.
 */
import type { Cluster } from '../cluster/cluster.js';
import { ApiError } from '../objects/errors.js';
import { admit, denialMessage, type AdmissionAttributes, type UserInfo } from './admission-policy.js';
import {
  AuthenticationError,
  impersonate,
  ImpersonationForbidden,
  TokenAuthenticator,
  type ImpersonationCheck,
  type SavedToken,
} from './authenticate.js';
import {
  authorize,
  BOOTSTRAP,
  forbiddenStatus,
  type Binding,
  type Decision,
  type PolicyRule,
  type RbacObjects,
  type RequestAttributes,
  type Role,
  subjectMatches,
} from './rbac.js';
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from './admission-policy.js';
import type { RequestInfo } from './request-info.js';

export type AuthorizationMode = 'AlwaysAllow' | 'RBAC';
export const AUTHORIZATION_MODES: readonly AuthorizationMode[] = ['AlwaysAllow', 'RBAC'];

/** The identity of the admin kubeconfig, as kubeadm's `kubernetes-admin`. */
export const ADMIN = { username: 'kubernetes-admin', groups: ['system:masters'] };

const unauthorized = (): ApiError => new ApiError(401, 'Unauthorized', 'Unauthorized');

export class Access {
  readonly tokens = new TokenAuthenticator();
  /** The admin kubeconfig's token. */
  readonly adminToken: string;
  private readonly admin: UserInfo;

  constructor(
    private readonly cluster: Cluster,
    readonly mode: AuthorizationMode,
    saved: { tokens: readonly SavedToken[]; save: (tokens: SavedToken[]) => void } | undefined = undefined,
  ) {
    if (saved) {
      this.tokens.load(saved.tokens);
      this.tokens.onIssue = () => saved.save(this.tokens.save());
    }
    this.adminToken = this.tokens.staticTokenOf(ADMIN.username) ?? this.tokens.issueStatic(ADMIN);
    this.admin = this.tokens.authenticate(`Bearer ${this.adminToken}`);
    if (mode === 'RBAC') cluster.validatingAdmission = (a) => this.admit(a);
  }

  /**
   * The effective user of a request: its token's user, or the impersonated one. Throws 401 for a
   * missing (RBAC mode) or invalid token, 403 for impersonation the requester may not do.
   */
  userOf(headers: Record<string, string | string[] | undefined>): UserInfo {
    const authorization = headers.authorization;
    let requester: UserInfo;
    if (authorization === undefined && this.mode === 'AlwaysAllow') requester = this.admin;
    else if (authorization === undefined) throw unauthorized();
    else {
      try {
        requester = this.tokens.authenticate(String(authorization));
      } catch (e) {
        if (e instanceof AuthenticationError) throw unauthorized();
        throw e;
      }
    }
    let refused: RequestAttributes | undefined;
    const may: ImpersonationCheck = (user, what) => {
      const a: RequestAttributes = {
        resourceRequest: true,
        user,
        verb: 'impersonate',
        apiGroup: what.resource === 'userextras' || what.resource === 'uids' ? 'authentication.k8s.io' : '',
        resource: what.resource,
        subresource: what.subresource ?? '',
        name: what.name,
        namespace: what.namespace ?? '',
      };
      const allowed = this.decide(a).allowed;
      if (!allowed) refused ??= a;
      return allowed;
    };
    try {
      return impersonate(requester, headers, may);
    } catch (e) {
      if (!(e instanceof ImpersonationForbidden)) throw e;
      // Worded as kube-apiserver's impersonation filter: the authorizer's 403 for the first refusal.
      if (!refused) throw new ApiError(403, 'Forbidden', e.message, {});
      const s = forbiddenStatus(refused);
      throw new ApiError(403, 'Forbidden', String(s.message), s.details as Record<string, string>);
    }
  }

  decide(a: RequestAttributes): Decision {
    if (this.mode === 'AlwaysAllow') return { allowed: true, reason: '' };
    return authorize(this.rbacObjects(), a);
  }

  /** Throws the 403 kube-apiserver answers when `user` may not make this request. */
  authorizeRequest(info: RequestInfo, user: UserInfo): void {
    const a: RequestAttributes = info.resourceRequest
      ? {
          resourceRequest: true,
          user,
          verb: info.verb,
          apiGroup: info.apiGroup,
          resource: info.resource,
          subresource: info.subresource,
          name: info.name,
          namespace: info.namespace,
        }
      : { resourceRequest: false, user, verb: info.verb, path: info.path };
    if (this.decide(a).allowed) return;
    const s = forbiddenStatus(a);
    throw new ApiError(403, 'Forbidden', String(s.message), s.details as Record<string, string>);
  }

  /** What `user` may do in `namespace` (SelfSubjectRulesReview, `kubectl auth can-i --list`). */
  rulesFor(user: UserInfo, namespace: string): { resource: PolicyRule[]; nonResource: PolicyRule[] } {
    if (this.mode === 'AlwaysAllow') {
      return {
        resource: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
        nonResource: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      };
    }
    const objects = this.rbacObjects();
    const all = [objects, BOOTSTRAP];
    const clusterRole = (name: string): Role | undefined =>
      all.flatMap((o) => o.clusterRoles).find((r) => r.metadata.name === name);
    const rules: PolicyRule[] = [];
    for (const b of all.flatMap((o) => o.clusterRoleBindings))
      if ((b.subjects ?? []).some((s) => subjectMatches(s, user)))
        rules.push(...(clusterRole(b.roleRef.name)?.rules ?? []));
    for (const b of objects.roleBindings) {
      if (b.metadata.namespace !== namespace) continue;
      if (!(b.subjects ?? []).some((s) => subjectMatches(s, user, namespace))) continue;
      const role =
        b.roleRef.kind === 'ClusterRole'
          ? clusterRole(b.roleRef.name)
          : objects.roles.find(
              (r) => r.metadata.name === b.roleRef.name && r.metadata.namespace === namespace,
            );
      // A RoleBinding never grants non-resource URLs.
      rules.push(...(role?.rules ?? []).filter((r) => !r.nonResourceURLs?.length));
    }
    return {
      resource: rules.filter((r) => !r.nonResourceURLs?.length),
      nonResource: rules.filter((r) => r.nonResourceURLs?.length),
    };
  }

  /** Validating admission: the bound policies; throws the Status kube-apiserver answers with. */
  admit(a: AdmissionAttributes): void {
    const policies = this.objects<ValidatingAdmissionPolicy>(
      'admissionregistration.k8s.io',
      'validatingadmissionpolicies',
    );
    if (policies.length === 0) return;
    const bindings = this.objects<ValidatingAdmissionPolicyBinding>(
      'admissionregistration.k8s.io',
      'validatingadmissionpolicybindings',
    );
    const d = admit(policies, bindings, a);
    if (d.allowed) return;
    const message = denialMessage(d);
    const qualified = a.group ? `${a.resource}.${a.group}` : a.resource;
    const code = d.reason === 'Forbidden' ? 403 : d.reason === 'Unauthorized' ? 401 : 422;
    throw new ApiError(code, d.reason, `${qualified} "${a.name}" is forbidden: ${message}`, {
      name: a.name,
      group: a.group,
      kind: a.resource,
      causes: [{ reason: '', message }],
    });
  }

  private rbacObjects(): RbacObjects {
    const g = 'rbac.authorization.k8s.io';
    return {
      roles: this.objects<Role>(g, 'roles'),
      clusterRoles: this.objects<Role>(g, 'clusterroles'),
      roleBindings: this.objects<Binding>(g, 'rolebindings'),
      clusterRoleBindings: this.objects<Binding>(g, 'clusterrolebindings'),
    };
  }

  private objects<T>(group: string, plural: string): T[] {
    const t = this.cluster.typeFor(group, 'v1', plural);
    return t ? this.cluster.list(t, undefined).map((s) => s.obj as unknown as T) : [];
  }
}
