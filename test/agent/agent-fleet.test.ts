/**
 * End to end with every real part: devcluster, the configurator binary (update limit 1) and three
 * agent binaries, each in its own network namespace with real netlink and its own real FRR.
 * A good revision reaches all three nodes; a revision that breaks the health check on the first node
 * halts the rollout after that node, rolls it back, and leaves the other two untouched.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createNode } from '../fleet/harness.js';
import {
  FRR_PREREQUISITES,
  AgentCluster,
  PEER_ADDR,
  fleetQueries,
  layer2Input,
  spawnHostConfigurator,
  stopProcess,
  type NodeEnv,
} from '@nodenet/testkit';
import { describePrivileged } from '../support/privileged.js';

const NODES = ['node-1', 'node-2', 'node-3'];

const layer2 = layer2Input;

let cluster: AgentCluster;
const envs: NodeEnv[] = [];
let q: ReturnType<typeof fleetQueries>;
let configurator: ChildProcess;

describePrivileged(
  'nodenet fleet end to end (devcluster + configurator + 3 agents in namespaces)',
  FRR_PREREQUISITES,
  () => {
    beforeAll(async () => {
      cluster = new AgentCluster('fl');
      await cluster.setUp(['packages/agent', 'packages/configurator']);
      q = fleetQueries(cluster.clients);
      for (const name of NODES) {
        await createNode(cluster.clients, name);
        envs.push(await cluster.addNode(name));
      }
      configurator = spawnHostConfigurator(cluster.dc.kubeconfigPath);
      for (const env of envs) env.startAgent({ resync: '5s' });
    }, 180_000);

    afterAll(async () => {
      await stopProcess(configurator);
      await cluster?.tearDown();
    });

    it('a good revision reaches all three nodes', async () => {
      await cluster.clients.layer2.create(layer2('l2-100', 100, ['10.100.0.1/24']));
      await q.firstRevisionEverywhere(3);
      for (const env of envs) {
        expect(env.hasAddress('l2.100', '10.100.0.1/24')).toBe(true);
        expect(env.link('vx.20100')?.master).toBe('l2.100');
      }
    }, 120_000);

    it('a revision that breaks the health check on the first node halts after it, rolls it back, and leaves the others untouched', async () => {
      const [rev1] = await q.revisions();
      const before = new Map((await q.nodeConfigs()).map((nc) => [nc.metadata.name, nc.metadata.generation]));
      // The gateway takes the peer's address: the path to the health-check target breaks.
      await cluster.clients.layer2.create(layer2('l2-200', 200, [`${PEER_ADDR}/24`]));

      const rev2 = await q.until('second revision marked invalid', async () => {
        const r = (await q.revisions())[1];
        return r?.status?.isInvalid ? r : undefined;
      });
      expect(rev2.status?.failedNodes?.map((f) => f.node)).toEqual(['node-1']);
      expect(rev2.status?.failedNodes?.[0]?.message).toMatch(/^health check failed: tcp\/peer \(/);

      // node-1 is rolled back to the first revision and reports it provisioned again.
      await q.until('node-1 back on the first revision', async () => {
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
