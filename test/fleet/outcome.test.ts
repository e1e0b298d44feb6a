/**
 * The outcome on inputs (issue 19): after a rollback the changed input reads Applied=False,
 * RolledBack, naming the revision and the failed node; the unchanged one stays Applied; the revision
 * names its suspects. devcluster, the real configurator, simulated agents, kubectl.
 */
import { describe, expect, it } from 'vitest';
import {
  fleetOnRevision1,
  kubectlOf,
  layer2,
  nodeName,
  revisionNumbered,
  useFleet,
  waitFor,
} from './harness.js';

const f = useFleet();
const kubectl = kubectlOf(f);
const applied = async (name: string) =>
  (await f.clients.layer2.get(name)).status?.conditions?.find((c) => c.type === 'Applied');

describe('outcome on inputs', () => {
  it('a rolled-back change reads Applied=False RolledBack naming revision and nodes; the revision names it', async () => {
    await fleetOnRevision1(
      f,
      3,
      { updateLimit: { kind: 'count', count: 1 } },
      {
        later: (node) =>
          node === nodeName(0)
            ? { kind: 'invalid', delayMs: 50, message: 'health check failed: tcp/peer (connection refused)' }
            : { kind: 'ok', delayMs: 20 },
      },
    );
    await waitFor('blue Applied', async () =>
      (await applied('blue'))?.status === 'True' ? true : undefined,
    );
    await f.clients.layer2.create(layer2('red', 200));
    const r2 = await waitFor('revision 2 invalid', async () => {
      const r = await revisionNumbered(f, 2);
      return r?.status?.isInvalid ? r : undefined;
    });
    expect(r2.spec.changedInputs).toEqual(['Layer2NetworkConfiguration/red@1']);
    const red = await waitFor('red RolledBack', async () => {
      const c = await applied('red');
      return c?.reason === 'RolledBack' ? c : undefined;
    });
    expect(red.status).toBe('False');
    expect(red.message).toContain(r2.metadata.name);
    expect(red.message).toContain(`${nodeName(0)}: health check failed: tcp/peer (connection refused)`);
    expect(await applied('blue')).toMatchObject({ status: 'True', reason: 'Applied' });
    const table = await kubectl('get', 'layer2', '--no-headers');
    expect(table).toMatch(/^blue\s.*\sTrue\s+Applied\s/m);
    expect(table).toMatch(/^red\s.*\sTrue\s+RolledBack\s/m);
  });

  it('an invalid input holds back only itself: an unrelated change rolls out while the bad generation is held back and marked', async () => {
    await fleetOnRevision1(
      f,
      3,
      { updateLimit: { kind: 'count', count: 3 } },
      {
        later: () => ({
          kind: 'ok',
          delayMs: 20,
        }),
      },
    );
    await waitFor('blue Applied', async () =>
      (await applied('blue'))?.status === 'True' ? true : undefined,
    );
    // The API server takes it (the CEL rules pass); the configurator refuses the network address.
    await f.clients.layer2.mergePatch('blue', {
      spec: { anycastMac: '02:00:00:00:00:01', anycastGateways: ['10.0.0.0/24'] },
    });
    await f.clients.layer2.create(layer2('red', 200));
    const r2 = await waitFor('revision 2 complete', async () => {
      const r = await revisionNumbered(f, 2);
      return r?.status?.completedAt ? r : undefined;
    });
    expect(r2.spec.changedInputs).toEqual(['Layer2NetworkConfiguration/red@1']);
    const blueEntry = r2.spec.config.layer2.find((e) => e.name === 'blue');
    expect(blueEntry?.anycastGateways).toEqual([]);
    expect(r2.spec.config.layer2.map((e) => e.name).sort()).toEqual(['blue', 'red']);
    const blue = await waitFor('blue HeldBack', async () => {
      const c = await applied('blue');
      return c?.reason === 'HeldBack' ? c : undefined;
    });
    expect(blue.message).toContain('generation 2 is invalid');
    const accepted = (await f.clients.layer2.get('blue')).status?.conditions?.find(
      (c) => c.type === 'Accepted',
    );
    expect(accepted).toMatchObject({ status: 'False', reason: 'Invalid' });
    expect(accepted?.message).toContain('spec.anycastGateways[0]');
    await waitFor('red Applied', async () => ((await applied('red'))?.status === 'True' ? true : undefined));
    const table = await kubectl('get', 'layer2', '--no-headers');
    expect(table).toMatch(/^blue\s.*\sFalse\s+HeldBack\s/m);
    expect(table).toMatch(/^red\s.*\sTrue\s+Applied\s/m);
  });

  it('a follow-up write made while the change was in flight stays held back after the failure (issue 35): an unrelated merge does not re-send it', async () => {
    await fleetOnRevision1(
      f,
      3,
      { updateLimit: { kind: 'count', count: 1 } },
      {
        labels: (i) => ({ zone: i === 2 ? 'z2' : 'z1' }),
        later: (node) =>
          node === nodeName(0)
            ? { kind: 'invalid', delayMs: 3000, message: 'cut off: mtu 9000' }
            : { kind: 'ok', delayMs: 20 },
      },
    );
    await f.clients.layer2.create(
      layer2('red', 200, { mtu: 9000, nodeSelector: { matchLabels: { zone: 'z1' } } }),
    );
    await waitFor('revision 2 rolling out', async () => ((await revisionNumbered(f, 2)) ? true : undefined));
    // While node 0 applies it: the same MTU for every node (a new generation carrying the change).
    await f.clients.layer2.mergePatch('red', { spec: { nodeSelector: null } });
    const r2 = await waitFor('revision 2 invalid', async () => {
      const r = await revisionNumbered(f, 2);
      return r?.status?.isInvalid ? r : undefined;
    });
    expect(r2.status?.followUpGenerations).toEqual(['Layer2NetworkConfiguration/red@2']);
    await f.clients.layer2.create(layer2('green', 300));
    const merged = await waitFor('a revision with green', async () => {
      const list = await f.clients.revision.list();
      return list.items.find((r) => r.spec.config.layer2.some((e) => e.name === 'green'));
    });
    // red never ran anywhere without failing: held back, it is left out.
    expect(merged.spec.config.layer2.map((e) => e.name).sort()).toEqual(['blue', 'green']);
  }, 90_000);
});
