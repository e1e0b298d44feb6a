/**
 * End to end with every real part, for a change that cuts nodes off later (issue 12, invariant 7):
 * devcluster, the configurator binary (update limit 1) and three agent binaries, each node in its
 * own namespace reaching the API server only over a BGP route from its own spine namespace (see
 * support/bgp-node.ts). The bad revision's gateway takes the spine's peering address: the first
 * node's checks pass, its session dies a moment later, its agent reverts on its own within the
 * confirm window and reports `invalid` once the path is back. The rollout halts after that node,
 * which ends on the previous revision; the other two never see the bad one.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  FRR_PREREQUISITES,
  AgentCluster,
  fleetQueries,
  layer2Input,
  spawnHostConfigurator,
  stopProcess,
  BgpNodeEnv,
  bgpNodes,
  FAST_CONFIRM_ARGS,
  SPINE_PEER,
} from '@nodenet/testkit';
import { describePrivileged } from '../support/privileged.js';

const NODES = ['node-1', 'node-2', 'node-3'];

const layer2 = layer2Input;

let cluster: AgentCluster;
let envs: BgpNodeEnv[] = [];
let q: ReturnType<typeof fleetQueries>;
let configurator: ChildProcess | undefined;

describePrivileged(
  'fleet end to end: a change that cuts the first node off later halts the rollout (3 agents, real BGP)',
  FRR_PREREQUISITES,
  () => {
    beforeAll(async () => {
      cluster = new AgentCluster(`fc${Math.random().toString(36).slice(2, 5)}`);
      await cluster.setUp(['packages/agent', 'packages/configurator']);
      q = fleetQueries(cluster.clients);
      envs = await bgpNodes(cluster, NODES);
      // The loss must show in the window, not race the first check.
      for (const env of envs) env.writeHealthConfig('blind');
      configurator = spawnHostConfigurator(cluster.dc.kubeconfigPath);
      for (const env of envs) {
        env.startAgent({
          resync: '5s',
          confirmWindow: '8s',
          extraArgs: FAST_CONFIRM_ARGS,
        });
      }
    }, 180_000);

    afterAll(async () => {
      await stopProcess(configurator);
      await cluster?.tearDown();
    });

    it('a good revision passes every node’s confirm window', async () => {
      await cluster.clients.layer2.create(layer2('l2-100', 100, ['10.100.0.1/24']));
      await q.firstRevisionEverywhere(3);
    }, 150_000);

    it('the first node loses its session after the checks passed: it reverts by itself, the rollout halts, the others are untouched', async () => {
      const [rev1] = await q.revisions();
      const before = new Map((await q.nodeConfigs()).map((nc) => [nc.metadata.name, nc.metadata.generation]));
      await cluster.clients.layer2.create(layer2('l2-300', 300, [`${SPINE_PEER}/24`]));

      const rev2 = await q.until('second revision marked invalid', async () => {
        const r = (await q.revisions())[1];
        return r?.status?.isInvalid ? r : undefined;
      });
      expect(rev2.status?.failedNodes?.map((f) => f.node)).toEqual(['node-1']);
      expect(rev2.status?.failedNodes?.[0]?.message).toMatch(
        /^API server unreachable \d+ s after apply, for \d+ s /,
      );

      await q.until('node-1 back on the first revision', async () => {
        const nc = await cluster.clients.nodeConfig.get('node-1');
        return nc.spec.revision === rev1!.spec.hash && nc.status?.configStatus === 'provisioned';
      });
      expect(envs[0]!.link('l2.300')).toBeUndefined();
      expect(envs[0]!.hasAddress('l2.100', '10.100.0.1/24')).toBe(true);
      expect(envs[0]!.sessionState()).toBe('Established');

      for (const i of [1, 2]) {
        const nc = await cluster.clients.nodeConfig.get(NODES[i]!);
        expect(nc.metadata.generation).toBe(before.get(NODES[i]!));
        expect(nc.spec.revision).toBe(rev1!.spec.hash);
        expect(nc.status?.configStatus).toBe('provisioned');
        expect(envs[i]!.link('l2.300')).toBeUndefined();
      }
    }, 150_000);
  },
);
