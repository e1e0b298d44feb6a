/**
 * Tokens, ServiceAccount identities, impersonation and self access reviews, with the RBAC
 * authorizer deciding impersonation as kube-apiserver does (verb `impersonate`).
 */
import { describe, expect, it } from 'vitest';
import {
  ANONYMOUS,
  AuthenticationError,
  ImpersonationForbidden,
  impersonate,
  NODE_NAME_EXTRA,
  TokenAuthenticator,
  type ImpersonationCheck,
  selfSubjectAccessReview,
  authorize,
  type RbacObjects,
} from '@nodenet/devcluster';

describe('TokenAuthenticator', () => {
  it('authenticates static and ServiceAccount tokens; pod-bound tokens carry the node name', () => {
    let now = 0;
    const auth = new TokenAuthenticator(() => now);
    const admin = auth.issueStatic({ username: 'admin', groups: ['system:masters'] });
    expect(auth.authenticate(`Bearer ${admin}`)).toEqual({
      username: 'admin',
      groups: ['system:masters', 'system:authenticated'],
      extra: {},
    });
    const { token } = auth.issueServiceAccount('nodenet-system', 'nodenet-agent', {
      expirationSeconds: 600,
      pod: { name: 'nodenet-agent-x', uid: 'u1', nodeName: 'node-3' },
    });
    const sa = auth.authenticate(`Bearer ${token}`);
    expect(sa.username).toBe('system:serviceaccount:nodenet-system:nodenet-agent');
    expect(sa.groups).toEqual([
      'system:serviceaccounts',
      'system:serviceaccounts:nodenet-system',
      'system:authenticated',
    ]);
    expect(sa.extra?.[NODE_NAME_EXTRA]).toEqual(['node-3']);
    expect(auth.authenticate(undefined)).toEqual(ANONYMOUS);
    expect(() => auth.authenticate('Bearer nope')).toThrow(AuthenticationError);
    expect(() => auth.authenticate(`Basic ${admin}`)).toThrow(AuthenticationError);
    now += 600_000; // expiry on the monotonic clock this process observed
    expect(() => auth.authenticate(`Bearer ${token}`)).toThrow(AuthenticationError);
    expect(auth.authenticate(`Bearer ${admin}`).username).toBe('admin');
  });

  it('keeps tokens across a restart: static ones, and ServiceAccount ones for their remaining lifetime', () => {
    let mono = 5_000;
    let wall = 1_000_000;
    const before = new TokenAuthenticator(
      () => mono,
      () => wall,
    );
    let saves = 0;
    before.onIssue = () => saves++;
    const admin = before.issueStatic({ username: 'kubernetes-admin', groups: ['system:masters'] });
    const { token } = before.issueServiceAccount('ns', 'sa', { expirationSeconds: 600 });
    expect(saves).toBe(2);
    mono += 100_000; // 100 s of the 600 pass before the restart
    wall += 100_000;
    const saved = before.save();
    // The restarted process has another monotonic origin; its wall clock moved on by 50 s.
    mono = 0;
    wall += 50_000;
    const after = new TokenAuthenticator(
      () => mono,
      () => wall,
    );
    after.load(saved);
    expect(after.staticTokenOf('kubernetes-admin')).toBe(admin);
    expect(after.authenticate(`Bearer ${token}`).username).toBe('system:serviceaccount:ns:sa');
    mono += 449_000;
    expect(after.authenticate(`Bearer ${token}`).username).toBe('system:serviceaccount:ns:sa');
    mono += 1_000; // 600 s after it was issued
    expect(() => after.authenticate(`Bearer ${token}`)).toThrow(AuthenticationError);
    expect(after.authenticate(`Bearer ${admin}`).username).toBe('kubernetes-admin');
  });
});

describe('impersonation and SelfSubjectAccessReview (kubectl auth can-i --as)', () => {
  const objects: RbacObjects = {
    roles: [],
    roleBindings: [],
    clusterRoles: [
      {
        metadata: { name: 'sa-impersonator' },
        rules: [{ apiGroups: [''], resources: ['serviceaccounts'], verbs: ['impersonate'] }],
      },
      {
        metadata: { name: 'node-reader' },
        rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get'] }],
      },
    ],
    clusterRoleBindings: [
      {
        metadata: { name: 'ops' },
        roleRef: { kind: 'ClusterRole', name: 'sa-impersonator' },
        subjects: [{ kind: 'User', name: 'ops' }],
      },
      {
        metadata: { name: 'agent-nodes' },
        roleRef: { kind: 'ClusterRole', name: 'node-reader' },
        subjects: [{ kind: 'ServiceAccount', name: 'nodenet-agent', namespace: 'nodenet-system' }],
      },
    ],
  };
  const may: ImpersonationCheck = (requester, w) =>
    authorize(objects, {
      resourceRequest: true,
      user: requester,
      verb: 'impersonate',
      apiGroup: w.resource === 'userextras' || w.resource === 'uids' ? 'authentication.k8s.io' : '',
      resource: w.resource,
      subresource: w.subresource ?? '',
      name: w.name,
      namespace: w.namespace ?? '',
    }).allowed;
  const ops = { username: 'ops', groups: ['system:authenticated'] };
  const admin = { username: 'admin', groups: ['system:masters', 'system:authenticated'] };
  const agentHeaders = { 'impersonate-user': 'system:serviceaccount:nodenet-system:nodenet-agent' };

  it('answers can-i for the impersonated ServiceAccount', () => {
    const user = impersonate(ops, agentHeaders, may);
    expect(user.groups).toContain('system:serviceaccounts:nodenet-system');
    const ask = (verb: string) =>
      selfSubjectAccessReview({ resourceAttributes: { verb, resource: 'nodes', name: 'n1' } }, user, (a) =>
        authorize(objects, a),
      ).status;
    expect(ask('get')).toMatchObject({ allowed: true });
    expect(ask('delete')).toEqual({ allowed: false });
  });

  it('refuses impersonating users and groups the requester may not impersonate', () => {
    expect(() => impersonate(ops, { 'impersonate-user': 'alice' }, may)).toThrow(
      new ImpersonationForbidden('users "alice" is forbidden: User "ops" cannot impersonate'),
    );
    expect(() => impersonate(ops, { ...agentHeaders, 'impersonate-group': 'system:masters' }, may)).toThrow(
      ImpersonationForbidden,
    );
    expect(() => impersonate(ops, { 'impersonate-group': 'x' }, may)).toThrow(/without a user/);
    // cluster-admin may impersonate anyone, extras included (how tests get a node-bound identity).
    const u = impersonate(
      admin,
      { ...agentHeaders, [`impersonate-extra-${encodeURIComponent(NODE_NAME_EXTRA)}`]: 'node-2' },
      may,
    );
    expect(u.extra).toEqual({ [NODE_NAME_EXTRA]: ['node-2'] });
  });

  it('non-resource reviews', () => {
    const status = selfSubjectAccessReview(
      { nonResourceAttributes: { verb: 'get', path: '/version' } },
      ops,
      (a) => authorize(objects, a),
    ).status;
    expect(status).toMatchObject({ allowed: true });
  });
});
