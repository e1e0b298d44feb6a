/**
 * `kubectl nodenet …` through kubectl's own plugin mechanism: kubectl finds `kubectl-nodenet` on the
 * PATH (node_modules/.bin, where `npm ci` links every workspace bin) and runs it with the user's
 * environment. Also checks that every workspace binary runs straight from node_modules/.bin.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_VERSION, NODENET_VERSION, buildConfig, revisionName } from '@nodenet/api';
import { startDevCluster, type DevCluster } from '@nodenet/devcluster';
import { KubeClient, loadKubeConfig, makeClients, type Clients } from '@nodenet/kube';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'node_modules/.bin');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nodenet-plugin-'));
let dc: DevCluster;
let client: KubeClient;
let clients: Clients;

/** kubectl as a user runs it: KUBECONFIG in the environment, node_modules/.bin on the PATH. */
const kubectl = (...args: string[]) =>
  execa('kubectl', args, {
    reject: false,
    timeout: 30_000,
    env: {
      KUBECONFIG: dc.kubeconfigPath,
      PATH: `${BIN}${path.delimiter}${process.env.PATH ?? ''}`,
      HOME: tmp, // a private discovery cache
    },
  });

describe('kubectl nodenet through the kubectl plugin mechanism', () => {
  beforeAll(async () => {
    await execa(
      'npx',
      ['tsc', '-b', 'packages/cli', 'packages/configurator', 'packages/agent', 'packages/devcluster'],
      {
        cwd: ROOT,
      },
    );
    dc = await startDevCluster({ crdsDir: path.join(ROOT, 'crds') });
    client = new KubeClient(loadKubeConfig(dc.kubeconfigPath));
    clients = makeClients(client);
    const config = { vrf: [], layer2: [], routingTable: [{ name: 'taas-5', tableId: 5 }] };
    const { hash } = buildConfig({
      vrf: [],
      layer2: [],
      routingTable: [
        { apiVersion: API_VERSION, kind: 'RoutingTable', metadata: { name: 'taas-5' }, spec: { tableId: 5 } },
      ],
    });
    await clients.revision.create({
      apiVersion: API_VERSION,
      kind: 'NetworkConfigRevision',
      metadata: { name: revisionName(1, hash) },
      spec: { config, hash, number: 1 },
    });
  });

  afterAll(async () => {
    client?.close();
    await dc?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('kubectl plugin list finds kubectl-nodenet in node_modules/.bin', async () => {
    const r = await kubectl('plugin', 'list');
    expect(r.stdout).toContain(path.join(BIN, 'kubectl-nodenet'));
  });

  it('kubectl nodenet history reads the cluster of $KUBECONFIG', async () => {
    const r = await kubectl('nodenet', 'history');
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^NUMBER\s+NAME\s+RESULT/);
    expect(r.stdout).toMatch(/\n1\s+rev-000001-[0-9a-f]{10}\s+RollingOut\s+yes\s/);
  });

  it('exit codes and writes pass through kubectl: status exits 1 while not complete; pause is seen by kubectl get', async () => {
    const status = await kubectl('nodenet', 'status');
    expect(status.exitCode).toBe(1);
    expect(status.stdout).toContain('State:     Rolling out');
    const pause = await kubectl('nodenet', 'pause');
    expect(pause.exitCode).toBe(0);
    // Without a revision: the fleet-wide pause on the RolloutPolicy named default.
    const got = await kubectl('get', 'rolloutpolicy', 'default', '-o', 'jsonpath={.spec.paused}');
    expect(got.stdout).toBe('true');
    const missing = await kubectl('nodenet', 'status', 'rev-7');
    expect(missing.exitCode).toBe(3);
  });

  it.each(['kubectl-nodenet', 'nodenet-configurator', 'nodenet-agent', 'nodenet-devcluster'])(
    '%s --version prints the version of the packages',
    async (bin) => {
      const r = await execa(path.join(BIN, bin), ['--version'], { reject: false });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe(
        (
          JSON.parse(fs.readFileSync(path.join(ROOT, 'packages/api/package.json'), 'utf8')) as {
            version: string;
          }
        ).version,
      );
      expect(r.stdout).toBe(NODENET_VERSION);
    },
  );

  it.each(['kubectl-nodenet', 'nodenet-configurator', 'nodenet-agent', 'nodenet-devcluster'])(
    '%s runs from node_modules/.bin after npm ci',
    async (bin) => {
      const r = await execa(path.join(BIN, bin), ['--help'], { reject: false });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toMatch(/^Usage: /);
    },
  );
});
