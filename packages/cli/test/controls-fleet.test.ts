/**
 * The plugin's controls against the real configurator (in-process Controller over HTTP) and
 * simulated agents: `kubectl nodenet pause` stops new starts after the node in progress, `resume`
 * lets the rollout complete, and `status` follows it.
 */
import type { NodeConfig } from '@nodenet/api';
import { describe, expect, it } from 'vitest';
import {
  createNode,
  layer2,
  startConfigurator,
  testPolicy,
  useFleet,
  waitFor,
} from '../../../test/fleet/harness.js';
import { SimulatedAgents } from '@nodenet/testkit';
import { run } from '@nodenet/cli';

const NODES = ['node-1', 'node-2', 'node-3', 'node-4'];

describe('kubectl nodenet pause / resume with the configurator', () => {
  const f = useFleet();

  const cli = async (...args: string[]): Promise<{ code: number; out: string }> => {
    let out = '';
    const code = await run([...args, '--kubeconfig', f.dc.kubeconfigPath], {
      stdout: { write: (s: string) => (out += s) },
      stderr: { write: (s: string) => (out += s) },
    });
    return { code, out };
  };
  const carrying = async (hash: string): Promise<NodeConfig[]> =>
    (await f.clients.nodeConfig.list()).items.filter((nc) => nc.spec.revision === hash);

  it('pause holds the rollout after the node in progress; resume completes it', async () => {
    for (const n of NODES) await createNode(f.clients, n);
    f.agents = new SimulatedAgents({ kubeconfigPath: f.dc.kubeconfigPath, defaultDelayMs: 50 });
    await f.agents.start();
    f.configurator = await startConfigurator(f.dc.kubeconfigPath, testPolicy());
    await f.clients.layer2.create(layer2('web', 100));
    await waitFor('web rolled out', async () => (await cli('status')).code === 0);

    // The next revision takes a few seconds per node, so the pause lands while its first node applies.
    f.agents.behaviour = () => ({ kind: 'ok', delayMs: 4000 });
    await f.clients.layer2.create(layer2('storage', 101));
    const rev2 = await waitFor('the revision with storage', async () =>
      (await f.revisions()).find((r) => r.spec.config.layer2.some((l) => l.name === 'storage')),
    );
    const paused = await cli('pause', rev2.metadata.name);
    expect(paused.code).toBe(0);

    const first = await waitFor('the first node provisioned with storage', async () =>
      (await carrying(rev2.spec.hash)).find((nc) => nc.status?.lastAppliedRevision === rev2.spec.hash),
    );
    // The configurator plans again on every change; give it several passes to (not) start a node.
    await new Promise((r) => setTimeout(r, 1500));
    expect((await carrying(rev2.spec.hash)).map((nc) => nc.metadata.name)).toEqual([first.metadata.name]);
    const status = await cli('status');
    expect(status.code).toBe(1);
    expect(status.out).toContain('State:     Paused');

    f.agents.behaviour = () => ({ kind: 'ok', delayMs: 50 });
    expect((await cli('resume', rev2.metadata.name)).code).toBe(0);
    await waitFor('storage rolled out', async () => (await cli('status')).code === 0, 30_000);
    expect((await carrying(rev2.spec.hash)).map((nc) => nc.metadata.name).sort()).toEqual(NODES);
  }, 60_000);
});
