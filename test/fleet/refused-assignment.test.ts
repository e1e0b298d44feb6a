/**
 * An assignment write the API server refuses (issue #37): a NodeConfig whose status leaves no room
 * for the next spec made every write to it fail (`500 etcdserver: request is too large`), the
 * configurator kept the node in the only slot, healthy nodes never got the revision, and `why` said
 * "queued … when a slot frees up". Here the devcluster stores objects of at most 150,000 bytes (a
 * site whose etcd limit is below --max-revision-bytes), node-000's agent status is large, and
 * revision 2 fits every node but node-000: after a few refused writes node-000 leaves the slot to
 * node-001, is listed degraded with the API's error, is counted against nothing, and `kubectl
 * nodenet why node-000` prints the error.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '@nodenet/cli';
import { startDevCluster, type DevCluster } from '@nodenet/devcluster';
import { KubeClient, loadKubeConfig, makeClients, type Clients } from '@nodenet/kube';
import {
  bigVrf,
  createNode,
  CRDS_DIR,
  isComplete,
  layer2,
  nodeName,
  SimulatedAgents,
  startConfigurator,
  testPolicy,
  waitFor,
  type RunningConfigurator,
} from './harness.js';

const MAX_OBJECT_BYTES = 150_000;

let dc: DevCluster | undefined;
let clients: Clients | undefined;
let agents: SimulatedAgents | undefined;
let configurator: RunningConfigurator | undefined;
afterEach(async () => {
  await configurator?.stop();
  await agents?.stop();
  clients?.client.close();
  await dc?.stop();
});

const word = (n: number): string => 'w'.repeat(n);
/** What an agent may write into `observed` (within the CRD's bounds): about 110 kB. */
const bigObserved = () => ({
  bgpSessions: Array.from({ length: 256 }, (_, i) => ({
    vrf: word(60),
    peer: `${word(50)}${String(i).padStart(8, '0')}`,
    state: word(64),
    since: '2026-11-27T19:00:00Z',
    remoteAs: 65000,
  })),
  vnis: Array.from({ length: 200 }, (_, i) => ({
    vni: 16_000_000 + i,
    type: 'L3',
    vrf: word(40),
    vxlanInterface: word(40),
    state: word(40),
  })),
});

async function cli(kubeconfig: string, ...args: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const io = { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (out += s) } };
  const code = await run([...args, '--kubeconfig', kubeconfig], io);
  return { code, out };
}

describe('an assignment write the API server refuses', () => {
  it('frees the slot, shows the node degraded with the API error, and counts against nothing', async () => {
    dc = await startDevCluster({ crdsDir: CRDS_DIR, maxObjectBytes: MAX_OBJECT_BYTES });
    const c = (clients = makeClients(new KubeClient(loadKubeConfig(dc.kubeconfigPath))));
    for (let i = 0; i < 2; i++) await createNode(c, nodeName(i));
    agents = new SimulatedAgents({ kubeconfigPath: dc.kubeconfigPath, defaultDelayMs: 30 });
    await agents.start();
    await c.layer2.create(layer2('blue', 100));
    configurator = await startConfigurator(
      dc.kubeconfigPath,
      testPolicy({ updateLimit: { kind: 'count', count: 1 } }),
    );
    await waitFor('revision 1 complete', async () => {
      const r = (await c.revision.list()).items.find((x) => x.spec.number === 1);
      return isComplete(r) ? r : undefined;
    });
    // node-000's agent reports a large observed state (its own status: the agent's write, which fits).
    await c.nodeConfig.patchStatus(nodeName(0), { status: { observed: bigObserved() } } as never);
    // Revision 2: about 70 kB of VRF prefixes on every node; beside node-000's status it is too large.
    await c.vrf.create(bigVrf('big', 1, 700));

    const r2 = await waitFor(
      'revision 2 on node-001 and node-000 listed degraded',
      async () => {
        const r = (await c.revision.list()).items.find((x) => x.spec.number === 2);
        const nc1 = await c.nodeConfig.get(nodeName(1));
        const listed = r?.status?.degradedNodes?.some((d) => d.node === nodeName(0));
        return r && nc1.spec.revision === r.spec.hash && listed ? r : undefined;
      },
      90_000,
    );
    const degraded = r2.status?.degradedNodes?.find((d) => d.node === nodeName(0));
    expect(degraded?.message).toMatch(
      /^unavailable: assignment write refused by the API server \(500\): etcdserver: request is too large/,
    );
    // Not the change's fault: no failure counted, the revision stays valid.
    expect(r2.status?.failed ?? 0).toBe(0);
    expect(r2.status?.isInvalid ?? false).toBe(false);
    // The refused node still carries revision 1.
    const nc0 = await c.nodeConfig.get(nodeName(0));
    expect(nc0.metadata.labels?.['network.nodenet.io/revision-number']).toBe('1');
    // A Warning Event names the refusal on the NodeConfig.
    const events = (await c.event.list({ namespace: 'default' })).items;
    expect(
      events.some((e) => e.reason === 'AssignmentRefused' && e.message?.includes('request is too large')),
    ).toBe(true);

    const why = await cli(dc.kubeconfigPath, 'why', nodeName(0));
    expect(why.out).toContain('State:     unavailable');
    expect(why.out).toContain(
      'assignment write refused by the API server (500): etcdserver: request is too large',
    );
    expect(why.out).not.toContain('when a slot frees up');
  }, 150_000);
});
