/**
 * The Event recorder against devcluster, judged by kubectl: a repeated warning is one Event with a
 * growing count, a different warning is another Event, an Event deleted meanwhile is created again,
 * and concurrent repeats still make one Event.
 */
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevCluster, type DevCluster } from '@nodenet/devcluster';
import { EventRecorder, KubeClient, loadKubeConfig, makeClients, type KubeObject } from '@nodenet/kube';

interface Ev {
  reason: string;
  message: string;
  count: number;
  metadata: { name: string };
}

describe('EventRecorder aggregates repeats (devcluster, kubectl)', () => {
  let dc: DevCluster;
  let recorder: EventRecorder;
  let clock = 0;
  const node: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-7', uid: 'uid-7' } };
  // kubectl runs asynchronously: devcluster serves it from this same process.
  const kubectl = async (...args: string[]): Promise<string> =>
    (await execa('kubectl', ['--kubeconfig', dc.kubeconfigPath, ...args])).stdout;
  const events = async (reason: string): Promise<Ev[]> =>
    (
      JSON.parse(await kubectl('get', 'events', '-n', 'default', '-o', 'json')) as { items: Ev[] }
    ).items.filter((e) => e.reason === reason);

  beforeAll(async () => {
    dc = await startDevCluster({ port: 0 });
    const clients = makeClients(new KubeClient(loadKubeConfig(dc.kubeconfigPath)));
    recorder = new EventRecorder(clients.event, {
      component: 'nodenet-agent',
      onError: (err) => {
        throw err;
      },
      monotonicNow: () => clock,
    });
  });
  afterAll(async () => {
    await dc?.stop();
  });

  it('writes one Event for five repeats of a warning, its count growing with each', async () => {
    for (let i = 0; i < 5; i++) {
      clock += 1000;
      await recorder.record(node, 'Warning', 'DriftRepaired', 'vx.10 was changed by hand; repaired');
      const mine = await events('DriftRepaired');
      expect(mine).toHaveLength(1);
      expect(mine[0]!.count).toBe(i + 1);
    }
  });

  it('keeps a different message apart, and re-creates an Event that was deleted', async () => {
    await recorder.record(node, 'Warning', 'DriftRepaired', 'br.blue was changed by hand; repaired');
    expect((await events('DriftRepaired')).map((e) => e.count).sort()).toEqual([1, 5]);
    const old = (await events('DriftRepaired')).find((e) => e.message.startsWith('vx.10'))!;
    await kubectl('delete', 'event', '-n', 'default', old.metadata.name);
    await recorder.record(node, 'Warning', 'DriftRepaired', 'vx.10 was changed by hand; repaired');
    const again = (await events('DriftRepaired')).filter((e) => e.message.startsWith('vx.10'));
    expect(again).toHaveLength(1);
    expect(again[0]!.count).toBe(1);
  });

  it('records concurrent repeats as one Event', async () => {
    await Promise.all(
      Array.from({ length: 8 }, () =>
        recorder.record(node, 'Normal', 'Resynced', 'host matches the applied config'),
      ),
    );
    const mine = await events('Resynced');
    expect(mine).toHaveLength(1);
    expect(mine[0]!.count).toBe(8);
  });

  it('works with its default monotonic clock (the binaries inject none)', async () => {
    const plain = new EventRecorder(makeClients(new KubeClient(loadKubeConfig(dc.kubeconfigPath))).event, {
      component: 'nodenet-configurator',
      onError: (err) => {
        throw err;
      },
    });
    await plain.record(node, 'Normal', 'DefaultClock', 'recorded twice');
    await plain.record(node, 'Normal', 'DefaultClock', 'recorded twice');
    expect((await events('DefaultClock')).map((e) => e.count)).toEqual([2]);
  });
});
