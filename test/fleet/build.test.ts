/**
 * The build step end to end (#25 items 1-2, #23 "one change, one revision"): devcluster with its
 * object size limit on, the real configurator, simulated agents.
 * - a revision create refused for a while (a failing admission webhook) is retried, and the change
 *   rolls out once the refusal ends, with no other input event;
 * - a valid set at the size budget (~1.2 MiB, after room for the largest agent status) rolls out; an input that would take the revision over the size budget
 *   is refused naming the figure and the limit while an unrelated change rolls out;
 * - one `kubectl apply -f` of a file holding a VRF and a Layer-2 network makes one revision.
 */
import { fileURLToPath } from 'node:url';
import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ApiError } from '@nodenet/devcluster';
import { configBytes, DEFAULT_BUDGET } from '@nodenet/configurator';
import { mergeInputs, type InputObject } from '@nodenet/api';
import { bigVrf, inputSetOfSize, SimulatedAgents } from '@nodenet/testkit';
import {
  createNode,
  fleetOnRevision1,
  isComplete,
  kubectlOf,
  layer2,
  nodeName,
  revisionNumbered,
  spawnConfigurator,
  startConfigurator,
  testPolicy,
  useFleet,
  waitFor,
} from './harness.js';

const f = useFleet();
const kubectl = kubectlOf(f);
const MiB = 1024 * 1024;

async function createAll(objects: InputObject[]): Promise<void> {
  for (let i = 0; i < objects.length; i += 32)
    await Promise.all(
      objects
        .slice(i, i + 32)
        .map((o) =>
          o.kind === 'VRFRouteConfiguration' ? f.clients.vrf.create(o) : f.clients.layer2.create(o as never),
        ),
    );
}

const conditionOf = async (name: string, type: string) =>
  (await f.clients.layer2.get(name)).status?.conditions?.find((c) => c.type === type);

