/**
 * Where devcluster used to differ from kube-apiserver in ways that matter for security tests
 * (#25 item 4), with kubectl as the client: field selectors authorized on the parse the list filter
 * uses, the legacy watch path's name, duplicate JSON keys under fieldValidation=Strict, malformed
 * percent-escapes, the Node status strategy, the data directory's modes, the kubeconfig's temp
 * file and its CA.
 */
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevCluster, type DevCluster } from '@nodenet/devcluster';
import { FIXTURES, l2 } from './helpers.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'devcluster-parity-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** kubectl, asynchronous (the server runs in this process); never throws for a refused request. */
async function kubectl(
  kubeconfig: string,
  args: string[],
  input?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const r = await execa('kubectl', ['--kubeconfig', kubeconfig, ...args], {
    reject: false,
    ...(input !== undefined ? { input } : {}),
  });
  return { code: r.exitCode ?? -1, stdout: r.stdout, stderr: r.stderr };
}

const mode = (p: string): number => fs.statSync(p).mode & 0o777;

describe('with RBAC: what a list or watch returns is what was authorized', () => {
  let dc: DevCluster;
  let admin: string;
  let reader: string;

  beforeAll(async () => {
    dc = await startDevCluster({ crdsDir: FIXTURES, authorizationMode: 'RBAC' });
    admin = dc.kubeconfigPath;
    for (const name of ['a', 'b'])
      expect((await kubectl(admin, ['create', 'secret', 'generic', name, '--from-literal=k=v'])).code).toBe(
        0,
      );
    // `reader` may get, list and watch the Secret `a` only.
    const rbac = [
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'one-secret', namespace: 'default' },
        rules: [
          { apiGroups: [''], resources: ['secrets'], resourceNames: ['a'], verbs: ['get', 'list', 'watch'] },
        ],
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'one-secret', namespace: 'default' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'one-secret' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'reader' }],
      },
    ];
    for (const obj of rbac)
      expect((await kubectl(admin, ['create', '-f', '-'], JSON.stringify(obj))).stderr).toBe('');
    reader = dc.kubeconfigFor({ username: 'reader' });
  });
  afterAll(() => dc?.stop());

  it('a field selector that pins metadata.name lists that Secret only, however its other terms are written', async () => {
    for (const selector of ['metadata.name=a', 'y!=(,metadata.name=a,z!=)', 'z!=),metadata.name==a,y!=(']) {
      const r = await kubectl(reader, ['get', 'secrets', '--field-selector', selector, '-o', 'name']);
      expect({ selector, stdout: r.stdout, stderr: r.stderr }).toEqual({
        selector,
        stdout: 'secret/a',
        stderr: '',
      });
    }
    const other = await kubectl(reader, ['get', 'secrets', '--field-selector', 'y!=(,metadata.name=b,z!=)']);
    expect(other.stderr).toBe(
      'Error from server (Forbidden): secrets "b" is forbidden: User "reader" cannot list resource "secrets" in API group "" in the namespace "default"',
    );
  });

  it('a field selector that does not parse names nothing (list needs the right to all) and is refused with 400', async () => {
    const selector = 'metadata.name=a,bad';
    const r = await kubectl(reader, ['get', 'secrets', '--field-selector', selector]);
    expect(r.stderr).toBe(
      'Error from server (Forbidden): secrets is forbidden: User "reader" cannot list resource "secrets" in API group "" in the namespace "default"',
    );
    for (const [bad, message] of [
      [selector, "invalid selector: 'metadata.name=a,bad'; can't understand 'bad'"],
      ['metadata.name=a\\x', 'invalid field selector: invalid escape sequence: \\x'],
      ['metadata.name=a=b', 'invalid field selector: unescaped character in value: 61'],
    ] as const) {
      const asAdmin = await kubectl(admin, [
        'get',
        '--raw',
        `/api/v1/namespaces/default/secrets?fieldSelector=${encodeURIComponent(bad)}`,
      ]);
      expect(asAdmin.stderr).toBe(`Error from server (BadRequest): ${message}`);
    }
  });

  it('the legacy /watch/<plural>/<name> path watches that object only, and is authorized for it', async () => {
    const watch = (kubeconfig: string, name: string, query = '') =>
      kubectl(kubeconfig, [
        'get',
        '--raw',
        `/api/v1/watch/namespaces/default/secrets/${name}?timeoutSeconds=1${query}`,
      ]);
    const a = await watch(reader, 'a');
    expect(a.stderr).toBe('');
    const names = a.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; object: { metadata: { name: string } } })
      .map((e) => `${e.type} ${e.object.metadata.name}`);
    expect(names).toEqual(['ADDED a']);
    expect((await watch(reader, 'b')).stderr).toBe(
      'Error from server (Forbidden): secrets "b" is forbidden: User "reader" cannot watch resource "secrets" in API group "" in the namespace "default"',
    );
    expect((await watch(admin, 'a', `&fieldSelector=${encodeURIComponent('metadata.name=b')}`)).stderr).toBe(
      "Error from server (BadRequest): fieldSelector metadata.name doesn't match requested name",
    );
  });

  it('a malformed percent-escape in the path is a plain 400 before authentication, as from Go’s HTTP server', async () => {
    // kubectl (like client-go and urllib3) will not send one: it refuses, or re-encodes the '%'.
    const r = await kubectl(admin, ['get', '--raw', '/api/v1/namespaces/%zz/secrets']);
    expect(r.stderr).toBe(
      'error: --raw must be a valid URL path: parse "/api/v1/namespaces/%zz/secrets": invalid URL escape "%zz"',
    );
    // A hand-made request does: with the admin's token, a wrong one, or none.
    for (const token of [dc.access.adminToken, 'not-a-token', undefined]) {
      const res = await rawGet(dc, '/api/v1/namespaces/%zz/secrets', token);
      expect(res).toEqual({
        status: 400,
        contentType: 'text/plain; charset=utf-8',
        connection: 'close',
        body: '400 Bad Request',
      });
    }
    // A well-formed escape still works (%64 is 'd').
    expect((await kubectl(admin, ['get', '--raw', '/api/v1/namespaces/%64efault/secrets/a'])).stderr).toBe(
      '',
    );
  });

  it('the kubeconfig carries the CA and no insecure-skip-tls-verify; a server with another certificate is refused', async () => {
    const text = fs.readFileSync(admin, 'utf8');
    expect(text).toContain('certificate-authority-data: ');
    expect(text).not.toContain('insecure-skip-tls-verify');
    expect((await kubectl(admin, ['get', '--raw', '/version'])).code).toBe(0);
    // The same kubeconfig against another devcluster (another CA) fails verification.
    const other = await startDevCluster({ authorizationMode: 'RBAC' });
    try {
      const swapped = path.join(tmp, 'swapped');
      fs.writeFileSync(swapped, text.replace(dc.url, other.url), { mode: 0o600 });
      const r = await kubectl(swapped, ['get', '--raw', '/version']);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('x509: certificate signed by unknown authority');
    } finally {
      await other.stop();
    }
  });
});

