/**
 * The build step end to end (#25 items 1-2, #23 "one change, one revision"): devcluster with its
 * object size limit on, the real configurator, simulated agents.
 * - a revision create refused for a while (a failing admission webhook) is retried, and the change
 *   rolls out once the refusal ends, with no other input event;
 * - a valid set of 1.4 MiB rolls out; an input that would take the revision over the size budget
 *   is refused naming the figure and the limit while an unrelated change rolls out;
 * - one `kubectl apply -f` of a file holding a VRF and a Layer-2 network makes one revision.
 */
import { fileURLToPath } from 'node:url';
import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ApiError } from '@nodenet/devcluster';
import { DEFAULT_BUDGET } from '@nodenet/configurator';
import type { InputObject } from '@nodenet/api';
import { bigVrf, inputSetOfSize } from '../support/big-inputs.js';
import { SimulatedAgents } from '../support/simulated-agent.js';
import {
  createNode,
  fleetOnRevision1,
  isComplete,
  kubectlOf,
  layer2,
  nodeName,
  revisionNumbered,
  spawnConfigurator,
  useFleet,
  waitFor,
} from './harness.js';

const f = useFleet();
const kubectl = kubectlOf(f);
const MiB = 1024 * 1024;

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

  it('a 1.4 MiB set rolls out under the size limit; an input over the budget is refused with the figure while an unrelated change rolls out', async () => {
    for (let i = 0; i < 2; i++) await createNode(f.clients, nodeName(i));
    f.agents = new SimulatedAgents({
      kubeconfigPath: f.dc.kubeconfigPath,
      behaviour: () => ({ kind: 'ok', delayMs: 30 }),
    });
    await f.agents.start();
    const { inputs, configBytes } = inputSetOfSize(1.4 * MiB);
    expect(configBytes).toBeGreaterThan(1.39 * MiB);
    const create = (o: InputObject): Promise<unknown> =>
      o.kind === 'VRFRouteConfiguration' ? f.clients.vrf.create(o) : f.clients.layer2.create(o as never);
    const all: InputObject[] = [...inputs.vrf, ...inputs.layer2];
    for (let i = 0; i < all.length; i += 32) await Promise.all(all.slice(i, i + 32).map(create));
    // The binary, with the production lease: a build at the budget takes seconds of CPU, and the
    // test lease (3 s) would lapse while this process also serves the API.
    const child = spawnConfigurator(f.dc.kubeconfigPath, [
      ...['--leader-election-lease-duration', '15s', '--leader-election-renew-deadline', '10s'],
      ...['--update-limit', '2', '--build-quiet-period', '200ms'],
    ]);
    try {
      await rollOutAndRefuse(inputs);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  }, 600_000);

  async function rollOutAndRefuse(inputs: ReturnType<typeof inputSetOfSize>['inputs']): Promise<void> {
    const r1 = await waitFor(
      'revision 1 complete',
      async () => {
        const r = await revisionNumbered(f, 1);
        return isComplete(r) ? r : undefined;
      },
      240_000,
    );
    expect(r1.spec.config.vrf).toHaveLength(inputs.vrf.length);
    expect(r1.spec.config.layer2).toHaveLength(inputs.layer2.length);
    // devcluster stores what a default etcd stores: the revision and each NodeConfig are under 1.5 MiB.
    expect(Buffer.byteLength(JSON.stringify(r1))).toBeLessThan(1.5 * MiB);

    // 500 + 500 prefixes (~50 KB) would take the revision over the budget; a small network after it fits.
    await f.clients.vrf.create(bigVrf('too-much', 90, 500));
    await waitFor(
      'too-much seen',
      async () => (await f.clients.vrf.get('too-much')).status?.conditions !== undefined,
      90_000,
    );
    await f.clients.layer2.create(layer2('green', 4000));
    const accepted = await waitFor(
      'too-much refused',
      async () => {
        const c = (await f.clients.vrf.get('too-much')).status?.conditions?.find(
          (x) => x.type === 'Accepted',
        );
        return c?.status === 'False' ? c : undefined;
      },
      90_000,
    );
    expect(accepted.message).toMatch(
      new RegExp(
        `the revision would be \\d+ bytes, over the limit of ${DEFAULT_BUDGET.maxConfigBytes} bytes \\(--max-revision-bytes\\)`,
      ),
    );
    const r2 = await waitFor(
      'revision 2 complete',
      async () => {
        const r = await revisionNumbered(f, 2);
        return isComplete(r) ? r : undefined;
      },
      240_000,
    );
    expect(r2.spec.config.layer2.some((e) => e.name === 'green')).toBe(true);
    expect(r2.spec.config.vrf.some((e) => e.name === 'too-much')).toBe(false);
    expect(await revisionNumbered(f, 3)).toBeUndefined();
  }

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
