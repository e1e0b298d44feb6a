/**
 * Rollout controls (issue 11) through kubectl, as an operator would use them: pause, abort, retry,
 * and rollback that nothing holds back. devcluster, the real configurator, simulated agents.
 */
import { describe, expect, it } from 'vitest';
import { RETRY_ANNOTATION, type NetworkConfigRevision } from '@nodenet/api';
import {
  fleetOnRevision1,
  isComplete,
  kubectl as kubectlAt,
  layer2,
  nodeName,
  nodesThatTook,
  revisionNumbered,
  setNodeReady,
  startConfigurator,
  testPolicy,
  useFleet,
  waitFor,
} from './harness.js';

const f = useFleet();
const kubectl = (...args: string[]): Promise<string> => kubectlAt(f.dc.kubeconfigPath, ...args);
const complete = isComplete;
const numbered = (n: number): Promise<NetworkConfigRevision | undefined> => revisionNumbered(f, n);
const tookHash = (hash: string): string[] => nodesThatTook(f, hash);
const allOn = async (hash: string): Promise<boolean> =>
  (await f.clients.nodeConfig.list()).items.every(
    (nc) =>
      nc.spec.revision === hash &&
      nc.status?.lastAppliedRevision === hash &&
      nc.status.configStatus === 'provisioned',
  );
const events = async (reason: string, name: string) =>
  (await f.clients.event.list({ namespace: 'default' })).items.filter(
    (e) => e.reason === reason && e.involvedObject.name === name,
  );