describe('in the default mode', () => {
  let dc: DevCluster;
  const dataDir = path.join(tmp, 'data');
  const kubeconfig = path.join(tmp, 'kc', 'kubeconfig');

  beforeAll(async () => {
    // A data directory left readable by an older version, and the temp name the kubeconfig was
    // once written through, pre-created by someone else.
    fs.mkdirSync(dataDir, { mode: 0o755 });
    fs.chmodSync(dataDir, 0o755);
    fs.writeFileSync(path.join(dataDir, 'snapshot.json'), '{"version":1,"resourceVersion":1,"objects":[]}', {
      mode: 0o644,
    });
    fs.mkdirSync(path.dirname(kubeconfig));
    fs.writeFileSync(`${kubeconfig}.tmp-${process.pid}`, '', { mode: 0o644 });
    dc = await startDevCluster({ crdsDir: FIXTURES, dataDir, kubeconfigPath: kubeconfig });
  });
  afterAll(() => dc?.stop());

  it('the data directory is 0700 and every file in it 0600, Secrets included', async () => {
    expect((await kubectl(kubeconfig, ['create', 'secret', 'generic', 's', '--from-literal=k=v'])).code).toBe(
      0,
    );
    expect(mode(dataDir)).toBe(0o700);
    const files = fs.readdirSync(dataDir).sort();
    expect(files).toEqual(['changes.jsonl', 'snapshot.json', 'tokens.json']);
    expect(files.map((f) => `${f} ${mode(path.join(dataDir, f)).toString(8)}`)).toEqual(
      files.map((f) => `${f} 600`),
    );
    expect(fs.readFileSync(path.join(dataDir, 'changes.jsonl'), 'utf8')).toContain('"name":"s"');
  });

  it('the kubeconfig is written through a fresh private temp directory: a pre-created temp file gets nothing', async () => {
    expect(mode(kubeconfig)).toBe(0o600);
    expect(fs.readFileSync(`${kubeconfig}.tmp-${process.pid}`, 'utf8')).toBe('');
    expect(fs.readdirSync(path.dirname(kubeconfig)).sort()).toEqual([
      'kubeconfig',
      `kubeconfig.tmp-${process.pid}`,
    ]);
    expect((await kubectl(kubeconfig, ['get', 'ns', 'default', '-o', 'name'])).stdout).toBe(
      'namespace/default',
    );
  });

  it('duplicate JSON keys: 400 under fieldValidation=Strict (with unknown fields after them), a warning by default', async () => {
    const file = path.join(tmp, 'dup.json');
    fs.writeFileSync(
      file,
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d","name":"d"},"data":{"a":"1","a":"2"}}',
    );
    const create = (query: string) =>
      kubectl(kubeconfig, ['create', '--raw', `/api/v1/namespaces/default/configmaps${query}`, '-f', file]);
    expect((await create('?fieldValidation=Strict')).stderr).toBe(
      'Error from server (BadRequest): ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "metadata.name", duplicate field "data.a"',
    );
    const warned = await create('');
    expect(warned.code).toBe(0);
    expect(warned.stderr).toBe('Warning: duplicate field "metadata.name"\nWarning: duplicate field "data.a"');
    // A custom resource: duplicates (found while decoding), then unknown fields (found while pruning).
    const crFile = path.join(tmp, 'dup-cr.json');
    const cr = JSON.stringify(l2('dup', { vni: 100, bogus: 1 })).replace('"vni":100', '"vni":100,"vni":101');
    fs.writeFileSync(crFile, cr);
    const strict = await kubectl(kubeconfig, [
      'create',
      '--raw',
      '/apis/network.nodenet.io/v1alpha1/layer2networkconfigurations?fieldValidation=Strict',
      '-f',
      crFile,
    ]);
    expect(strict.stderr).toBe(
      'Error from server (BadRequest): Layer2NetworkConfiguration in version "v1alpha1" cannot be handled as a Layer2NetworkConfiguration: strict decoding error: duplicate field "spec.vni", unknown field "spec.bogus"',
    );
  });

  it('a nodes/status write keeps its metadata and resets spec; a Node write keeps status (kube-apiserver strategies)', async () => {
    const node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n1' },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    };
    expect((await kubectl(kubeconfig, ['create', '-f', '-'], JSON.stringify(node))).code).toBe(0);
    const status = await kubectl(kubeconfig, [
      'patch',
      'node',
      'n1',
      '--subresource=status',
      '-p',
      '{"metadata":{"labels":{"role":"edge"},"annotations":{"a":"b"}},"spec":{"podCIDR":"10.0.0.0/24"},"status":{"conditions":[{"type":"Ready","status":"False"}]}}',
    ]);
    expect(status.stderr).toBe('');
    const main = await kubectl(kubeconfig, [
      'patch',
      'node',
      'n1',
      '-p',
      '{"spec":{"providerID":"p://1"},"status":{"conditions":[{"type":"Ready","status":"Unknown"}]}}',
    ]);
    expect(main.stderr).toBe('');
    const got = JSON.parse((await kubectl(kubeconfig, ['get', 'node', 'n1', '-o', 'json'])).stdout) as {
      metadata: { labels?: Record<string, string>; annotations?: Record<string, string> };
      spec: Record<string, unknown>;
      status: { conditions: { type: string; status: string }[] };
    };
    expect([got.metadata.labels, got.metadata.annotations, got.spec, got.status.conditions]).toEqual([
      { role: 'edge' },
      { a: 'b' },
      { providerID: 'p://1' },
      [{ type: 'Ready', status: 'False' }],
    ]);
  });
});

/** A GET sent exactly as written (no client normalises the path), verified against the server's CA. */
function rawGet(
  dc: DevCluster,
  rawPath: string,
  token: string | undefined,
): Promise<{
  status: number;
  contentType: string | undefined;
  connection: string | undefined;
  body: string;
}> {
  const url = new URL(dc.url);
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: url.hostname,
        port: url.port,
        path: rawPath,
        ca: dc.ca,
        headers: token ? { authorization: `Bearer ${token}` } : {},
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString('utf8')));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: res.headers['content-type'],
            connection: res.headers.connection,
            body,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}
