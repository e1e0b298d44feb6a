/**
 * Bounded shutdown of the configurator binary (#25 item 5): SIGTERM releases the Lease when the
 * API server answers, and the process exits within its --shutdown-timeout whatever the API server
 * does — gone (connections refused) or accepting connections and never answering — exiting 1 and
 * naming what it had to cut short.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DevCluster } from '@nodenet/devcluster';
import type { Clients } from '@nodenet/kube';
import { spawnConfigurator, startCluster, waitFor } from './harness.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DEADLINE_MS = 3_000;
/** Process exit after the deadline: the last step's abandonment, logging, Node's exit. */
const EXIT_SLACK_MS = 1_500;

let dc: DevCluster | undefined;
let clients: Clients | undefined;
let proc: ChildProcess | undefined;
let blackhole: { server: Server; sockets: Set<Socket> } | undefined;

beforeAll(async () => {
  await promisify(execFile)('npx', ['tsc', '-b', 'packages/configurator'], { cwd: ROOT });
}, 120_000);

afterEach(async () => {
  if (proc && proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  clients?.client.close();
  await dc?.stop();
  if (blackhole) {
    for (const s of blackhole.sockets) s.destroy();
    await new Promise((r) => blackhole!.server.close(r));
  }
  dc = clients = proc = blackhole = undefined;
});

/** Starts devcluster and the configurator binary; resolves once it holds the Lease. */
async function leadingConfigurator(): Promise<{ stderr: () => string }> {
  ({ dc, clients } = await startCluster());
  proc = spawnConfigurator(
    dc.kubeconfigPath,
    ['--identity', 'c1', '--shutdown-timeout', `${DEADLINE_MS}ms`],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const c = clients!;
  await waitFor(
    'the configurator leads',
    async () => (await c.lease.get('nodenet-configurator', 'default')).spec?.holderIdentity === 'c1',
    // Start-up loads the API client twice (main thread and the election thread): seconds on a
    // loaded 2-core CI machine.
    60_000,
  );
  return { stderr: () => stderr };
}

/** Sends SIGTERM; resolves with the exit code and the time to exit (monotonic). */
function terminate(p: ChildProcess): Promise<{ code: number | null; ms: number }> {
  const start = performance.now();
  const exited = new Promise<{ code: number | null; ms: number }>((resolve) =>
    p.once('exit', (code) => resolve({ code, ms: performance.now() - start })),
  );
  p.kill('SIGTERM');
  return exited;
}

describe('configurator shutdown on SIGTERM', () => {
  it('with the API server up: releases the Lease and exits 0', async () => {
    await leadingConfigurator();
    const { code, ms } = await terminate(proc!);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(DEADLINE_MS + EXIT_SLACK_MS);
    expect((await clients!.lease.get('nodenet-configurator', 'default')).spec?.holderIdentity).toBe('');
  }, 60_000);

  it('with the API server gone: exits within the deadline, 1, saying the Lease was not released', async () => {
    const out = await leadingConfigurator();
    await dc!.stop();
    dc = undefined;
    const { code, ms } = await terminate(proc!);
    expect(ms).toBeLessThan(DEADLINE_MS + EXIT_SLACK_MS);
    expect(code).toBe(1);
    expect(out.stderr()).toMatch(/shutdown cut short after \d+ ms: .*leader election \(Lease release\)/);
  }, 60_000);

  it('with an API server that accepts connections and never answers: exits within the deadline, 1', async () => {
    const out = await leadingConfigurator();
    const port = dc!.port;
    await dc!.stop();
    dc = undefined;
    // The same address now takes connections and requests, and answers nothing.
    const sockets = new Set<Socket>();
    const server = createServer((s) => {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    blackhole = { server, sockets };
    // Let its requests reach the silent server and hang there.
    await new Promise((r) => setTimeout(r, 1_000));
    const { code, ms } = await terminate(proc!);
    expect(ms).toBeLessThan(DEADLINE_MS + EXIT_SLACK_MS);
    expect(code).toBe(1);
    expect(out.stderr()).toMatch(/shutdown cut short after \d+ ms: /);
  }, 60_000);
});
