import { describe, expect, it } from 'vitest';
import { SimulatedAgents } from '@nodenet/testkit';
import {
  createNode,
  kubectl as kubectlAt,
  layer2,
  nodeName,
  startConfigurator,
  useFleet,
  testPolicy,
  waitFor,
} from './harness.js';

const f = useFleet();

const kubectl = (...args: string[]): Promise<string> => kubectlAt(f.dc.kubeconfigPath, ...args);

describe('fleet rollout', () => {
  it('20 nodes, limit 3: never more than 3 in progress on the watch stream, all converge, counts in status and printer columns', async () => {
    for (let i = 0; i < 20; i++) await createNode(f.clients, nodeName(i));
    f.agents = new SimulatedAgents({ kubeconfigPath: f.dc.kubeconfigPath, defaultDelayMs: 60 });
    await f.agents.start();
    await f.clients.layer2.create(layer2('blue', 100));
    f.configurator = await startConfigurator(
      f.dc.kubeconfigPath,
      testPolicy({ updateLimit: { kind: 'count', count: 3 } }),
    );

    const first = await waitFor('revision 1 complete', async () => {
      const [r] = await f.revisions();
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
    await f.clients.layer2.create(layer2('red', 200));
    const second = await waitFor('revision 2 complete', async () => {
      const r = (await f.revisions()).find((x) => x.spec.number === 2);
      return r?.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') ? r : undefined;
    });
    const ncs = (await f.clients.nodeConfig.list()).items;
    expect(ncs).toHaveLength(20);
    for (const nc of ncs) {
      expect(nc.spec.revision).toBe(second.spec.hash);
      expect(nc.status?.lastAppliedRevision).toBe(second.spec.hash);
      expect(nc.spec.layer2.map((l) => l.name)).toEqual(['blue', 'red']);
    }
    expect(f.recorder.maxInProgress).toBe(3);
    expect(f.recorder.events.every((e) => e.inProgress <= 3)).toBe(true);

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
    // Row labels are written once a row has settled (about a second after the last report).
    const ncTable = await waitFor('every row settled on revision 2', async () => {
      const t = await kubectl(
        'get',
        'nodeconfigs',
        '-l',
        `network.nodenet.io/revision-number=2`,
        '--no-headers',
      );
      const lines = t.trim().split('\n');
      return lines.length === 20 && lines.every((l) => /^node-\d+\s+2\s+2\s+provisioned\s/.test(l))
        ? t
        : undefined;
    });
    expect(ncTable.trim().split('\n')).toHaveLength(20);
    // DESIRED and APPLIED revision numbers, then the report about the desired revision.
    for (const line of ncTable.trim().split('\n')) expect(line).toMatch(/^node-\d+\s+2\s+2\s+provisioned\s/);

    // Events say what happened.
    const events = (await f.clients.event.list({ namespace: 'default' })).items;
    expect(events.filter((e) => e.reason === 'NodesAssigned').length).toBeGreaterThan(0);
    expect(
      events.some((e) => e.reason === 'RevisionCreated' && e.involvedObject.name === second.metadata.name),
    ).toBe(true);
    expect(
      events.some((e) => e.reason === 'RolloutComplete' && e.involvedObject.name === second.metadata.name),
    ).toBe(true);
  });
});
