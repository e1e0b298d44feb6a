/**
 * The object size limit, as a real control plane answers it: etcd refuses an object above
 * --max-request-bytes (1.5 MiB) and kube-apiserver passes that on as a 500 without a reason;
 * kube-apiserver refuses a body above 3 MiB with 413 before decoding it. kubectl is the client.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startDevCluster, type DevCluster } from '@nodenet/devcluster';

const MiB = 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), 'nn-objsize-'));

async function kubectl(dc: DevCluster, ...args: string[]): Promise<{ code: number; out: string }> {
  try {
    const r = await promisify(execFile)('kubectl', ['--kubeconfig', dc.kubeconfigPath, ...args], {
      encoding: 'utf8',
      maxBuffer: 64 * MiB,
    });
    return { code: 0, out: r.stdout };
  } catch (e) {
    const err = e as { code?: number; stderr?: string };
    return { code: err.code ?? 1, out: err.stderr ?? '' };
  }
}

/** A ConfigMap whose JSON is about `bytes` long, written to a file for `kubectl create -f`. */
function configMapFile(name: string, bytes: number): string {
  const file = join(dir, `${name}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'default' },
      data: { blob: 'x'.repeat(bytes - 200) },
    }),
  );
  return file;
}

let dc: DevCluster | undefined;
afterEach(async () => {
  await dc?.stop();
  dc = undefined;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('object size limit', () => {
  it('stores an object of 1.4 MiB and refuses one of 1.6 MiB as kube-apiserver passes on etcd', async () => {
    dc = await startDevCluster();
    expect((await kubectl(dc, 'create', '-f', configMapFile('fits', 1.4 * MiB))).code).toBe(0);
    const refused = await kubectl(dc, 'create', '-f', configMapFile('big', 1.6 * MiB));
    expect(refused.code).not.toBe(0);
    // No reason in parentheses: the Status passed on from etcd has none.
    expect(refused.out).toMatch(/Error from server: .*etcdserver: request is too large/);
    expect((await kubectl(dc, 'get', 'configmap', 'big')).out).toContain('NotFound');
  });

  it('refuses an update that grows an object past the limit and keeps the stored one', async () => {
    dc = await startDevCluster();
    await kubectl(dc, 'create', '-f', configMapFile('grows', 1.4 * MiB));
    const before = (
      await kubectl(dc, 'get', 'configmap', 'grows', '-o', 'jsonpath={.metadata.resourceVersion}')
    ).out;
    const patch = join(dir, 'patch.json');
    writeFileSync(patch, JSON.stringify({ data: { more: 'y'.repeat(0.3 * MiB) } }));
    const refused = await kubectl(
      dc,
      'patch',
      'configmap',
      'grows',
      '--type',
      'merge',
      '--patch-file',
      patch,
    );
    expect(refused.out).toContain('etcdserver: request is too large');
    const after = (
      await kubectl(dc, 'get', 'configmap', 'grows', '-o', 'jsonpath={.metadata.resourceVersion}')
    ).out;
    expect(after).toBe(before);
  });

  it('refuses a request body above 3 MiB with 413 before decoding it', async () => {
    dc = await startDevCluster({ maxObjectBytes: 0 });
    const refused = await kubectl(dc, 'create', '-f', configMapFile('huge', 3.2 * MiB));
    expect(refused.out).toMatch(
      /Error from server \(RequestEntityTooLarge\): .*Request entity too large: limit is 3145728/,
    );
  });

  it('takes another limit, or none', async () => {
    dc = await startDevCluster({ maxObjectBytes: 0 });
    expect((await kubectl(dc, 'create', '-f', configMapFile('two', 2 * MiB))).code).toBe(0);
    await dc.stop();
    dc = await startDevCluster({ maxObjectBytes: 100_000 });
    const refused = await kubectl(dc, 'create', '-f', configMapFile('small', 150_000));
    expect(refused.out).toContain('etcdserver: request is too large');
  });
});
