/**
 * A server whose 200 answers are no lists (a truncated body, the case): the plugin says so
 * on one line and exits 5, instead of reading an empty list ("no NetworkConfigRevision exists yet",
 * exit 3) (issue #37).
 */
import http from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { run } from '@nodenet/cli';

let server: http.Server;
let kubeconfig: string;

beforeAll(async () => {
  server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"kind":"NetworkConfigRevisionList","metadata":{"resourceVersion":"5"},"items":[{"meta');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  kubeconfig = join(mkdtempSync(join(tmpdir(), 'nodenet-broken-')), 'config');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  writeFileSync(
    kubeconfig,
    `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "${url}", insecure-skip-tls-verify: true}}]\n` +
      `users: [{name: u, user: {}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`,
  );
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

it('a truncated 200 list: exit 5, one line, not an empty list', async () => {
  let out = '';
  let err = '';
  const code = await run(['status', '--kubeconfig', kubeconfig], {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
  });
  expect(code).toBe(5);
  expect(out).toBe('');
  expect(err.trimEnd().split('\n')).toHaveLength(1);
  expect(err).toMatch(/^error: .*not a list/);
});
