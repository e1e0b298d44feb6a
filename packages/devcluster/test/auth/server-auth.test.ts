/**
 * Authentication, authorization and admission wired into the server, through
 * @kubernetes/client-node (kubectl's view is in test/deploy/least-privilege.test.ts): 401 without a
 * token under RBAC, anonymous-as-admin in the open mode, TokenRequest bound to a pod carrying the
 * node's name, RBAC objects taking effect at once, admission policies over `request.userInfo`,
 * and cluster-scoped kinds ignoring a namespace in the body.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { X509Certificate } from 'node:crypto';
import https from 'node:https';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestInfo, servingCertificates, startDevCluster, type DevCluster } from '@nodenet/devcluster';
import { FIXTURES } from '../helpers.js';

/** A raw HTTPS request to the server (self-signed certificate), answering status and JSON body. */
function call(
  dc: DevCluster,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const url = new URL(path, dc.url);
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
      {
        method,
        rejectUnauthorized: false,
        headers: {
          'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json',
          ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
          ...opts.headers,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text || '{}') }));
      },
    );
    req.on('error', reject);
    req.end(opts.body === undefined ? undefined : JSON.stringify(opts.body));
  });
}

describe('requestInfo (what authorization is asked)', () => {
  const q = (s = '') => new URLSearchParams(s);
  it.each([
    ['GET', '/api/v1/nodes', '', 'list nodes'],
    ['GET', '/api/v1/nodes', 'watch=1', 'watch nodes'],
    ['GET', '/api/v1/watch/nodes/n1', '', 'watch nodes n1'],
    [
      'GET',
      '/apis/network.nodenet.io/v1alpha1/nodeconfigs',
      'fieldSelector=metadata.name%3Dnode-1',
      'list nodeconfigs.network.nodenet.io node-1',
    ],
    [
      'PATCH',
      '/apis/network.nodenet.io/v1alpha1/nodeconfigs/n/status',
      '',
      'patch nodeconfigs.network.nodenet.io/status n',
    ],
    ['DELETE', '/api/v1/namespaces/a/configmaps', '', 'deletecollection configmaps -n a'],
    ['GET', '/api/v1/namespaces/a', '', 'get namespaces a -n a'],
    ['PUT', '/api/v1/namespaces/a/finalize', '', 'update namespaces/finalize a -n a'],
    ['POST', '/api/v1/namespaces/s/serviceaccounts/sa/token', '', 'create serviceaccounts/token sa -n s'],
  ])('%s %s?%s → %s', (method, path, query, expected) => {
    const i = requestInfo(method, path, q(query));
    if (!i.resourceRequest) throw new Error('expected a resource request');
    const res = `${i.resource}${i.apiGroup ? '.' + i.apiGroup : ''}${i.subresource ? '/' + i.subresource : ''}`;
    const text = [i.verb, res, i.name, i.namespace ? `-n ${i.namespace}` : ''].filter(Boolean).join(' ');
    expect(text).toBe(expected);
  });
  it('discovery and health paths are non-resource requests', () => {
    for (const p of ['/api', '/api/v1', '/apis', '/apis/apps', '/apis/apps/v1', '/version', '/healthz'])
      expect(requestInfo('GET', p, q())).toEqual({ resourceRequest: false, verb: 'get', path: p });
  });
});

describe('the serving certificate', () => {
  it('is signed by the CA clients trust, for the listen address, and matches its key', async () => {
    const { serving, ca } = servingCertificates(['10.1.2.3']);
    const x = new X509Certificate(serving.cert);
    const authority = new X509Certificate(ca);
    expect(x.subjectAltName).toBe(
      'IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, DNS:localhost, IP Address:10.1.2.3',
    );
    expect(x.ca).toBe(false);
    expect(authority.ca).toBe(true);
    expect(x.checkIssued(authority)).toBe(true);
    expect(x.verify(authority.publicKey)).toBe(true);
    const { createPrivateKey } = await import('node:crypto');
    expect(x.checkPrivateKey(createPrivateKey(serving.key))).toBe(true);
  });
});