describe('revision build', () => {
  it('a refused revision create is retried and the change rolls out after the refusal ends', async () => {
    await fleetOnRevision1(f, 2, {});
    // A validating webhook that times out for every revision create, as kube-apiserver reports it.
    let refusals = 0;
    f.dc.cluster.validatingAdmission = (a) => {
      if (a.resource === 'networkconfigrevisions' && a.operation === 'CREATE') {
        refusals++;
        throw new ApiError(
          500,
          'InternalError',
          'Internal error occurred: failed calling webhook "revisions.example.com": failed to call webhook: context deadline exceeded',
        );
      }
    };
    await f.clients.layer2.create(layer2('green', 300));
    const notCreated = await waitFor('green RevisionNotCreated', async () => {
      const c = await conditionOf('green', 'Applied');
      return c?.reason === 'RevisionNotCreated' ? c : undefined;
    });
    expect(notCreated.status).toBe('False');
    expect(notCreated.message).toContain('failed calling webhook "revisions.example.com"');
    expect((await f.clients.layer2.get('green')).status?.revision).toBeUndefined();
    // Several attempts while the webhook fails (backoff 0.5 s, 1 s, 2 s, …), no revision 2.
    await waitFor('a third refused create', () => refusals >= 3, 15_000);
    expect(await revisionNumbered(f, 2)).toBeUndefined();
    f.dc.cluster.validatingAdmission = undefined;
    // No input changes: the configurator builds again on its own.
    const r2 = await waitFor(
      'revision 2 complete',
      async () => {
        const r = await revisionNumbered(f, 2);
        return isComplete(r) ? r : undefined;
      },
      40_000,
    );
    expect(r2.spec.config.layer2.map((e) => e.name)).toEqual(['blue', 'green']);
    await waitFor('green Applied', async () =>
      (await conditionOf('green', 'Applied'))?.status === 'True' ? true : undefined,
    );
  }, 90_000);

  it('a valid set at the size budget rolls out on devcluster with its object size limit on', async () => {
    for (let i = 0; i < 2; i++) await createNode(f.clients, nodeName(i));
    f.agents = new SimulatedAgents({
      kubeconfigPath: f.dc.kubeconfigPath,
      behaviour: () => ({ kind: 'ok', delayMs: 30 }),
    });
    await f.agents.start();
    // The default budget leaves room for a NodeConfig's largest status (issue 37): spec + status fit.
    const { inputs, configBytes } = inputSetOfSize(DEFAULT_BUDGET.maxConfigBytes - 8 * 1024);
    expect(configBytes).toBeGreaterThan(DEFAULT_BUDGET.maxConfigBytes - 16 * 1024);
    expect(configBytes).toBeLessThanOrEqual(DEFAULT_BUDGET.maxConfigBytes);
    await createAll([...inputs.vrf, ...inputs.layer2]);
    // The binary, with the production lease: a build at the budget takes seconds of CPU, and the
    // test lease (3 s) would lapse while this process also serves the API.
    const child = spawnConfigurator(f.dc.kubeconfigPath, [
      ...['--leader-election-lease-duration', '15s', '--leader-election-renew-deadline', '10s'],
      ...['--update-limit', '2', '--build-quiet-period', '200ms'],
    ]);
    try {
      const r1 = await waitFor(
        'revision 1 complete',
        async () => {
          const r = await revisionNumbered(f, 1);
          return isComplete(r) ? r : undefined;
        },
        400_000,
        1000,
      );
      expect(r1.spec.config.vrf).toHaveLength(inputs.vrf.length);
      expect(r1.spec.config.layer2).toHaveLength(inputs.layer2.length);
      // Stored under devcluster's 1.5 MiB limit, as a default etcd stores them.
      expect(Buffer.byteLength(JSON.stringify(r1))).toBeLessThan(1.5 * MiB);
      for (const nc of (await f.clients.nodeConfig.list()).items)
        expect(Buffer.byteLength(JSON.stringify(nc))).toBeLessThan(1.5 * MiB);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  }, 600_000);

  it('an input over the budget is refused with the figure and the limit while an unrelated change rolls out', async () => {
    await fleetOnRevision1(f, 2, {});
    const base = configBytes(mergeInputs({ vrf: [], layer2: [layer2('blue', 100)], routingTable: [] }));
    // A site budget 8 KB above what is in force: a VRF of 100 + 100 prefixes (~10 KB) crosses it, a
    // small network applied after it fits.
    const budget = { ...DEFAULT_BUDGET, maxConfigBytes: base + 8000 };
    await f.configurator?.stop();
    f.configurator = await startConfigurator(f.dc.kubeconfigPath, testPolicy({}), { budget });
    await f.clients.vrf.create(bigVrf('too-much', 90, 100));
    await f.clients.layer2.create(layer2('green', 300));
    const accepted = await waitFor('too-much refused', async () => {
      const c = (await f.clients.vrf.get('too-much')).status?.conditions?.find((x) => x.type === 'Accepted');
      return c?.status === 'False' ? c : undefined;
    });
    expect(accepted.message).toMatch(
      new RegExp(
        `the revision would be \\d+ bytes, over the limit of ${budget.maxConfigBytes} bytes \\(--max-revision-bytes\\)`,
      ),
    );
    const r2 = await waitFor('revision 2 complete', async () => {
      const r = await revisionNumbered(f, 2);
      return isComplete(r) ? r : undefined;
    });
    expect(r2.spec.config.layer2.map((e) => e.name)).toEqual(['blue', 'green']);
    expect(r2.spec.config.vrf).toEqual([]);
    expect(configBytes(r2.spec.config)).toBeLessThanOrEqual(budget.maxConfigBytes);
    expect(
      (await f.clients.vrf.get('too-much')).status?.conditions?.find((x) => x.type === 'Applied'),
    ).toMatchObject({
      status: 'False',
      reason: 'HeldBack',
    });
    expect(await revisionNumbered(f, 3)).toBeUndefined();
  }, 90_000);

  it('one kubectl apply -f of a file holding a VRF and a Layer-2 network makes one revision (the binary, default quiet period)', async () => {
    await createNode(f.clients, nodeName(0));
    f.agents = new SimulatedAgents({
      kubeconfigPath: f.dc.kubeconfigPath,
      behaviour: () => ({ kind: 'ok', delayMs: 30 }),
    });
    await f.agents.start();
    const child: ChildProcess = spawnConfigurator(f.dc.kubeconfigPath);
    try {
      await kubectl('apply', '-f', fileURLToPath(new URL('../../examples/vrf.yaml', import.meta.url)));
      const r1 = await waitFor(
        'revision 1 complete',
        async () => {
          const r = await revisionNumbered(f, 1);
          return isComplete(r) ? r : undefined;
        },
        30_000,
      );
      expect(r1.spec.config.vrf.map((e) => e.name)).toEqual(['tenant-a']);
      expect(r1.spec.config.layer2.map((e) => e.name)).toEqual(['tenant-a-app']);
      // A folder of two files, applied at once, is one change too.
      await kubectl(
        'apply',
        '-f',
        fileURLToPath(new URL('../../examples/layer2-networks.yaml', import.meta.url)),
        '-f',
        fileURLToPath(new URL('../../examples/routing-table.yaml', import.meta.url)),
      );
      const r2 = await waitFor(
        'revision 2 complete',
        async () => {
          const r = await revisionNumbered(f, 2);
          return isComplete(r) ? r : undefined;
        },
        30_000,
      );
      expect(r2.spec.config.layer2.map((e) => e.name).sort()).toEqual(['storage', 'tenant-a-app', 'web']);
      expect(r2.spec.config.routingTable).toHaveLength(1);
      // Past another quiet period: still two revisions.
      await new Promise((r) => setTimeout(r, 3000));
      expect((await f.revisions()).map((r) => r.spec.number)).toEqual([1, 2]);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  }, 90_000);
});
