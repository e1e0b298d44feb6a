/**
 * Agent-local faults are the node's, not the revision's (issue 19). The real agent binary in a
 * network namespace, with real FRR, started with an FRR template that vtysh refuses: it applies
 * nothing, /readyz says why, its NodeConfig and Node carry the AgentMisconfigured condition, and it
 * never reports a revision invalid. The configurator (real, in-process) treats the node as
 * unavailable: revisions roll out on the other nodes (simulated agents) and complete, with the node
 * reported as degraded.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AGENT_MISCONFIGURED_REASON,
  AGENT_READY_CONDITION,
  NODE_AGENT_READY_CONDITION,
  type NetworkConfigRevision,
} from '@nodenet/api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  createNode,
  layer2,
  startConfigurator,
  testPolicy,
  type RunningConfigurator,
} from '../fleet/harness.js';
import {
  FRR_PREREQUISITES,
  SimulatedAgents,
  AgentCluster,
  NODE_TEMPLATE,
  type AgentRun,
  type NodeEnv,
} from '@nodenet/testkit';
import { describePrivileged } from '../support/privileged.js';

let cluster: AgentCluster;
let env: NodeEnv;
let agent: AgentRun;
let sims: SimulatedAgents;
let configurator: RunningConfigurator;

async function until<T>(
  what: string,
  fn: () => Promise<T | undefined | false>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    const v = await fn().catch((err: unknown) => ((last = err), undefined));
    if (v) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
  const revs = (await cluster.clients.revision.list()).items.map((r) => ({
    name: r.metadata.name,
    status: r.status,
  }));
  const ncs = (await cluster.clients.nodeConfig.list()).items.map((n) => ({
    name: n.metadata.name,
    status: n.status,
  }));
  throw new Error(
    `timed out waiting for ${what}${last ? `: ${String(last)}` : ''}; revisions: ${JSON.stringify(revs)}; NodeConfigs: ${JSON.stringify(ncs)}`,
  );
}

/** The revision that carries this Layer-2 network (the configurator may build an empty one first). */
const revisionWith = async (l2: string): Promise<NetworkConfigRevision | undefined> =>
  (await cluster.clients.revision.list()).items.find((r) => r.spec.config.layer2.some((l) => l.name === l2));

describePrivileged(
  'agent with a broken FRR template (real agent in a netns, real FRR)',
  FRR_PREREQUISITES,
  () => {
    beforeAll(async () => {
      cluster = new AgentCluster('mc');
      await cluster.setUp(['packages/agent']);
      for (const name of ['node-1', 'node-2', 'node-3']) await createNode(cluster.clients, name);
      env = await cluster.addNode('node-1');
      // Parses as a template, but FRR refuses the line.
      const broken = join(cluster.work, 'broken.conf.tpl');
      writeFileSync(
        broken,
        NODE_TEMPLATE.replace('service integrated-vtysh-config', 'no-such-frr-command 42'),
      );
      agent = env.startAgent({ templateFile: broken });
      sims = new SimulatedAgents({ kubeconfigPath: cluster.dc.kubeconfigPath, defaultDelayMs: 30 });
      sims.stopNode('node-1');
      await sims.start();
      configurator = await startConfigurator(
        cluster.dc.kubeconfigPath,
        testPolicy({ updateLimit: { kind: 'count', count: 1 }, preconfigTimeoutMs: 5000 }),
      );
    }, 120_000);

    afterAll(async () => {
      await configurator?.stop();
      await sims?.stop();
      await cluster?.tearDown();
    });

    it('is not ready, says why on its NodeConfig and Node, and never fails a revision; revisions roll out on the other nodes', async () => {
      await agent.waitForLog(
        (l) => l.msg === 'agent misconfigured: applying nothing; fix the configuration and restart the agent',
      );
      const readyz = execFileSync(
        'ip',
        ['netns', 'exec', env.nodeNs, 'curl', '-s', '-w', ' %{http_code}', 'http://127.0.0.1:9463/readyz'],
        {
          encoding: 'utf8',
        },
      );
      expect(readyz).toMatch(/^not ok: agent misconfigured: --frr-template: .*no-such-frr-command.* 503$/s);

      await cluster.clients.layer2.create(layer2('blue', 100));
      const nc = await until('the AgentMisconfigured condition on node-1', async () => {
        const o = await cluster.clients.nodeConfig.get('node-1');
        return o.status?.conditions?.some(
          (c) => c.type === AGENT_READY_CONDITION && c.reason === AGENT_MISCONFIGURED_REASON,
        )
          ? o
          : undefined;
      });
      expect(nc.status?.configStatus).toBeUndefined();
      const node = await cluster.clients.node.get('node-1');
      expect(node.status?.conditions?.find((c) => c.type === NODE_AGENT_READY_CONDITION)).toMatchObject({
        status: 'False',
        reason: AGENT_MISCONFIGURED_REASON,
      });
      // The kubelet's Ready condition is untouched by the strategic merge.
      expect(node.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');

      // On every other node, node-1 listed unavailable (not failed). It is not Complete: Complete means
      // every selected node is on it, and node-1 catches up once its agent is fixed (docs/rollout.md).
      const onOthers = (r: NetworkConfigRevision | undefined) =>
        r?.status?.ready === 2 && r.status.ongoing === 0 && r.status.queued === 0 ? r : undefined;
      const r1 = await until('the revision with blue on every node but node-1', async () =>
        onOthers(await revisionWith('blue')),
      );
      expect(r1.status).toMatchObject({ isInvalid: false, failed: 0, ready: 2, degraded: 1 });
      expect(r1.status?.degradedNodes?.[0]?.node).toBe('node-1');

      // The next, harmless revision rolls out on the other nodes too.
      await cluster.clients.layer2.create(layer2('red', 200));
      const r2 = await until('the revision with red on every node but node-1', async () =>
        onOthers(await revisionWith('red')),
      );
      expect(r2.status).toMatchObject({ isInvalid: false, failed: 0, ready: 2 });
      // The agent never reported a revision invalid, and touched nothing.
      expect(sims.writes.some((w) => w.node === 'node-1')).toBe(false);
      expect((await cluster.clients.nodeConfig.get('node-1')).status?.configStatus).toBeUndefined();
      expect(agent.logs.some((l) => l.configStatus === 'invalid')).toBe(false);
      expect(env.link('l2.100')).toBeUndefined();
    }, 120_000);
  },
);
