/** The nodenet-devcluster binary: help, argument errors, clean stop, and --data-dir surviving restarts and crashes. */
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as k8s from '@kubernetes/client-node';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, GROUP, L2, VERSION, l2, type KObj } from './helpers.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const MAIN = path.join(ROOT, 'packages/devcluster/dist/main.js');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nodenet-dc-cli-'));

beforeAll(async () => {
  await execa('npx', ['tsc', '-b', 'packages/devcluster'], { cwd: ROOT });
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function start(args: string[]): Promise<{ proc: ResultPromise; url: string }> {
  const proc = execa('node', [MAIN, ...args], { reject: false });
  const url = await new Promise<string>((resolve, reject) => {
    proc.stdout?.on('data', (d: Buffer) => {
      const m = d.toString().match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      if (m?.[1]) resolve(m[1]);
    });
    void proc.then((r) => reject(new Error(`exited early: ${r.stderr}`)));
  });
  return { proc, url };
}

function client(kubeconfig: string): k8s.CustomObjectsApi {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kubeconfig);
  return kc.makeApiClient(k8s.CustomObjectsApi);
}

describe('nodenet-devcluster CLI', () => {
  it('explains its options with --help', async () => {
    const r = await execa('node', [MAIN, '--help']);
    for (const o of ['--port', '--address', '--kubeconfig', '--crds', '--data-dir', '--version'])
      expect(r.stdout).toContain(o);
  });

  it('refuses a bad --port and a missing --crds directory, naming them', async () => {
    const port = await execa('node', [MAIN, '--port', 'abc'], { reject: false });
    expect(port.exitCode).not.toBe(0);
    expect(port.stderr).toContain('--port must be an integer 0-65535, got "abc"');
    const crds = await execa('node', [MAIN, '--crds', path.join(tmp, 'nope')], { reject: false });
    expect(crds.exitCode).toBe(1);
    expect(crds.stderr).toContain(`${path.join(tmp, 'nope')}: CRD directory does not exist`);
  });

  it('--address 0.0.0.0 is refused in AlwaysAllow mode (every request would be the admin)', async () => {
    const r = await execa('node', [MAIN, '--address', '0.0.0.0'], { reject: false });
    expect(r.exitCode).toBe(1);
    expect(r.stderr.trim()).toBe(
      'nodenet-devcluster: --address 0.0.0.0 is not a loopback address: in AlwaysAllow mode every request acts as the admin, so serving beyond this host needs --authorization-mode RBAC',
    );
    expect(r.stdout).toBe('');
  });

  it('--address 0.0.0.0 with RBAC listens on every address (verified TLS) and prints export KUBECONFIG=…', async () => {
    const kubeconfig = path.join(tmp, 'kubeconfig-any');
    const proc = execa(
      'node',
      [MAIN, '--address', '0.0.0.0', '--authorization-mode', 'RBAC', '--kubeconfig', kubeconfig],
      { reject: false },
    );
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      proc.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening on (https:\/\/127\.0\.0\.1:(\d+))[\s\S]*export KUBECONFIG=/.exec(out);
        if (m?.[1]) resolve(m[1]);
      });
      void proc.then((r) => reject(new Error(`exited early: ${r.stderr}`)));
    });
    expect(out).toContain(`export KUBECONFIG=${kubeconfig}\n`);
    expect(fs.readFileSync(kubeconfig, 'utf8')).toContain(`server: ${url}`);
    // Reachable on this host's other addresses too (what agents in network namespaces use).
    const other = Object.values(os.networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
    const port = new URL(url).port;
    // The kubeconfig's CA verifies the server on each of them (the certificate names them all).
    const ca = Buffer.from(
      /certificate-authority-data: (\S+)/.exec(fs.readFileSync(kubeconfig, 'utf8'))![1]!,
      'base64',
    ).toString();
    for (const host of ['127.0.0.1', ...(other ? [other] : [])])
      expect(await httpsStatus(`https://${host}:${port}/version`, ca)).toBe(401);
    proc.kill('SIGTERM');
    await proc;
  });

  it('prints the ready line and export KUBECONFIG, writes a kubeconfig, keeps objects across SIGTERM and SIGKILL restarts', async () => {
    const kubeconfig = path.join(tmp, 'kubeconfig');
    const dataDir = path.join(tmp, 'data');
    const args = ['--port', '0', '--kubeconfig', kubeconfig, '--crds', FIXTURES, '--data-dir', dataDir];

    const first = await start(args);
    const created = (await client(kubeconfig).createClusterCustomObject({
      group: GROUP,
      version: VERSION,
      plural: L2,
      body: l2('persisted', { id: 42 }),
    })) as KObj;
    first.proc.kill('SIGTERM');
    const r1 = await first.proc;
    expect(r1.exitCode).toBe(0);
    // The ready line and the export line to paste; nothing else.
    expect(String(r1.stdout).trim().split('\n')).toEqual([
      expect.stringMatching(/^nodenet-devcluster listening on http:\/\/127\.0\.0\.1:\d+ \(kubeconfig: /),
      `export KUBECONFIG=${kubeconfig}`,
    ]);

    const second = await start(args);
    const api = client(kubeconfig); // the kubeconfig was rewritten with the new port
    const got = (await api.getClusterCustomObject({
      group: GROUP,
      version: VERSION,
      plural: L2,
      name: 'persisted',
    })) as KObj;
    expect(got.metadata.uid).toBe(created.metadata.uid);
    expect(got.spec?.id).toBe(42);
    const updated = (await api.patchClusterCustomObject(
      { group: GROUP, version: VERSION, plural: L2, name: 'persisted', body: { spec: { id: 43 } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    )) as KObj;
    expect(Number(updated.metadata.resourceVersion)).toBeGreaterThan(
      Number(created.metadata.resourceVersion),
    );
    second.proc.kill('SIGKILL'); // a crash: the change log must already hold the patch
    await second.proc;

    const third = await start(args);
    const after = (await client(kubeconfig).getClusterCustomObject({
      group: GROUP,
      version: VERSION,
      plural: L2,
      name: 'persisted',
    })) as KObj;
    expect(after.spec?.id).toBe(43);
    expect(after.metadata.resourceVersion).toBe(updated.metadata.resourceVersion);
    third.proc.kill('SIGINT');
    expect((await third.proc).exitCode).toBe(0);
  });
});

/** The status of a GET verified against `ca` (rejects on a certificate the CA did not sign). */
function httpsStatus(url: string, ca: string): Promise<number> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', reject);
  });
}