describe('devcluster --authorization-mode RBAC', () => {
  let dc: DevCluster;
  let admin: k8s.CoreV1Api;
  const adminToken = (): string => dc.access.adminToken;

  beforeAll(async () => {
    dc = await startDevCluster({ crdsDir: FIXTURES, authorizationMode: 'RBAC' });
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(dc.kubeconfigPath);
    admin = kc.makeApiClient(k8s.CoreV1Api);
    for (const name of ['bot', 'other'])
      await admin.createNamespacedServiceAccount({ namespace: 'default', body: { metadata: { name } } });
    await admin.createNode({ body: { metadata: { name: 'n1' } } });
    await admin.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: { name: 'bot-pod' },
        spec: { serviceAccountName: 'bot', nodeName: 'n1', containers: [{ name: 'c', image: 'x' }] },
      },
    });
  });
  afterAll(() => dc?.stop());

  it('serves https; a request without a token or with a wrong one gets 401 Unauthorized', async () => {
    expect(dc.url).toMatch(/^https:/);
    for (const token of [undefined, 'wrong']) {
      const r = await call(dc, 'GET', '/api/v1/nodes', token ? { token } : {});
      expect(r).toEqual({
        status: 401,
        body: {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: 'Unauthorized',
          reason: 'Unauthorized',
          code: 401,
        },
      });
    }
    expect((await admin.listNode()).items.map((n) => n.metadata?.name)).toEqual(['n1']);
  });

  it('TokenRequest bound to a pod authenticates as the ServiceAccount with the pod and node in extra', async () => {
    const pod = await admin.readNamespacedPod({ name: 'bot-pod', namespace: 'default' });
    const tr = await admin.createNamespacedServiceAccountToken({
      name: 'bot',
      namespace: 'default',
      body: { spec: { audiences: [], boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'bot-pod' } } },
    });
    const who = await call(dc, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      token: tr.status!.token,
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });
    expect(who.body.status).toEqual({
      userInfo: {
        username: 'system:serviceaccount:default:bot',
        groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
        extra: {
          'authentication.kubernetes.io/pod-name': ['bot-pod'],
          'authentication.kubernetes.io/pod-uid': [pod.metadata!.uid],
          'authentication.kubernetes.io/node-name': ['n1'],
        },
      },
    });
    const other = await call(dc, 'POST', '/api/v1/namespaces/default/serviceaccounts/other/token', {
      token: adminToken(),
      body: { spec: { boundObjectRef: { kind: 'Pod', name: 'bot-pod' } } },
    });
    expect(other.status).toBe(400);
    expect(other.body.message).toBe(
      'cannot bind token for serviceaccount "other" to pod running with different serviceaccount name.',
    );
  });

  it('RBAC objects take effect at once; a refusal is worded like kube-apiserver', async () => {
    const token = dc.access.tokens.issueStatic({ username: 'alice' });
    const denied = await call(dc, 'GET', '/api/v1/nodes/n1', { token });
    expect(denied).toEqual({
      status: 403,
      body: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message:
          'nodes "n1" is forbidden: User "alice" cannot get resource "nodes" in API group "" at the cluster scope',
        reason: 'Forbidden',
        details: { name: 'n1', group: '', kind: 'nodes' },
        code: 403,
      },
    });
    const rbac = (plural: string, body: unknown) =>
      call(dc, 'POST', `/apis/rbac.authorization.k8s.io/v1/${plural}`, { token: adminToken(), body });
    expect(
      (
        await rbac('clusterroles', {
          metadata: { name: 'node-reader' },
          rules: [{ apiGroups: [''], resources: ['nodes'], resourceNames: ['n1'], verbs: ['get'] }],
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await rbac('clusterrolebindings', {
          metadata: { name: 'alice' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'node-reader' },
          subjects: [{ kind: 'User', name: 'alice' }],
        })
      ).status,
    ).toBe(201);
    expect((await call(dc, 'GET', '/api/v1/nodes/n1', { token })).status).toBe(200);
    expect((await call(dc, 'GET', '/api/v1/nodes', { token })).status).toBe(403);
    const review = await call(dc, 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      token: adminToken(),
      body: { spec: { user: 'alice', resourceAttributes: { verb: 'get', resource: 'nodes', name: 'n1' } } },
    });
    expect(review.body.status).toEqual({
      allowed: true,
      reason: 'RBAC: allowed by ClusterRoleBinding "alice" of ClusterRole "node-reader" to User "alice"',
    });
  });

  it('impersonation needs the impersonate verb', async () => {
    const token = dc.access.tokens.issueStatic({ username: 'bob' });
    const r = await call(dc, 'GET', '/api/v1/nodes', { token, headers: { 'impersonate-user': 'alice' } });
    expect(r.status).toBe(403);
    expect(r.body.message).toBe(
      'users "alice" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
    const asAlice = await call(dc, 'GET', '/api/v1/nodes/n1', {
      token: adminToken(),
      headers: { 'impersonate-user': 'alice' },
    });
    expect(asAlice.status).toBe(200);
  });

  it('a bound ValidatingAdmissionPolicy denies with its message; a namespace on a cluster-scoped kind is ignored', async () => {
    const adm = (plural: string, body: unknown) =>
      call(dc, 'POST', `/apis/admissionregistration.k8s.io/v1/${plural}`, { token: adminToken(), body });
    const policy = await adm('validatingadmissionpolicies', {
      metadata: { name: 'labels-by-admin', namespace: 'kustomize-stamped' },
      spec: {
        matchConstraints: {
          resourceRules: [
            { apiGroups: [''], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['nodes'] },
          ],
        },
        validations: [
          {
            expression: "request.userInfo.username == 'kubernetes-admin'",
            messageExpression: "'only the admin labels nodes, not ' + request.userInfo.username",
            reason: 'Forbidden',
          },
        ],
      },
    });
    expect(policy.status).toBe(201);
    expect((policy.body.metadata as Record<string, unknown>).namespace).toBeUndefined();
    await adm('validatingadmissionpolicybindings', {
      metadata: { name: 'labels-by-admin' },
      spec: { policyName: 'labels-by-admin', validationActions: ['Deny'] },
    });
    const token = dc.access.tokens.issueStatic({ username: 'carol', groups: ['system:masters'] });
    const r = await call(dc, 'PATCH', '/api/v1/nodes/n1', {
      token,
      body: { metadata: { labels: { a: 'b' } } },
    });
    expect(r.status).toBe(403);
    expect(r.body.message).toBe(
      "nodes \"n1\" is forbidden: ValidatingAdmissionPolicy 'labels-by-admin' with binding 'labels-by-admin' denied request: only the admin labels nodes, not carol",
    );
    const ok = await call(dc, 'PATCH', '/api/v1/nodes/n1', {
      token: adminToken(),
      body: { metadata: { labels: { a: 'b' } } },
    });
    expect(ok.status).toBe(200);
  });
});