describe('rollout controls with kubectl', () => {
  it('pause of the rollback target does not block the rollback', async () => {
    const r1 = await fleetOnRevision1(
      f,
      3,
      { updateLimit: { kind: 'count', count: 3 } },
      {
        later: (node) =>
          node === nodeName(1)
            ? { kind: 'invalid', delayMs: 200, message: 'health check failed' }
            : { kind: 'ok', delayMs: 30 },
      },
    );
    await kubectl('patch', 'ncr', r1.metadata.name, '--type', 'merge', '-p', '{"spec":{"paused":true}}');
    await waitFor('revision 1 shows Paused', async () =>
      (await numbered(1))?.status?.conditions?.some((c) => c.type === 'Paused' && c.status === 'True'),
    );
    await f.clients.layer2.create(layer2('red', 200));
    const r2 = await waitFor('revision 2 invalid', async () => {
      const r = await numbered(2);
      return r?.status?.isInvalid ? r : undefined;
    });
    expect(tookHash(r2.spec.hash)).toEqual([0, 1, 2].map(nodeName));
    await waitFor('every node back on revision 1 although it is paused', () => allOn(r1.spec.hash));
    expect((await numbered(1))?.spec.paused).toBe(true);
    expect(await events('Paused', r1.metadata.name)).toHaveLength(1);
  });

  it('abort mid-rollout: invalid with reason Aborted, a Warning Event, and exactly the nodes that took it roll back', async () => {
    const r1 = await fleetOnRevision1(
      f,
      5,
      { updateLimit: { kind: 'count', count: 2 } },
      {
        later: () => ({
          kind: 'ok',
          delayMs: 1500,
        }),
      },
    );
    await f.clients.layer2.create(layer2('red', 200));
    const r2 = await waitFor('revision 2 on two nodes', async () => {
      const r = await numbered(2);
      return r && tookHash(r.spec.hash).length === 2 ? r : undefined;
    });
    await kubectl('patch', 'ncr', r2.metadata.name, '--type', 'merge', '-p', '{"spec":{"aborted":true}}');
    const aborted = await waitFor('revision 2 invalid', async () => {
      const r = await numbered(2);
      return r?.status?.isInvalid ? r : undefined;
    });
    expect(aborted.status?.conditions?.find((c) => c.type === 'Invalid')).toMatchObject({
      status: 'True',
      reason: 'Aborted',
    });
    expect((await events('Aborted', r2.metadata.name))[0]?.type).toBe('Warning');
    await waitFor('every node on revision 1', () => allOn(r1.spec.hash));
    expect(tookHash(r2.spec.hash)).toEqual([0, 1].map(nodeName));
  });

  it('retry by annotation: a new number above every earlier one, not invalidated by the old failure, and the old revision is kept and names its retry', async () => {
    let fixed = false;
    let cut = false;
    await fleetOnRevision1(
      f,
      3,
      { updateLimit: { kind: 'count', count: 3 } },
      {
        later: (node) =>
          node === nodeName(1) && !fixed
            ? { kind: 'invalid', delayMs: 100, message: 'bgp down' }
            : { kind: 'ok', delayMs: fixed ? 1000 : 30 },
        agents: {
          // node-001 reports its failure and then drops off: its NodeConfig keeps the failed attempt.
          afterWrite: async (w) => {
            if (w.node === nodeName(1) && w.configStatus === 'invalid' && !cut) {
              cut = true;
              f.agents?.stopNode(w.node);
              await setNodeReady(f.clients, w.node, false);
            }
          },
        },
      },
    );
    await f.clients.layer2.create(layer2('red', 200));
    const r2 = await waitFor('revision 2 invalid', async () => {
      const r = await numbered(2);
      return r?.status?.isInvalid ? r : undefined;
    });
    // The cause is fixed; the operator asks for one more attempt.
    fixed = true;
    await kubectl('annotate', 'ncr', r2.metadata.name, `${RETRY_ANNOTATION}=now`);
    const r3 = await waitFor('the retry revision', async () =>
      (await f.revisions()).find((r) => r.spec.retryOf === r2.metadata.name),
    );
    expect(r3.spec.hash).toBe(r2.spec.hash);
    expect(r3.spec.number).toBe(3);
    // node-001 comes back while the retry rolls out, still carrying the failed attempt (its agent
    // does not apply a rejected attempt again by itself). That failure must not count against the
    // retry: the node is handed the new attempt instead.
    await setNodeReady(f.clients, nodeName(1), true);
    f.agents?.resumeNode(nodeName(1), { keepFailed: true });
    await waitFor('retry complete on all three nodes', async () => {
      const r = await numbered(3);
      return complete(r) && r?.status?.ready === 3;
    });
    expect((await numbered(3))?.status).toMatchObject({ isInvalid: false, failed: 0, ready: 3 });
    const node1 = await f.clients.nodeConfig.get(nodeName(1));
    expect(node1.metadata.labels?.['network.nodenet.io/revision-number']).toBe('3');
    const old = await f.clients.revision.get(r2.metadata.name);
    expect(old.status).toMatchObject({
      isInvalid: true,
      retriedBy: r3.metadata.name,
      failedNodes: [{ node: nodeName(1), message: 'bgp down' }],
    });
    expect(old.status?.conditions?.find((c) => c.type === 'RetryRequested')).toMatchObject({
      status: 'True',
      reason: 'Retried',
    });
    expect(await events('RetryRequested', r2.metadata.name)).toHaveLength(1);
  });

  it('rollback at limit 1 with a 10-minute soak completes without waiting for the soak', async () => {
    const r1 = await fleetOnRevision1(
      f,
      3,
      { updateLimit: { kind: 'count', count: 3 } },
      {
        later: () => ({
          kind: 'ok',
          delayMs: 30,
        }),
      },
    );
    // Revision 2 reaches all three nodes at once and soaks for 10 minutes: still rolling out (an
    // abort applies only then; a complete revision is undone by reverting its inputs).
    await f.configurator?.stop();
    f.configurator = await startConfigurator(
      f.dc.kubeconfigPath,
      testPolicy({ updateLimit: { kind: 'count', count: 3 }, minSuccessTimeMs: 600_000 }),
    );
    await f.clients.layer2.create(layer2('red', 200));
    const r2 = await waitFor('revision 2 provisioned on every node', async () => {
      const r = await numbered(2);
      return r && (await allOn(r.spec.hash)) ? r : undefined;
    });
    expect(complete(await numbered(2))).toBe(false);
    // The operator now runs with limit 1 (same soak), and aborts revision 2.
    await f.configurator?.stop();
    f.configurator = await startConfigurator(
      f.dc.kubeconfigPath,
      testPolicy({ updateLimit: { kind: 'count', count: 1 }, minSuccessTimeMs: 600_000 }),
    );
    const started = Date.now();
    await kubectl('patch', 'ncr', r2.metadata.name, '--type', 'merge', '-p', '{"spec":{"aborted":true}}');
    await waitFor('every node back on revision 1', () => allOn(r1.spec.hash));
    // Back on revision 1 one at a time, none waiting for another's soak (revision 1 reads Complete
    // again only once the soaks are over: Complete means every soak is over, docs/rollout.md).
    expect(Date.now() - started).toBeLessThan(600_000);
  });
});
