import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DevCluster } from '@nodenet/devcluster';
import type { Clients } from '@nodenet/kube';
import type { NetworkConfigRevision } from '@nodenet/api';
import { SimulatedAgents } from '../support/simulated-agent.js';
import {
  NodeConfigRecorder,
  createNode,
  layer2,
  nodeName,
  startCluster,
  startConfigurator,
  testPolicy,
  waitFor,
  type RunningConfigurator,
} from './harness.js';

let dc: DevCluster;
let clients: Clients;
let agents: SimulatedAgents;
let recorder: NodeConfigRecorder;
let configurator: RunningConfigurator | undefined;

beforeEach(async () => {
  ({ dc, clients } = await startCluster());
  recorder = new NodeConfigRecorder(dc.kubeconfigPath);
  await recorder.start();
});

afterEach(async () => {
  await configurator?.stop();
  configurator = undefined;
  recorder.stop();
  await agents?.stop();
  clients.client.close();
  await dc.stop();
});

const revisions = async (): Promise<NetworkConfigRevision[]> =>
  (await clients.revision.list()).items.sort((a, b) => a.spec.number - b.spec.number);

// Asynchronous on purpose: devcluster serves from this very process.
const kubectl = async (...args: string[]): Promise<string> =>
  (await promisify(execFile)('kubectl', ['--kubeconfig', dc.kubeconfigPath, ...args], { encoding: 'utf8' }))
    .stdout;

describe('fleet rollout', () => {
  it('20 nodes, limit 3: never more than 3 in progress on the watch stream, all converge, counts in status and printer columns', async () => {
    for (let i = 0; i < 20; i++) await createNode(clients, nodeName(i));
    agents = new SimulatedAgents({ kubeconfigPath: dc.kubeconfigPath, defaultDelayMs: 60 });
    await agents.start();
    await clients.layer2.create(layer2('blue', 100));
    configurator = await startConfigurator(
      dc.kubeconfigPath,
      testPolicy({ updateLimit: { kind: 'count', count: 3 } }),
    );

    const first = await waitFor('revision 1 complete', async () => {
      const [r] = await revisions();
      return r?.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') ? r : undefined;
    });
    expect(first.status).toMatchObject({
      total: 20,
      ready: 20,
      ongoing: 0,
      queued: 0,
      failed: 0,
      isInvalid: false,
    });

    // A change rolls out the same way.
    await clients.layer2.create(layer2('red', 200));
    const second = await waitFor('revision 2 complete', async () => {
      const r = (await revisions()).find((x) => x.spec.number === 2);
      return r?.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') ? r : undefined;
    });
    const ncs = (await clients.nodeConfig.list()).items;
    expect(ncs).toHaveLength(20);
    for (const nc of ncs) {
      expect(nc.spec.revision).toBe(second.spec.hash);
      expect(nc.status?.lastAppliedRevision).toBe(second.spec.hash);
      expect(nc.spec.layer2.map((l) => l.name)).toEqual(['blue', 'red']);
    }
    expect(recorder.maxInProgress).toBe(3);
    expect(recorder.events.every((e) => e.inProgress <= 3)).toBe(true);

    // kubectl as an independent client: waits on the condition and shows the counts.
    await kubectl(
      'wait',
      '--for=condition=Complete',
      `networkconfigrevision/${second.metadata.name}`,
      '--timeout=5s',
    );
    const table = await kubectl('get', 'networkconfigrevisions');
    const header = table.split('\n')[0] ?? '';
    const row = table.split('\n').find((l) => l.startsWith(second.metadata.name)) ?? '';
    expect(header).toMatch(/READY/);
    expect(row).toMatch(/\b20\b/);
    const ncTable = await kubectl(
      'get',
      'nodeconfigs',
      '-l',
      `network.nodenet.io/revision-number=2`,
      '--no-headers',
    );
    expect(ncTable.trim().split('\n')).toHaveLength(20);
    expect(ncTable).toMatch(/provisioned/);

    // Events say what happened.
    const events = (await clients.event.list({ namespace: 'default' })).items;
    expect(events.filter((e) => e.reason === 'NodesAssigned').length).toBeGreaterThan(0);
    expect(
      events.some((e) => e.reason === 'RevisionCreated' && e.involvedObject.name === second.metadata.name),
    ).toBe(true);
    expect(
      events.some((e) => e.reason === 'RolloutComplete' && e.involvedObject.name === second.metadata.name),
    ).toBe(true);
  });
});