describe('devcluster in the default (open) mode', () => {
  it('serves plain HTTP; a request without a token acts as the admin, a wrong token is refused', async () => {
    const dc = await startDevCluster({ crdsDir: FIXTURES });
    try {
      expect(dc.url).toMatch(/^http:/);
      const noToken = await fetch(`${dc.url}/api/v1/nodes`);
      expect(noToken.status).toBe(200);
      const wrong = await fetch(`${dc.url}/api/v1/nodes`, { headers: { authorization: 'Bearer wrong' } });
      expect(wrong.status).toBe(401);
      const who = await fetch(`${dc.url}/apis/authentication.k8s.io/v1/selfsubjectreviews`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
      });
      expect(((await who.json()) as { status: unknown }).status).toEqual({
        userInfo: {
          username: 'kubernetes-admin',
          groups: ['system:masters', 'system:authenticated'],
          extra: {},
        },
      });
    } finally {
      await dc.stop();
    }
  });

  it('with --data-dir, a restart keeps the admin kubeconfig and issued tokens valid', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'devcluster-tokens-'));
    try {
      const first = await startDevCluster({ crdsDir: FIXTURES, dataDir, authorizationMode: 'RBAC' });
      const kubeconfig = fs.readFileSync(first.kubeconfigPath, 'utf8');
      const admin = first.access.adminToken;
      const bot = first.access.tokens.issueStatic({ username: 'bot' });
      const port = Number(new URL(first.url).port);
      await first.stop();
      const second = await startDevCluster({ crdsDir: FIXTURES, dataDir, authorizationMode: 'RBAC', port });
      try {
        expect(second.access.adminToken).toBe(admin);
        expect(fs.readFileSync(second.kubeconfigPath, 'utf8')).toBe(kubeconfig);
        expect((await call(second, 'GET', '/api/v1/nodes', { token: admin })).status).toBe(200);
        // Known, though RBAC grants it nothing: 403, not 401.
        expect((await call(second, 'GET', '/api/v1/nodes', { token: bot })).status).toBe(403);
        expect(fs.statSync(path.join(dataDir, 'tokens.json')).mode & 0o777).toBe(0o600);
      } finally {
        await second.stop();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
