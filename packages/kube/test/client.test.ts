import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeApiError, KubeClient, KubeTransportError } from '@nodenet/kube';

/** A kubeconfig for `server`, with a bearer token when given. */
function kubeConfigOf(server: string, token?: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: true }],
    users: [{ name: 'u', ...(token !== undefined ? { token } : {}) }],
    contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
    currentContext: 'ctx',
  });
  return kc;
}

describe('KubeClient transport', () => {
  let server: http.Server;
  let connections = 0;
  const authHeaders: (string | undefined)[] = [];
  const urls: (string | undefined)[] = [];
  let kc: KubeConfig;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url?.startsWith('/echo')) {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ headers: req.headers, body: Buffer.concat(chunks).toString() }));
        });
        return;
      }
      authHeaders.push(req.headers.authorization);
      urls.push(req.url);
      const found = /^(\/prefix)?\/api\/v1\/nodes\/n/.test(req.url ?? '');
      // The rotation case: only the rotated token is taken.
      if (req.url === '/api/v1/nodes/rotated' && req.headers.authorization !== 'Bearer rotated-token') {
        res.writeHead(401, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ kind: 'Status', reason: 'Unauthorized', message: 'Unauthorized' }));
      }
      res.writeHead(found || req.url === '/api/v1/nodes/rotated' ? 200 : 404, {
        'content-type': 'application/json',
      });
      res.end(
        JSON.stringify(
          found
            ? { kind: 'Node', metadata: { name: 'n' } }
            : { kind: 'Status', reason: 'NotFound', message: 'nodes "x" not found' },
        ),
      );
    });
    server.on('connection', () => connections++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    kc = kubeConfigOf(`http://127.0.0.1:${port}`, 'secret-token');
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('reuses one keep-alive connection for sequential requests and still sends the credentials', async () => {
    const client = new KubeClient(kc);
    connections = 0;
    authHeaders.length = 0;
    for (let i = 0; i < 10; i++)
      expect(await client.request<{ metadata: { name: string } }>('GET', '/api/v1/nodes/n')).toMatchObject({
        metadata: { name: 'n' },
      });
    expect(connections).toBe(1);
    expect(authHeaders).toEqual(Array(10).fill('Bearer secret-token'));
    client.close();
  });

  it('asks the kubeconfig for credentials again after a 401 (a rotated token is used at once)', async () => {
    const { port } = server.address() as AddressInfo;
    const rotating = kubeConfigOf(`http://127.0.0.1:${port}`, 'old-token');
    const client = new KubeClient(rotating);
    authHeaders.length = 0;
    await client.request('GET', '/api/v1/nodes/n');
    // The token is rotated (as a projected service-account token is) and the server takes only the new one.
    (rotating.getCurrentUser() as { token?: string }).token = 'rotated-token';
    const refused = await client.request('GET', '/api/v1/nodes/rotated').catch((e: unknown) => e);
    expect(refused).toMatchObject({ statusCode: 401 });
    await client.request('GET', '/api/v1/nodes/rotated');
    expect(authHeaders).toEqual(['Bearer old-token', 'Bearer old-token', 'Bearer rotated-token']);
    client.close();
  });

  it('turns an error status into a KubeApiError with the reason', async () => {
    const client = new KubeClient(kc);
    const err = await client.request('GET', '/api/v1/nodes-x/x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeApiError);
    expect(err).toMatchObject({ statusCode: 404, reason: 'NotFound' });
    client.close();
  });

  it('sends the path after the path of the server URL, with the query encoded and unsafe characters escaped', async () => {
    const { port } = server.address() as AddressInfo;
    const prefixed = kubeConfigOf(`http://127.0.0.1:${port}/prefix/`, 't');
    const client = new KubeClient(prefixed);
    urls.length = 0;
    await client.request('GET', '/api/v1/nodes/n', {
      query: { labelSelector: 'a in (x,y)', limit: 5, skip: undefined },
    });
    await client.request('GET', '/api/v1/nodes/n b');
    await client.request('GET', '/api/v1/nodes/n?watch=1', { query: { limit: 2 } });
    expect(urls).toEqual([
      '/prefix/api/v1/nodes/n?labelSelector=a+in+%28x%2Cy%29&limit=5',
      '/prefix/api/v1/nodes/n%20b',
      '/prefix/api/v1/nodes/n?watch=1&limit=2',
    ]);
    client.close();
  });

  it('sends a body with its type and length, and the Host, accept and kubeconfig headers once each', async () => {
    const { port } = server.address() as AddressInfo;
    const client = new KubeClient(kc);
    const echo = await client.request<{ headers: Record<string, string>; body: string }>('PATCH', '/echo', {
      body: { metadata: { labels: { a: 'ü' } } },
      contentType: 'application/merge-patch+json',
    });
    expect(JSON.parse(echo.body)).toEqual({ metadata: { labels: { a: 'ü' } } });
    expect(echo.headers).toMatchObject({
      host: `127.0.0.1:${port}`,
      accept: 'application/json',
      authorization: 'Bearer secret-token',
      'content-type': 'application/merge-patch+json',
      'content-length': String(Buffer.byteLength(echo.body)),
      connection: 'keep-alive',
    });
    const get = await client.request<{ headers: Record<string, string> }>('GET', '/echo');
    expect(get.headers).not.toHaveProperty('content-type');
    expect(get.headers).not.toHaveProperty('content-length');
    client.close();
  });

  it('sends the userinfo of the server URL as Basic authorization when the kubeconfig has no token', async () => {
    const { port } = server.address() as AddressInfo;
    const basic = kubeConfigOf(`http://ad%20min:s3cret@127.0.0.1:${port}`);
    const client = new KubeClient(basic);
    const echo = await client.request<{ headers: Record<string, string> }>('GET', '/echo');
    expect(echo.headers.authorization).toBe(`Basic ${Buffer.from('ad min:s3cret').toString('base64')}`);
    client.close();
  });

  it('a request that gets no answer in time fails with a KubeTransportError and reports to listeners', async () => {
    const silent = http.createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const { port } = silent.address() as AddressInfo;
    const quiet = kubeConfigOf(`http://127.0.0.1:${port}`, 't');
    const client = new KubeClient(quiet);
    const seen: unknown[] = [];
    client.onRequest((info) => seen.push(info));
    const err = await client.request('GET', '/api/v1/nodes/n', { timeoutMs: 50 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeTransportError);
    expect(String((err as Error).message)).toContain('timed out after 50 ms');
    expect(seen).toMatchObject([{ verb: 'get', method: 'GET', path: '/api/v1/nodes/n' }]);
    expect(seen[0]).not.toHaveProperty('statusCode');
    client.close();
    silent.closeAllConnections();
    await new Promise<void>((r) => silent.close(() => r()));
  });
});
