import { execFile, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeConfig, Watch, type V1Lease } from '@kubernetes/client-node';
import type { DevCluster } from '@nodenet/devcluster';
import type { Clients } from '@nodenet/kube';
import { SimulatedAgents } from '@nodenet/testkit';
import {
  NodeConfigRecorder,
  createNode,
  layer2,
  nodeName,
  spawnConfigurator,
  startCluster,
  waitFor,
} from './harness.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let dc: DevCluster;
let clients: Clients;
let agents: SimulatedAgents;
let recorder: NodeConfigRecorder;
const procs: ChildProcess[] = [];

beforeAll(async () => {
  // The binary under test: build it (api, kube, configurator) from the current sources.
  await promisify(execFile)('npx', ['tsc', '-b', 'packages/configurator'], { cwd: ROOT });
  ({ dc, clients } = await startCluster());
  recorder = new NodeConfigRecorder(dc.kubeconfigPath);
  await recorder.start();
}, 120_000);

afterAll(async () => {
  for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  recorder?.stop();
  await agents?.stop();
  clients?.client.close();
  await dc?.stop();
});

function configurator(identity: string): ChildProcess {
  const p = spawnConfigurator(dc.kubeconfigPath, ['--identity', identity, '--update-limit', '2']);
  procs.push(p);
  return p;
}

const holder = async (): Promise<string | undefined> => {
  try {
    return (await clients.lease.get('nodenet-configurator', 'default')).spec?.holderIdentity ?? undefined;
  } catch {
    return undefined;
  }
};

describe('two configurators', () => {
  it('the leader is killed mid-rollout; the other takes over and finishes; the limit holds and no two act at once', async () => {
    for (let i = 0; i < 12; i++) await createNode(clients, nodeName(i));
    agents = new SimulatedAgents({ kubeconfigPath: dc.kubeconfigPath, defaultDelayMs: 400 });
    await agents.start();
    await clients.layer2.create(layer2('blue', 100));
    const a = configurator('configurator-a');
    await waitFor('a leads', async () => (await holder()) === 'configurator-a');
    configurator('configurator-b');

    await waitFor('rollout under way', () => recorder.assigners().length >= 4);
    a.kill('SIGKILL'); // no release: b must wait for the lease to expire
    const killedAt = Date.now();
    await waitFor('b leads', async () => (await holder()) === 'configurator-b', 15_000);
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(2000);

    const rev = await waitFor(
      'revision complete',
      async () => {
        const [r] = (await clients.revision.list()).items;
        return r?.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True')
          ? r
          : undefined;
      },
      30_000,
    );
    expect(rev.status).toMatchObject({ total: 12, ready: 12, failed: 0 });
    const order = recorder.assigners();
    const firstB = order.indexOf('configurator-b');
    expect(order.slice(0, firstB).every((x) => x === 'configurator-a')).toBe(true);
    expect(order.slice(firstB).every((x) => x === 'configurator-b')).toBe(true);
    expect(firstB).toBeGreaterThan(0);
    expect(recorder.maxInProgress).toBeLessThanOrEqual(2);
    const lease = await clients.lease.get('nodenet-configurator', 'default');
    expect(lease.spec?.leaseTransitions).toBe(1);
    expect(lease.spec?.renewTime).toMatch(/\.\d{6}Z$/);
  }, 90_000);

  it('SIGTERM releases the lease (empty holder, 1 s), so the standby takes over at once', async () => {
    const b = procs.find((p) => p.exitCode === null && p.signalCode === null) as ChildProcess;
    configurator('configurator-c');
    await new Promise((r) => setTimeout(r, 1000));
    // Every version of the Lease, from an independent watch: the release itself must show in it.
    const kc = new KubeConfig();
    kc.loadFromFile(dc.kubeconfigPath);
    const versions: { holder: string; duration: number | undefined }[] = [];
    const watch = await new Watch(kc).watch(
      '/apis/coordination.k8s.io/v1/namespaces/default/leases',
      { fieldSelector: 'metadata.name=nodenet-configurator' },
      (_type, obj: V1Lease) =>
        versions.push({ holder: obj.spec?.holderIdentity ?? '', duration: obj.spec?.leaseDurationSeconds }),
      () => undefined,
    );
    try {
      const exited = new Promise((r) => b.once('exit', r));
      b.kill('SIGTERM');
      await exited;
      await waitFor('c leads', async () => (await holder()) === 'configurator-c', 10_000);
      const released = versions.findIndex((v) => v.holder === '' && v.duration === 1);
      expect(released, JSON.stringify(versions)).toBeGreaterThanOrEqual(0);
      expect(versions.slice(released + 1).some((v) => v.holder === 'configurator-c')).toBe(true);
    } finally {
      watch.abort();
    }
  }, 30_000);
});
