/**
 * KubeClient.watch against a scripted HTTP server: each test says how the server answers and
 * streams, and checks the events and the one `done` the caller gets.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevCluster } from '@nodenet/devcluster';
import {
  Informer,
  KubeApiError,
  KubeClient,
  MAX_WATCH_LINE_BYTES,
  WatchLineTooLongError,
  loadKubeConfig,
  makeClients,
} from '@nodenet/kube';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

describe('KubeClient.watch', () => {
  let server: http.Server;
  let handle: Handler = (_req, res) => res.end();
  const seen: { url: string | undefined; authorization: string | undefined }[] = [];
  let kc: KubeConfig;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      seen.push({ url: req.url, authorization: req.headers.authorization });
      handle(req, res);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
      users: [{ name: 'u', token: 'watch-token' }],
      contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
      currentContext: 'ctx',
    });
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });

  /** Opens a watch; resolves with its events and its one `done` once it is called. */
  function watched(client: KubeClient, query: Record<string, string | undefined> = {}) {
    const events: [string, unknown][] = [];
    const dones: unknown[] = [];
    let abort: () => void = () => undefined;
    const finished = new Promise<unknown>((resolve) => {
      void client
        .watch(
          '/api/v1/nodes',
          query,
          (type, object) => events.push([type, object]),
          (err) => {
            dones.push(err);
            resolve(err);
          },
        )
        .then((a) => (abort = a));
    });
    return { events, dones, finished, abort: () => abort() };
  }

  it('delivers each line as an event, however the bytes are cut, and ends with done(null) once', async () => {
    const line = (type: string, name: string): string =>
      `${JSON.stringify({ type, object: { metadata: { name, resourceVersion: '7' } } })}\n`;
    const bytes = Buffer.from(
      line('ADDED', 'a') + line('MODIFIED', 'ü-b') + 'not json\n' + line('DELETED', 'c'),
    );
    const inChar = bytes.indexOf(Buffer.from('ü')) + 1; // between the two bytes of ü
    handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      // Two events and half a character, the rest of the character and line, then the last line
      // without its newline: the server ends the stream there.
      res.write(bytes.subarray(0, inChar));
      setTimeout(() => res.write(bytes.subarray(inChar, bytes.length - 1)), 20);
      setTimeout(() => res.end(), 40);
    };
    const client = new KubeClient(kc);
    seen.length = 0;
    const w = watched(client, { resourceVersion: '5', labelSelector: undefined });
    expect(await w.finished).toBeNull();
    expect(w.events).toEqual([
      ['ADDED', { metadata: { name: 'a', resourceVersion: '7' } }],
      ['MODIFIED', { metadata: { name: 'ü-b', resourceVersion: '7' } }],
      ['DELETED', { metadata: { name: 'c', resourceVersion: '7' } }],
    ]);
    expect(seen).toEqual([
      { url: '/api/v1/nodes?watch=true&resourceVersion=5', authorization: 'Bearer watch-token' },
    ]);
    w.abort(); // after the end: nothing more
    expect(w.dones).toEqual([null]);
    expect(client.requestCounts.watch).toBe(1);
    client.close();
  });

  it('an answer other than 200 ends the watch with a KubeApiError carrying the status (410 Gone)', async () => {
    handle = (_req, res) => {
      res.writeHead(410, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ kind: 'Status', reason: 'Expired', message: 'too old resource version: 5 (9)' }),
      );
    };
    const client = new KubeClient(kc);
    const w = watched(client, { resourceVersion: '5' });
    const err = await w.finished;
    expect(err).toBeInstanceOf(KubeApiError);
    expect(err).toMatchObject({
      statusCode: 410,
      reason: 'Expired',
      serverMessage: 'too old resource version: 5 (9)',
    });
    expect(w.events).toEqual([]);
    client.close();
  });

  it('a line longer than MAX_WATCH_LINE_BYTES ends the watch with WatchLineTooLongError; the events before it arrive', async () => {
    let closed!: () => void;
    const serverSawClose = new Promise<void>((r) => (closed = r));
    handle = (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a' } } })}\n`);
      // One "line" past the bound, in 1 MiB pieces, never ended by a newline.
      const piece = Buffer.alloc(1024 * 1024, 0x78);
      for (let i = 0; i <= MAX_WATCH_LINE_BYTES / piece.length; i++) res.write(piece);
      req.on('close', () => closed());
    };
    const client = new KubeClient(kc);
    const w = watched(client);
    const err = await w.finished;
    expect(err).toBeInstanceOf(WatchLineTooLongError);
    expect((err as WatchLineTooLongError).bytes).toBeGreaterThan(MAX_WATCH_LINE_BYTES);
    expect((err as Error).message).toContain('/api/v1/nodes');
    expect(w.events).toEqual([['ADDED', { metadata: { name: 'a' } }]]);
    await serverSawClose; // the connection is dropped, not read to its end
    expect(w.dones).toHaveLength(1);
    client.close();
  });

  it('abort closes the connection and calls done once with an error; no event follows', async () => {
    let closed!: () => void;
    const serverSawClose = new Promise<void>((r) => (closed = r));
    let later: (() => void) | undefined;
    handle = (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a' } } })}\n`);
      later = () => res.write(`${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'b' } } })}\n`);
      req.socket.on('close', () => closed());
    };
    const client = new KubeClient(kc);
    const w = watched(client);
    await expect.poll(() => w.events.length).toBe(1);
    w.abort();
    later?.();
    await serverSawClose;
    expect(await w.finished).toBeInstanceOf(Error);
    expect(w.events).toHaveLength(1);
    expect(w.dones).toHaveLength(1);
    client.close();
  });

  it('a watch answered 401 makes the next request ask the kubeconfig for credentials again', async () => {
    const { port } = server.address() as AddressInfo;
    const rotating = new KubeConfig();
    rotating.loadFromOptions({
      clusters: [{ name: 'c', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
      users: [{ name: 'u', token: 'old' }],
      contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
      currentContext: 'ctx',
    });
    handle = (req, res) => {
      res.writeHead(req.headers.authorization === 'Bearer new' ? 200 : 401, {
        'content-type': 'application/json',
      });
      res.end(req.headers.authorization === 'Bearer new' ? '' : '{"kind":"Status","reason":"Unauthorized"}');
    };
    const client = new KubeClient(rotating);
    seen.length = 0;
    expect(await watched(client).finished).toMatchObject({ statusCode: 401, reason: 'Unauthorized' });
    // The token is rotated; without the 401 the credentials of a second ago would be sent again.
    (rotating.getCurrentUser() as { token?: string }).token = 'new';
    await client.request('GET', '/api/v1/nodes/x');
    expect(seen.map((s) => s.authorization)).toEqual(['Bearer old', 'Bearer new']);
    client.close();
  });

  it('a server that cannot be reached ends the watch with the connection error', async () => {
    const gone = http.createServer();
    await new Promise<void>((r) => gone.listen(0, '127.0.0.1', r));
    const { port } = gone.address() as AddressInfo;
    await new Promise<void>((r) => gone.close(() => r()));
    const nowhere = new KubeConfig();
    nowhere.loadFromOptions({
      clusters: [{ name: 'c', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
      currentContext: 'ctx',
    });
    const client = new KubeClient(nowhere);
    expect(await watched(client).finished).toMatchObject({ code: 'ECONNREFUSED' });
    client.close();
  });
});

describe('an Informer on KubeClient against devcluster (real HTTP watch)', () => {
  it('follows writes; a cut watch resumes without a list; after compaction it gets 410 Gone and re-lists', async () => {
    const dc = await startDevCluster({
      crdsDir: new URL('../../../crds', import.meta.url).pathname,
      historyLimit: 20,
    });
    const clients = makeClients(new KubeClient(loadKubeConfig(dc.kubeconfigPath)));
    const inf = new Informer(clients.node);
    try {
      inf.start();
      await inf.waitForSync();
      await clients.node.create({ metadata: { name: 'before' } });
      await expect.poll(() => inf.get('before')?.metadata.name).toBe('before');
      await clients.node.mergePatch('before', { metadata: { annotations: { a: 'ü' } } });
      await expect.poll(() => inf.get('before')?.metadata.annotations).toEqual({ a: 'ü' });
      // A cut watch without compaction resumes from its resourceVersion, without a list.
      expect(dc.dropWatches()).toBe(1);
      await expect.poll(() => dc.watchCount()).toBe(1);
      await clients.node.create({ metadata: { name: 'resumed' } });
      await expect.poll(() => inf.get('resumed')?.metadata.name).toBe('resumed');
      await clients.node.delete('resumed');
      await expect.poll(() => inf.get('resumed')).toBeUndefined();
      expect(inf.stats).toMatchObject({ lists: 1, relistsAfterGone: 0 });
      // Cut again, and the history it would resume from compacted before it can reconnect
      // (synchronous in-process writes): 410 Gone, a list, and the cache equal to the server.
      const nodes = dc.cluster.typeFor('', 'v1', 'nodes');
      if (!nodes) throw new Error('nodes not registered');
      expect(dc.dropWatches()).toBe(1);
      for (let i = 0; i < 30; i++)
        dc.cluster.create(nodes, undefined, {
          apiVersion: 'v1',
          kind: 'Node',
          metadata: { name: `gap-${i}` },
        });
      dc.cluster.delete(nodes, undefined, 'before');
      await expect
        .poll(() =>
          inf
            .list()
            .map((n) => n.metadata.name)
            .sort(),
        )
        .toEqual(Array.from({ length: 30 }, (_, i) => `gap-${i}`).sort());
      expect(inf.stats).toMatchObject({ lists: 2, relistsAfterGone: 1 });
    } finally {
      inf.stop();
      clients.client.close();
      await dc.stop();
    }
  });
});
