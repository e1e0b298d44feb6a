import { describe, expect, it } from 'vitest';
import { SimulatedAgents } from '@nodenet/testkit';
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
  it('NotReady before its turn: skipped, no slot, catches up; NotReady briefly after taking it: keeps its slot, no failure; a finished node deleted: collected; a new node: gets it', async () => {
    for (let i = 0; i < 8; i++) await createNode(f.clients, nodeName(i));
    await setNodeReady(f.clients, nodeName(7), false); // NotReady before it is handed anything
    f.agents = new SimulatedAgents({ kubeconfigPath: f.dc.kubeconfigPath, defaultDelayMs: 300 });
    await f.agents.start();
    await f.clients.layer2.create(layer2('blue', 100));
    // Short timeouts: a NotReady node that counted as a failure too early would invalidate quickly.
    f.configurator = await startConfigurator(
      f.dc.kubeconfigPath,
      testPolicy({
        updateLimit: { kind: 'count', count: 2 },
        // The shortest the configurator accepts (docs/rollout.md, lower bounds).
        preconfigTimeoutMs: 10_000,
        configTimeoutMs: 10_000,
        notReadyTimeoutMs: 30_000,
      }),
    );

    // node-001 takes the revision, then is NotReady for a moment (a kubelet hiccup), then back.
    await waitFor('node-001 in progress', () => {
      const nc = f.recorder.current.get(nodeName(1));
      return nc && inProgress(nc);
    });
    f.agents.stopNode(nodeName(1));
    await setNodeReady(f.clients, nodeName(1), false);
    await createNode(f.clients, 'node-new');
    // It keeps its slot: while it is away only one other node is in progress at a time.
    await new Promise((r) => setTimeout(r, 1500));
    await setNodeReady(f.clients, nodeName(1), true);
    f.agents.resumeNode(nodeName(1));

    const rev = await waitFor('all Ready nodes on revision 1', async () => {
      const [r] = await f.revisions();
      // node-007 (NotReady) is a target too: total 9, and the revision is not Complete without it.
      return r?.status?.ready === 8 && r.status.total === 9 ? r : undefined;
    });
    expect(rev.status).toMatchObject({ failed: 0, isInvalid: false });
    expect((await f.clients.nodeConfig.get('node-new')).spec.revision).toBe(rev.spec.hash);
    expect(f.recorder.current.has(nodeName(7))).toBe(false); // skipped while NotReady
    expect(f.recorder.maxInProgress).toBeLessThanOrEqual(2);

    // node-007 comes back: it catches up without counting as a failure.
    await setNodeReady(f.clients, nodeName(7), true);
    const done = await waitFor('revision complete with node-007', async () => {
      const [r] = await f.revisions();
      return r?.status?.ready === 9 ? r : undefined;
    });
    expect(done.status).toMatchObject({ total: 9, failed: 0, isInvalid: false });

    // A finished node that is deleted is collected (its NodeConfig loses its Node owner only).
    await f.clients.node.delete(nodeName(0));
    await waitFor(
      'NodeConfig of the deleted node collected',
      async () => !(await f.clients.nodeConfig.list()).items.some((nc) => nc.metadata.name === nodeName(0)),
    );
    const [after] = await f.revisions();
    expect(after?.status).toMatchObject({ failed: 0, isInvalid: false });
  });
});
