import { describe, expect, it } from 'vitest';
import { SimulatedAgents } from '../support/simulated-agent.js';
import {
  createNode,
  inProgress,
  layer2,
  nodeName,
  setNodeReady,
  startConfigurator,
  useFleet,
  testPolicy,
  waitFor,
} from './harness.js';

const f = useFleet();

describe('node lifecycle during a rollout', () => {
  it('a node deleted mid-rollout is collected without failure; a NotReady one catches up when Ready; a new one gets the desired revision', async () => {
    for (let i = 0; i < 8; i++) await createNode(f.clients, nodeName(i));
    f.agents = new SimulatedAgents({ kubeconfigPath: f.dc.kubeconfigPath, defaultDelayMs: 400 });
    await f.agents.start();
    await f.clients.layer2.create(layer2('blue', 100));
    // Short timeouts: a NotReady or deleted node that counted as a failure would invalidate quickly.
    f.configurator = await startConfigurator(
      f.dc.kubeconfigPath,
      testPolicy({
        updateLimit: { kind: 'count', count: 2 },
        preconfigTimeoutMs: 1000,
        configTimeoutMs: 1000,
      }),
    );

    // node-000 and node-001 are the first two in progress.
    await waitFor('first two nodes in progress', () =>
      [0, 1].every((i) => {
        const nc = f.recorder.current.get(nodeName(i));
        return nc && inProgress(nc);
      }),
    );
    f.agents.stopNode(nodeName(0));
    f.agents.stopNode(nodeName(1));
    await f.clients.node.delete(nodeName(0));
    await setNodeReady(f.clients, nodeName(1), false);
    await createNode(f.clients, 'node-new');

    // The rest converges; node-001 stays behind while NotReady, well past both timeouts.
    const rev = await waitFor('all Ready nodes on revision 1', async () => {
      const [r] = await f.revisions();
      return r?.status?.ready === 7 && r.status.total === 7 ? r : undefined;
    });
    await new Promise((r) => setTimeout(r, 1500));
    expect((await f.revisions())[0]?.status?.isInvalid).toBe(false);
    expect((await f.revisions())[0]?.status?.failed).toBe(0);
    await waitFor(
      'NodeConfig of the deleted node collected',
      async () => !(await f.clients.nodeConfig.list()).items.some((nc) => nc.metadata.name === nodeName(0)),
    );
    const newNc = await f.clients.nodeConfig.get('node-new');
    expect(newNc.spec.revision).toBe(rev.spec.hash);

    // node-001 comes back: it catches up without counting as a failure.
    await setNodeReady(f.clients, nodeName(1), true);
    f.agents.resumeNode(nodeName(1));
    const done = await waitFor('revision complete with node-001', async () => {
      const [r] = await f.revisions();
      return r?.status?.ready === 8 &&
        r.status.conditions?.some((c) => c.type === 'Complete' && c.status === 'True')
        ? r
        : undefined;
    });
    expect(done.status).toMatchObject({ total: 8, failed: 0, isInvalid: false });
    // The deleted and the NotReady node held no slot: the other nodes still had two at a time.
    expect(f.recorder.maxInProgressExcluding([nodeName(0), nodeName(1)])).toBe(2);
  });
});
