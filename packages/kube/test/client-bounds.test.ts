/**
 * The client does not trust a server's answer (issue #37): a body past the size cap, an answer that
 * drips past the total deadline, and a 2xx list that is no list (cut short, no items) are errors;
 * the list asks again before it gives up, and never reads a broken answer as an empty list.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient, KubeTransportError, makeClients } from '@nodenet/kube';

let server: http.Server;
let client: KubeClient;
let listAnswers: string[] = [];
const seen: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'application/json' });
    if (req.url?.startsWith('/api/v1/nodes/big')) return res.end(`{"kind":"Node","x":"${'a'.repeat(4096)}"}`);
    if (req.url?.startsWith('/api/v1/nodes/drip')) {
      // One byte every 100 ms: never idle for the idle timeout, never done.
      const t = setInterval(() => res.write(' '), 100);
      res.on('close', () => clearInterval(t));
      return;
    }
    res.end(listAnswers.shift() ?? '{"kind":"NodeList","metadata":{"resourceVersion":"9"},"items":[]}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [
      {
        name: 'c',
        server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        skipTLSVerify: true,
      },
    ],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  client = new KubeClient(kc);
  client.limits = { maxResponseBytes: 1024, deadlineMs: 1000 };
});
afterAll(async () => {
  client?.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('answer bounds', () => {
  it('an answer larger than the cap is cut and is an error', async () => {
    await expect(client.request('GET', '/api/v1/nodes/big')).rejects.toThrow(
      new KubeTransportError('GET', '/api/v1/nodes/big', new Error('answer larger than 1024 bytes')),
    );
  });

  it('an answer that drips past the total deadline is cut, although it is never idle', async () => {
    await expect(client.request('GET', '/api/v1/nodes/drip', { timeoutMs: 500 })).rejects.toThrow(
      'no whole answer within 1000 ms',
    );
  });

  it('a 2xx list cut short or without items is asked again, then an error; never an empty list', async () => {
    const nodes = makeClients(client).node;
    listAnswers = ['{"kind":"NodeList","metadata":{"resourceVersion":"9"},"ite', '{"kind":"Status"}'];
    seen.length = 0;
    expect((await nodes.list()).metadata.resourceVersion).toBe('9');
    expect(seen).toHaveLength(3);
    listAnswers = ['{"items":[]}', '{"metadata":{"resourceVersion":"1"}}', 'not json'];
    await expect(nodes.list()).rejects.toThrow(
      'the answer is not a list (no items and resourceVersion), 3 times',
    );
  });
});
