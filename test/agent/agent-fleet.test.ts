/**
 * End to end with every real part: devcluster, the configurator binary (update limit 1) and three
 * agent binaries, each in its own network namespace with real netlink and its own real FRR.
 * A good revision reaches all three nodes; a revision that breaks the health check on the first node
 * halts the rollout after that node, rolls it back, and leaves the other two untouched.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { Layer2NetworkConfiguration, NetworkConfigRevision, NodeConfig } from '@nodenet/api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createNode } from '../fleet/harness.js';
import { FRR_PREREQUISITES } from '../frr/support/frr-netns.js';
import { describePrivileged } from '../support/privileged.js';
import { AgentCluster, PEER_ADDR, repoRoot, type NodeEnv } from './support/agent-host.js';

const NODES = ['node-1', 'node-2', 'node-3'];

const layer2 = (name: string, id: number, gateways: string[]): Layer2NetworkConfiguration => ({
  apiVersion: 'network.nodenet.io/v1alpha1',
  kind: 'Layer2NetworkConfiguration',
  metadata: { name },
  spec: { id, vni: 20000 + id, mtu: 1500, anycastMac: '02:00:00:00:00:01', anycastGateways: gateways },
});

let cluster: AgentCluster;
const envs: NodeEnv[] = [];
let configurator: ChildProcess;

async function until<T>(
  what: string,
  fn: () => Promise<T | undefined | false>,
  timeoutMs = 90_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const v = await fn();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 250));
  }
  const state = (await nodeConfigs()).map((nc) => ({
    name: nc.metadata.name,
    revision: nc.spec.revision.slice(0, 10),
    status: nc.status && { ...nc.status, conditions: undefined },
  }));
  const revs = (await revisions()).map((r) => ({
    name: r.metadata.name,
    status: r.status && { ...r.status, conditions: undefined },
  }));
  throw new Error(
    `timed out waiting for ${what}; NodeConfigs: ${JSON.stringify(state)}; revisions: ${JSON.stringify(revs)}`,
  );
}

const nodeConfigs = async (): Promise<NodeConfig[]> => (await cluster.clients.nodeConfig.list()).items;
const revisions = async (): Promise<NetworkConfigRevision[]> =>
  (await cluster.clients.revision.list()).items.sort((a, b) => a.spec.number - b.spec.number);

describePrivileged(
  'nodenet fleet end to end (devcluster + configurator + 3 agents in namespaces)',
  FRR_PREREQUISITES,
  () => {
    beforeAll(async () => {
      cluster = new AgentCluster('fl');
      await cluster.setUp(['packages/agent', 'packages/configurator']);
      for (const name of NODES) {
        await createNode(cluster.clients, name);
        envs.push(await cluster.addNode(name));
      }
      configurator = spawn(
        process.execPath,
        [
          join(repoRoot, 'packages/configurator/dist/main.js'),
          '--kubeconfig',
          cluster.dc.kubeconfigPath,
          '--update-limit',
          '1',
          '--max-failures',
          '0',
          '--leader-election-namespace',
          'default',
          '--leader-election-lease-duration',
          '3s',
          '--leader-election-renew-deadline',
          '2s',
          '--leader-election-retry-period',
          '500ms',
          '--metrics-addr',
          '127.0.0.1:0',
          '--health-addr',
          '127.0.0.1:0',
          '--identity',
          'fleet-test',
          '--log-level',
          'warn',
        ],
        { stdio: ['ignore', 'ignore', 'inherit'] },
      );
      for (const env of envs) env.startAgent({ resync: '5s' });
    }, 180_000);

    afterAll(async () => {
      if (configurator && configurator.exitCode === null) {
        const gone = new Promise((r) => configurator.once('exit', r));
        configurator.kill('SIGTERM');
        await gone;
      }
      await cluster?.tearDown();
    });

    it('a good revision reaches all three nodes', async () => {
      await cluster.clients.layer2.create(layer2('l2-100', 100, ['10.100.0.1/24']));
      const [rev1] = await until('first revision', async () =>
        (await revisions()).length === 1 ? revisions() : undefined,
      );
      await until('all three provisioned', async () => {
        const ncs = await nodeConfigs();
        return (
          ncs.length === 3 &&
          ncs.every(
            (nc) =>
              nc.status?.configStatus === 'provisioned' && nc.status.lastAppliedRevision === rev1!.spec.hash,
          )
        );
      });
      for (const env of envs) {
        expect(env.hasAddress('l2.100', '10.100.0.1/24')).toBe(true);
        expect(env.link('vx.20100')?.master).toBe('l2.100');
      }
    }, 120_000);

    it('a revision that breaks the health check on the first node halts after it, rolls it back, and leaves the others untouched', async () => {
      const [rev1] = await revisions();
      const before = new Map((await nodeConfigs()).map((nc) => [nc.metadata.name, nc.metadata.generation]));
      // The gateway takes the peer's address: the path to the health-check target breaks.
      await cluster.clients.layer2.create(layer2('l2-200', 200, [`${PEER_ADDR}/24`]));

      const rev2 = await until('second revision marked invalid', async () => {
        const r = (await revisions())[1];
        return r?.status?.isInvalid ? r : undefined;
      });
      expect(rev2.status?.failedNodes?.map((f) => f.node)).toEqual(['node-1']);
      expect(rev2.status?.failedNodes?.[0]?.message).toMatch(/^health check failed: tcp\/peer \(/);

      // node-1 is rolled back to the first revision and reports it provisioned again.
      await until('node-1 back on the first revision', async () => {
        const nc = await cluster.clients.nodeConfig.get('node-1');
        return nc.spec.revision === rev1!.spec.hash && nc.status?.configStatus === 'provisioned';
      });
      expect(envs[0]!.link('l2.200')).toBeUndefined();
      expect(envs[0]!.hasAddress('l2.100', '10.100.0.1/24')).toBe(true);

      // node-2 and node-3 never got the bad revision: same spec generation, nothing on their hosts.
      for (const [i, name] of [
        [1, 'node-2'],
        [2, 'node-3'],
      ] as const) {
        const nc = await cluster.clients.nodeConfig.get(name);
        expect(nc.metadata.generation).toBe(before.get(name));
        expect(nc.spec.revision).toBe(rev1!.spec.hash);
        expect(nc.status?.configStatus).toBe('provisioned');
        expect(envs[i]!.link('l2.200')).toBeUndefined();
      }
    }, 120_000);
  },
);
