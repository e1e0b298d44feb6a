import { describe, expect, it } from 'vitest';
import type { NetworkConfigRevision } from '@nodenet/api';
import { type AgentBehaviour } from '@nodenet/testkit';
import {
  fleetOnRevision1 as onRevision1,
  isComplete,
  layer2,
  nodeName,
  useFleet,
  waitFor,
} from './harness.js';
import type { Policy } from '@nodenet/configurator';

const f = useFleet();
const complete = isComplete;

/** n nodes on revision 1 (blue), then later revisions with the given behaviour. */
const fleetOnRevision1 = (
  n: number,
  policy: Partial<Policy>,
  rev2: (node: string) => AgentBehaviour,
): Promise<NetworkConfigRevision> => onRevision1(f, n, policy, { later: rev2 });

const assignedHashes = (node: string): string[] =>
  f.recorder.events.filter((e) => e.nc.metadata.name === node).map((e) => e.nc.spec.revision);

describe('failures', () => {
  it('one node reports invalid: revision invalid in the same pass, failedNodes, Warning Event, rollback of exactly the nodes that took it', async () => {
    const r1 = await fleetOnRevision1(6, { updateLimit: { kind: 'count', count: 2 } }, (node) =>
      node === nodeName(2)
        ? { kind: 'invalid', delayMs: 100, message: 'health check failed: bgp session to 10.0.0.1 down' }
        : { kind: 'ok', delayMs: 100 },
    );
    await f.clients.layer2.create(layer2('red', 200));
    const r2 = await waitFor('revision 2 invalid', async () => {
      const r = (await f.revisions()).find((x) => x.spec.number === 2);
      return r?.status?.isInvalid ? r : undefined;
    });
    expect(r2.status?.failedNodes).toEqual([
      {
        node: nodeName(2),
        message: 'health check failed: bgp session to 10.0.0.1 down',
        at: expect.any(String),
      },
    ]);
    expect(r2.status?.conditions?.find((c) => c.type === 'Invalid')).toMatchObject({
      status: 'True',
      reason: 'NodesFailed',
    });
    const events = (await f.clients.event.list({ namespace: 'default' })).items;
    const warning = events.find(
      (e) => e.reason === 'RevisionInvalidated' && e.involvedObject.name === r2.metadata.name,
    );
    expect(warning?.type).toBe('Warning');
    expect(warning?.message).toContain(nodeName(2));

    // Every node ends on revision 1 again; nodes that never took revision 2 were never touched.
    await waitFor('all nodes back on revision 1', async () => {
      const ncs = (await f.clients.nodeConfig.list()).items;
      return ncs.every(
        (nc) => nc.spec.revision === r1.spec.hash && nc.status?.lastAppliedRevision === r1.spec.hash,
      );
    });
    const took = [0, 1, 2, 3].map(nodeName).filter((n) => assignedHashes(n).includes(r2.spec.hash));
    expect(took).toContain(nodeName(2));
    for (const n of [4, 5].map(nodeName)) expect(assignedHashes(n)).not.toContain(r2.spec.hash);
    // node-002 restored revision 1 on its own: moving it back changes nothing on its host, so it
    // holds no slot; every other node stayed within the limit.
    expect(f.recorder.maxInProgressExcluding([nodeName(2)])).toBeLessThanOrEqual(2);
    const r1Now = (await f.revisions())[0];
    await waitFor('revision 1 complete again', async () => complete((await f.revisions())[0]));
    expect(r1Now?.status?.isInvalid).toBe(false);

    // Re-applying the configuration equal to the invalid revision rolls nothing out.
    const eventsBefore = f.recorder.events.length;
    await f.clients.layer2.delete('red'); // back to revision 1's content: equal to the desired one
    await new Promise((r) => setTimeout(r, 300));
    await f.clients.layer2.create(layer2('red', 200)); // equal to the invalid revision 2
    await new Promise((r) => setTimeout(r, 500));
    expect((await f.revisions()).map((r) => r.spec.number)).toEqual([1, 2]);
    expect(f.recorder.events.slice(eventsBefore).filter((e) => e.nc.spec.revision !== r1.spec.hash)).toEqual(
      [],
    );

    // Deleting the invalid revision lets the same configuration be tried again, under a new number.
    await f.clients.revision.delete(r2.metadata.name);
    const r3 = await waitFor('revision with the same content again', async () =>
      (await f.revisions()).find((r) => r.spec.hash === r2.spec.hash && r.metadata.uid !== r2.metadata.uid),
    );
    expect(r3.spec.number).toBe(3); // never reused: revision 1 remembers that 2 was used
    // …and it is really tried again: node-002 gets it (and fails again, as its agent still does).
    await waitFor(
      'revision 2 tried and invalid again',
      async () => (await f.clients.revision.get(r3.metadata.name)).status?.isInvalid,
    );
  });

  it('an agent that never starts: invalid after the preconfig timeout', async () => {
    await fleetOnRevision1(
      3,
      { updateLimit: { kind: 'count', count: 3 }, preconfigTimeoutMs: 1500, configTimeoutMs: 60_000 },
      (node) => (node === nodeName(1) ? { kind: 'never' } : { kind: 'ok', delayMs: 20 }),
    );
    const started = Date.now();
    await f.clients.layer2.create(layer2('red', 200));
    const r2 = await waitFor('revision 2 invalid', async () => {
      const r = (await f.revisions()).find((x) => x.spec.number === 2);
      return r?.status?.isInvalid ? r : undefined;
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
    expect(r2.status?.failedNodes?.[0]).toMatchObject({
      node: nodeName(1),
      message: expect.stringMatching(/preconfig timeout/),
    });
  });

  it('an agent stuck in provisioning: invalid after the config timeout', async () => {
    await fleetOnRevision1(
      3,
      { updateLimit: { kind: 'count', count: 3 }, preconfigTimeoutMs: 60_000, configTimeoutMs: 1500 },
      (node) => (node === nodeName(0) ? { kind: 'stuck' } : { kind: 'ok', delayMs: 20 }),
    );
    await f.clients.layer2.create(layer2('red', 200));
    const r2 = await waitFor('revision 2 invalid', async () => {
      const r = (await f.revisions()).find((x) => x.spec.number === 2);
      return r?.status?.isInvalid ? r : undefined;
    });
    expect(r2.status?.failedNodes?.[0]).toMatchObject({
      node: nodeName(0),
      message: expect.stringMatching(/config timeout/),
    });
  });

  it('an invalid input: Accepted=False with the field path, Warning Event, no new revision; fixing it resumes', async () => {
    const r1 = await fleetOnRevision1(3, { updateLimit: { kind: 'count', count: 3 } }, () => ({
      kind: 'ok',
      delayMs: 20,
    }));
    await f.clients.layer2.create(
      layer2('red', 200, { anycastGateways: ['10.0.0.0/24'], anycastMac: '02:00:00:00:00:01' }),
    );
    const red = await waitFor('red rejected', async () => {
      const o = await f.clients.layer2.get('red');
      return o.status?.conditions?.find((c) => c.type === 'Accepted' && c.status === 'False') ? o : undefined;
    });
    const cond = red.status?.conditions?.find((c) => c.type === 'Accepted');
    expect(cond?.message).toContain('spec.anycastGateways[0]');
    expect(cond?.message).toContain('10.0.0.0/24');
    expect(red.status?.observedGeneration).toBe(red.metadata.generation);
    const events = (await f.clients.event.list({ namespace: 'default' })).items;
    expect(events.find((e) => e.reason === 'InputRejected' && e.involvedObject.name === 'red')).toMatchObject(
      { type: 'Warning' },
    );
    expect((await f.revisions()).map((r) => r.spec.number)).toEqual([1]);
    expect((await f.clients.nodeConfig.list()).items.every((nc) => nc.spec.revision === r1.spec.hash)).toBe(
      true,
    );

    await f.clients.layer2.mergePatch('red', { spec: { anycastGateways: ['10.0.0.1/24'] } });
    const r2 = await waitFor('revision 2 complete', async () => {
      const r = (await f.revisions()).find((x) => x.spec.number === 2);
      return complete(r) ? r : undefined;
    });
    expect(r2.spec.config.layer2.map((l) => l.name)).toEqual(['blue', 'red']);
    const fixed = await f.clients.layer2.get('red');
    expect(fixed.status?.conditions?.find((c) => c.type === 'Accepted')).toMatchObject({
      status: 'True',
      observedGeneration: fixed.metadata.generation,
    });
  });
});
