/**
 * The fleet-wide pause (issue 19): RolloutPolicy `default` with spec.paused holds every revision,
 * one created after the pause too; resume continues; its status says where the rollout stands.
 * devcluster, the real configurator, simulated agents, kubectl as the client.
 */
import { describe, expect, it } from 'vitest';
import { fleetOnRevision1, kubectlOf, layer2, revisionNumbered, useFleet, waitFor } from './harness.js';

const f = useFleet();
const kubectl = kubectlOf(f);
const onHash = async (hash: string): Promise<string[]> =>
  (await f.clients.nodeConfig.list()).items
    .filter((nc) => nc.spec.revision === hash)
    .map((nc) => nc.metadata.name);

describe('fleet-wide pause', () => {
  it('holds across a new revision; resume continues it; the policy status names the desired revision', async () => {
    const r1 = await fleetOnRevision1(f, 3, { updateLimit: { kind: 'count', count: 3 } });
    const policy = `apiVersion: network.nodenet.io/v1alpha1
kind: RolloutPolicy
metadata:
  name: default
spec:
  paused: true
`;
    await kubectlApply(policy);
    await waitFor('the policy status shows revision 1 and Paused', async () => {
      const rp = await f.clients.rolloutPolicy.get('default');
      return rp.status?.desiredRevision === r1.metadata.name &&
        rp.status.conditions?.some((c) => c.type === 'Paused' && c.status === 'True')
        ? rp
        : undefined;
    });
    // A change after the pause: its revision is created, desired, and held.
    await f.clients.layer2.create(layer2('red', 200));
    const r2 = await waitFor('revision 2', () => revisionNumbered(f, 2));
    await waitFor('revision 2 reads Paused', async () => {
      return (await revisionNumbered(f, 2))?.status?.phase === 'Paused' ? true : undefined;
    });
    // Several passes (the status writes above caused some) and no node moved.
    await new Promise((r) => setTimeout(r, 1000));
    expect(await onHash(r2.spec.hash)).toEqual([]);
    expect((await revisionNumbered(f, 2))?.spec.paused).not.toBe(true);
    const rp = await f.clients.rolloutPolicy.get('default');
    expect(rp.status).toMatchObject({
      desiredRevision: r2.metadata.name,
      desiredNumber: 2,
      phase: 'Paused',
      ready: 0,
    });
    expect(await kubectl('get', 'rolloutpolicy', '--no-headers')).toMatch(
      /^default\s+true\s+rev-000002-\w+\s+Paused\s/,
    );

    await kubectl('patch', 'rolloutpolicy', 'default', '--type', 'merge', '-p', '{"spec":{"paused":false}}');
    await waitFor('revision 2 complete on every node', async () =>
      (await revisionNumbered(f, 2))?.status?.phase === 'Complete' ? true : undefined,
    );
    expect((await onHash(r2.spec.hash)).sort()).toHaveLength(3);
    await waitFor('the policy status follows', async () => {
      const s = (await f.clients.rolloutPolicy.get('default')).status;
      return s?.phase === 'Complete' && s.ready === 3 ? true : undefined;
    });
  });
});

async function kubectlApply(yaml: string): Promise<void> {
  const { execa } = await import('execa');
  await execa('kubectl', ['--kubeconfig', f.dc.kubeconfigPath, 'apply', '-f', '-'], { input: yaml });
}
