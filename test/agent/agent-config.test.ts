/**
 * One path to the host (issue #36), with every real part: devcluster, the configurator binary
 * (update limit 1, no failures tolerated) and three agent binaries, each node in its own namespace
 * reaching the API server only over its uplink `vtep0` and a BGP route from its spine. The FRR base
 * template and the health checks come from an AgentConfiguration, so a template change is a
 * revision: a good one reaches every node through the rollout, one node at a time; one that shuts
 * the uplink is reverted by the first node's agent within its confirm window, the revision is
 * invalid, that node ends on the previous template and the other two never see the bad one.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AgentConfiguration, HealthChecks, NetworkConfigRevision } from '@nodenet/api';
import {
  FRR_PREREQUISITES,
  AgentCluster,
  fleetQueries,
  spawnHostConfigurator,
  stopProcess,
  BGP_NODE_TEMPLATE,
  BgpNodeEnv,
  bgpNodes,
  FAST_CONFIRM_ARGS,
} from '@nodenet/testkit';
import { nodeFrrDriver } from '../support/node-frr.js';
import { describePrivileged } from '../support/privileged.js';

const NODES = ['node-1', 'node-2', 'node-3'];

/**
 * FRR answering, and not the uplink: a shut uplink then shows only in the confirm window's own
 * API-server probe, as a broken fabric session shows after the first check in a real fabric.
 */
const CHECKS: HealthChecks = { apiServer: { enabled: false }, frr: { enabled: true } };
/** A line FRR shows as written, so a template that adds it leaves `frr-reload.py --test` empty. */
const GOOD_LINE = 'ip prefix-list nn-agentconfig seq 5 permit 10.200.0.0/16';
const GOOD_TEMPLATE = `${BGP_NODE_TEMPLATE.trimEnd()}\n${GOOD_LINE}\n`;
/** The same, with the uplink shut: the node loses its route to the API server. */
const BAD_TEMPLATE = `${GOOD_TEMPLATE}interface vtep0\n shutdown\nexit\n`;

const agentConfiguration = (frrTemplate: string): AgentConfiguration => ({
  apiVersion: 'network.nodenet.io/v1alpha1',
  kind: 'AgentConfiguration',
  metadata: { name: 'default' },
  spec: { frrTemplate, healthChecks: CHECKS },
});

let cluster: AgentCluster;
let envs: BgpNodeEnv[] = [];
let q: ReturnType<typeof fleetQueries>;
let configurator: ChildProcess | undefined;

/** Replaces the AgentConfiguration's template; returns the revision it makes. */
async function setTemplate(frrTemplate: string, revisions: number): Promise<NetworkConfigRevision> {
  await cluster.clients.agentConfiguration.mergePatch('default', { spec: { frrTemplate } });
  return q.until(`revision ${revisions}`, async () => (await q.revisions())[revisions - 1]);
}

const driverOf = nodeFrrDriver;

describePrivileged(
  'AgentConfiguration end to end: the FRR base template rolls out as a revision (3 agents, real BGP)',
  FRR_PREREQUISITES,
  () => {
    beforeAll(async () => {
      cluster = new AgentCluster(`ac${Math.random().toString(36).slice(2, 5)}`);
      await cluster.setUp(['packages/agent', 'packages/configurator']);
      q = fleetQueries(cluster.clients);
      envs = await bgpNodes(cluster, NODES);
      // The bootstrap template is the suite's own; the AgentConfiguration replaces it.
      await cluster.clients.agentConfiguration.create(agentConfiguration(BGP_NODE_TEMPLATE));
      configurator = spawnHostConfigurator(cluster.dc.kubeconfigPath);
      for (const env of envs) {
        env.startAgent({
          resync: '5s',
          confirmWindow: '8s',
          extraArgs: FAST_CONFIRM_ARGS,
        });
      }
      await q.firstRevisionEverywhere(3);
    }, 180_000);

    afterAll(async () => {
      await stopProcess(configurator);
      await cluster?.tearDown();
    });

    it('a good template change is one revision that reaches every node one at a time, with nothing left for frr-reload.py', async () => {
      const rev2 = await setTemplate(GOOD_TEMPLATE, 2);
      expect(rev2.spec.changedInputs).toEqual([expect.stringMatching(/^AgentConfiguration\/default@/)]);
      let most = 0;
      const done = await q.until(
        'the template on every node',
        async () => {
          const ncs = await q.nodeConfigs();
          const moving = ncs.filter(
            (nc) => nc.spec.revision === rev2.spec.hash && nc.status?.lastAppliedRevision !== rev2.spec.hash,
          );
          most = Math.max(most, moving.length);
          const rev = (await q.revisions())[1];
          return rev?.status?.ready === 3 ? rev : undefined;
        },
        120_000,
      );
      expect(most).toBeLessThanOrEqual(1); // --update-limit 1
      expect(done.status).toMatchObject({ total: 3, ready: 3, failed: 0 });
      expect((await q.revisions()).length).toBe(2);
      for (const env of envs) {
        expect(env.frr.vtysh('show running-config')).toContain(GOOD_LINE);
        expect(await driverOf(env).drift()).toEqual({ toAdd: [], toDelete: [] });
      }
    }, 150_000);

    it('a template that shuts the uplink is reverted by the first node within its window; the revision is invalid, the others never get it', async () => {
      const [, rev2] = await q.revisions();
      const before = new Map((await q.nodeConfigs()).map((nc) => [nc.metadata.name, nc.metadata.generation]));
      await setTemplate(BAD_TEMPLATE, 3);
      const rev3 = await q.until(
        'third revision marked invalid',
        async () => {
          const r = (await q.revisions())[2];
          return r?.status?.isInvalid ? r : undefined;
        },
        120_000,
      );
      expect(rev3.status?.failedNodes?.map((f) => f.node)).toEqual(['node-1']);
      // Its checks passed; the window's probe lost the API server and the agent reverted on its own.
      expect(rev3.status?.failedNodes?.[0]?.message).toMatch(/^API server unreachable \d+ s after apply/);

      await q.until('node-1 back on the previous template', async () => {
        const nc = await cluster.clients.nodeConfig.get('node-1');
        return nc.spec.revision === rev2!.spec.hash && nc.status?.configStatus === 'provisioned';
      });
      expect(envs[0]!.link('vtep0')?.operstate).toBe('UP');
      const running = envs[0]!.frr.vtysh('show running-config');
      expect(running).toContain(GOOD_LINE);
      expect(running).not.toMatch(/interface vtep0\n shutdown/);
      expect(envs[0]!.sessionState()).toBe('Established');
      for (const i of [1, 2]) {
        const nc = await cluster.clients.nodeConfig.get(NODES[i]!);
        expect(nc.metadata.generation).toBe(before.get(NODES[i]!));
        expect(nc.spec.revision).toBe(rev2!.spec.hash);
        expect(envs[i]!.link('vtep0')?.operstate).toBe('UP');
      }
    }, 150_000);
  },
);
