/**
 * Configurator readiness means able to act (issue 19): with its Lease namespace missing the binary
 * is not ready and says why (in /readyz and in an error log naming the namespace); once the
 * namespace exists it becomes ready. The binary against devcluster.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DevCluster } from '@nodenet/devcluster';
import type { Clients } from '@nodenet/kube';
import { spawnConfigurator, startCluster, waitFor } from './harness.js';
import { readiness } from '@nodenet/configurator';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NS = `lease-${process.pid}`;

let dc: DevCluster;
let clients: Clients;
let proc: ChildProcess | undefined;
const logs: Record<string, unknown>[] = [];

beforeAll(async () => {
  await promisify(execFile)('npx', ['tsc', '-b', 'packages/configurator'], { cwd: ROOT });
  ({ dc, clients } = await startCluster());
}, 120_000);

afterAll(async () => {
  if (proc && proc.exitCode === null) proc.kill('SIGKILL');
  clients?.client.close();
  await dc?.stop();
});

it('readiness table: namespace missing, not synced, unknown, ready', () => {
  expect(readiness(true, 'x', 'missing')).toEqual({
    ok: false,
    detail: 'Lease namespace "x" does not exist: create it or set --leader-election-namespace',
  });
  expect(readiness(false, 'x', 'present')).toMatchObject({ ok: false, detail: 'informers not synced yet' });
  expect(readiness(true, 'x', 'unknown').ok).toBe(false);
  expect(readiness(true, 'x', 'present').ok).toBe(true);
});

it('not ready while the Lease namespace is missing, naming it; ready once it exists', async () => {
  proc = spawnConfigurator(dc.kubeconfigPath, ['--leader-election-namespace', NS, '--log-level', 'info'], {});
  createInterface({ input: proc.stdout! }).on('line', (l) => {
    try {
      logs.push(JSON.parse(l) as Record<string, unknown>);
    } catch {
      /* not a log line */
    }
  });
  const started = await waitFor('the starting log line', async () => logs.find((l) => l.msg === 'starting'));
  const health = String(started.health);
  const readyz = async (): Promise<{ code: number; body: string }> => {
    const r = await fetch(`${health}/readyz`);
    return { code: r.status, body: await r.text() };
  };
  await waitFor('an error log naming the namespace', async () =>
    logs.find((l) => l.level === 50 && String(l.msg).includes(`"${NS}" does not exist`)),
  );
  const r = await waitFor('readyz says why', async () => {
    const x = await readyz();
    return x.body.includes(NS) ? x : undefined;
  });
  expect(r).toEqual({
    code: 503,
    body: `not ok: Lease namespace "${NS}" does not exist: create it or set --leader-election-namespace\n`,
  });
  await clients.client.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
  });
  await waitFor('ready', async () => ((await readyz()).code === 200 ? true : undefined), 30_000);
}, 60_000);
