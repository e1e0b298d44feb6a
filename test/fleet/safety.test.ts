/**
 * Rollout safety (issue 10) end to end: devcluster, the real configurator, simulated agents.
 * Timeouts are a second or two so that each case takes a few seconds.
 */
import { describe, expect, it } from 'vitest';
import type { NetworkConfigRevision } from '@nodenet/api';
import {
  createNode,
  fleetOnRevision1,
  isComplete,
  layer2,
  nodeName,
  nodesThatTook,
  revisionNumbered,
  setNodeReady,
  useFleet,
  waitFor,
} from './harness.js';

const f = useFleet();
const complete = isComplete;
const numbered = (n: number): Promise<NetworkConfigRevision | undefined> => revisionNumbered(f, n);
const tookHash = (hash: string): string[] => nodesThatTook(f, hash);

describe('rollout safety', () => {
  it('(a) a node cut off right after reporting provisioned: the revision reaches no second node at limit 1, is invalid after --not-ready-timeout, and the node is rolled back when it returns', async () => {
    let cutAt = 0;
    let rev2 = '';
    const r1 = await fleetOnRevision1(
      f,
      3,
      { updateLimit: { kind: 'count', count: 1 }, minSuccessTimeMs: 1000, notReadyTimeoutMs: 1500 },
      {
        later: () => ({ kind: 'ok', delayMs: 50 }),
        agents: {
          afterWrite: async (w) => {
            // The change cut the node's uplink: it reported success, then the kubelet stops posting.
            if (rev2 && w.revision === rev2 && w.configStatus === 'provisioned' && !cutAt) {
              f.agents?.stopNode(w.node);
              await setNodeReady(f.clients, w.node, false);
              cutAt = Date.now();
            }
          },
        },
      },
    );
    const created = f.clients.layer2.create(layer2('red', 200));
    rev2 = (await waitFor('revision 2', () => numbered(2))).spec.hash;
    await created;
    const r2 = await waitFor(
      'revision 2 invalid',
      async () => {
        const r = await numbered(2);
        return r?.status?.isInvalid ? r : undefined;
      },
      30_000,
    );
    expect(cutAt).toBeGreaterThan(0);
    expect(Date.now() - cutAt).toBeGreaterThanOrEqual(1500);
    expect(r2.status?.failedNodes).toEqual([
      { node: nodeName(0), message: 'NotReady for 1.5s after taking revision 2', at: expect.any(String) },
    ]);
    expect(tookHash(r2.spec.hash)).toEqual([nodeName(0)]);
    // Nothing else moved; the cut-off node is rolled back once it is back.
    await new Promise((r) => setTimeout(r, 300));
    expect(tookHash(r2.spec.hash)).toEqual([nodeName(0)]);
    await setNodeReady(f.clients, nodeName(0), true);
    f.agents?.resumeNode(nodeName(0));
    await waitFor('node-000 back on revision 1', async () => {
      const nc = await f.clients.nodeConfig.get(nodeName(0));
      return nc.spec.revision === r1.spec.hash && nc.status?.lastAppliedRevision === r1.spec.hash;
    });
  });

  it('(a2) at limit 2 with a soak, a node cut off during its soak holds the rollout: its wave-mate finishes the soak and no third node takes the revision', async () => {
    let cutAt = 0;
    let rev2 = '';
    await fleetOnRevision1(
      f,
      4,
      { updateLimit: { kind: 'count', count: 2 }, minSuccessTimeMs: 400, notReadyTimeoutMs: 2500 },
      {
        later: () => ({ kind: 'ok', delayMs: 50 }),
        agents: {
          afterWrite: async (w) => {
            if (
              rev2 &&
              w.revision === rev2 &&
              w.configStatus === 'provisioned' &&
              w.node === nodeName(0) &&
              !cutAt
            ) {
              f.agents?.stopNode(w.node);
              await setNodeReady(f.clients, w.node, false);
              cutAt = Date.now();
            }
          },
        },
      },
    );
    const created = f.clients.layer2.create(layer2('red', 200));
    rev2 = (await waitFor('revision 2', () => numbered(2))).spec.hash;
    await created;
    const held = await waitFor('revision 2 held by node-000', async () => {
      const r = await numbered(2);
      const c = r?.status?.conditions?.find((x) => x.type === 'Progressing');
      return c?.reason === 'HeldByNotReadyNode' ? c : undefined;
    });
    expect(held.message).toContain(`node ${nodeName(0)} is NotReady`);
    const r2 = await waitFor(
      'revision 2 invalid',
      async () => {
        const r = await numbered(2);
        return r?.status?.isInvalid ? r : undefined;
      },
      30_000,
    );
    expect(Date.now() - cutAt).toBeGreaterThanOrEqual(2500);
    // node-001 finished its soak long before the timeout, yet no third node took revision 2.
    expect(tookHash(r2.spec.hash).sort()).toEqual([nodeName(0), nodeName(1)]);
  });

  it('(b) a node joining a complete revision whose agent never reports: the revision stays valid, nobody else moves, the node is listed as degraded', async () => {
    const r1 = await fleetOnRevision1(
      f,
      3,
      { updateLimit: { kind: 'count', count: 2 }, preconfigTimeoutMs: 1000 },
      {
        later: () => ({
          kind: 'ok',
        }),
      },
    );
    const assignedBefore = f.recorder.events.length;
    f.agents!.behaviour = (node) => (node === 'late' ? { kind: 'never' } : { kind: 'ok', delayMs: 30 });
    await createNode(f.clients, 'late');
    // The Node is created before its Ready condition is posted (as a kubelet registers), so for a
    // moment it may be listed as unavailable; the preconfig timeout is what must end up listed.
    const degraded = await waitFor('late node degraded by the preconfig timeout', async () => {
      const r = await numbered(1);
      const listed = r?.status?.degradedNodes?.[0]?.message ?? '';
      return r?.status?.degraded === 1 && /preconfig timeout/.test(listed) ? r : undefined;
    });
    expect(degraded.status).toMatchObject({
      isInvalid: false,
      failed: 0,
      degradedNodes: [{ node: 'late', message: expect.stringMatching(/preconfig timeout/) }],
      completedAt: r1.status?.completedAt,
    });
    expect(degraded.status?.conditions?.find((c) => c.type === 'Degraded')).toMatchObject({ status: 'True' });
    const others = f.recorder.events.slice(assignedBefore).filter((e) => e.nc.metadata.name !== 'late');
    expect(others).toEqual([]);
    const events = (await f.clients.event.list({ namespace: 'default' })).items;
    expect(events.find((e) => e.reason === 'NodesDegraded')).toMatchObject({ type: 'Warning' });
    expect(events.filter((e) => e.reason === 'RolloutComplete')).toHaveLength(1);
    expect(events.find((e) => e.reason === 'RevisionInvalidated')).toBeUndefined();
  });

  it.each([
    { what: '3 minutes behind', skew: -180_000 },
    { what: 'a day ahead', skew: 86_400_000 },
  ])('(c) agent clocks $what: no false invalidation, and a stuck agent still times out', async ({ skew }) => {
    const policy = {
      updateLimit: { kind: 'count', count: 3 },
      preconfigTimeoutMs: 2000,
      configTimeoutMs: 1500,
    } as const;
    await fleetOnRevision1(f, 4, policy, {
      later: () => ({ kind: 'ok', delayMs: 400 }),
      agents: { clockSkewMs: () => skew },
    });
    const r2 = await waitFor('revision 2 complete', async () => {
      if (!(await numbered(2))) await f.clients.layer2.create(layer2('red', 200));
      const r = await numbered(2);
      return complete(r) ? r : undefined;
    });
    expect(r2.status).toMatchObject({ isInvalid: false, failed: 0, ready: 4 });

    f.agents!.behaviour = (node) => (node === nodeName(2) ? { kind: 'stuck' } : { kind: 'ok', delayMs: 30 });
    const started = Date.now();
    await f.clients.layer2.create(layer2('green', 300));
    const r3 = await waitFor('revision 3 invalid', async () => {
      const r = await numbered(3);
      return r?.status?.isInvalid ? r : undefined;
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
    expect(r3.status?.failedNodes?.[0]).toMatchObject({
      node: nodeName(2),
      message: expect.stringMatching(/config timeout/),
    });
  });

  it('(d) relabelling one node moves it, alone, to its new spec', async () => {
    await fleetOnRevision1(
      f,
      4,
      { updateLimit: { kind: 'count', count: 4 } },
      {
        labels: (i) => ({
          rack: i < 2 ? 'r1' : 'r2',
        }),
      },
    );
    await f.clients.layer2.create(layer2('rack1', 300, { nodeSelector: { matchLabels: { rack: 'r1' } } }));
    const r2 = await waitFor('revision 2 complete', async () => {
      const r = await numbered(2);
      return complete(r) ? r : undefined;
    });
    const before = f.recorder.events.length;
    await f.clients.node.mergePatch(nodeName(3), { metadata: { labels: { rack: 'r1' } } });
    await waitFor('node-003 has rack1', async () => {
      const nc = await f.clients.nodeConfig.get(nodeName(3));
      return (
        nc.spec.layer2.some((l) => l.name === 'rack1') &&
        nc.status?.configStatus === 'provisioned' &&
        nc.status.conditions?.[0]?.observedGeneration === nc.metadata.generation
      );
    });
    await new Promise((r) => setTimeout(r, 300));
    const moved = new Set(f.recorder.events.slice(before).map((e) => e.nc.metadata.name));
    expect([...moved]).toEqual([nodeName(3)]);
    const nc2 = await f.clients.nodeConfig.get(nodeName(2));
    expect(nc2.spec.layer2.map((l) => l.name)).toEqual(['blue']);
    const r = await numbered(2);
    expect(r?.status).toMatchObject({
      isInvalid: false,
      ready: 4,
      failed: 0,
      completedAt: r2.status?.completedAt,
    });
    expect(nc2.spec.revision).toBe(r2.spec.hash);
  });
});
