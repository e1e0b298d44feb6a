/**
 * Agent upgrades are confirmed (issue #36): the real agent binary and FRR in a node namespace that
 * reaches the API server only over its uplink `vtep0`. "The agent before this one rendered the
 * applied revision differently" is set up the way it happens on a node: the checkpoint records the
 * predecessor's FRR file (and netlink model) and FRR runs that file; the binary started then renders
 * the same spec differently. One line different: applied through the confirm window and recorded.
 * A rendering that shuts the uplink: the window fails, the previous rendering is put back, the
 * NodeConfig says AgentUpgradeFailed with the difference and /readyz answers 503 naming it.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HealthChecks, NodeConfigSpec, NodeConfigStatus } from '@nodenet/api';
import { CheckpointStore, type FrrDriver, type AppliedCheckpoint } from '@nodenet/agent';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describePrivileged } from '../support/privileged.js';
import {
  FRR_PREREQUISITES,
  type AgentCluster,
  type AgentRun,
  BGP_NODE_TEMPLATE,
  bgpNodeOnSpine,
  BgpNodeEnv,
  l2Entry,
  layer2Spec,
  waitForStatus as waitFor,
  FAST_CONFIRM_ARGS,
} from '@nodenet/testkit';
import { nodeFrrDriver } from '../support/node-frr.js';

/** Not the uplink: a rendering that shuts it shows in the confirm window's own API-server probe. */
const CHECKS: HealthChecks = { apiServer: { enabled: false }, frr: { enabled: true } };
const OLD_LINE = 'ip prefix-list nn-predecessor seq 5 permit 10.201.0.0/16';

const withTemplate = (revision: string, frrTemplate: string): NodeConfigSpec => ({
  ...layer2Spec([l2Entry(100, ['10.100.0.1/24'])]),
  revision,
  agent: { name: 'default', frrTemplate, healthChecks: CHECKS },
});
const hashOf = (s: string): string => createHash('sha256').update(s).digest('hex');
const GOOD = withTemplate(hashOf('good'), BGP_NODE_TEMPLATE);
/** The same sections; this binary's rendering of its template shuts the uplink. */
const CUTS_OFF = withTemplate(
  hashOf('cuts-off'),
  `${BGP_NODE_TEMPLATE.trimEnd()}\ninterface vtep0\n shutdown\nexit\n`,
);

let cluster: AgentCluster;
let node: BgpNodeEnv;
let agent: AgentRun;
let frr: FrrDriver;

const waitForStatus = (what: string, pred: (s: NodeConfigStatus) => boolean): Promise<NodeConfigStatus> =>
  waitFor(cluster.clients, what, pred, { timeoutMs: 60_000 });
const readyz = (): string =>
  execFileSync(
    'ip',
    ['netns', 'exec', node.nodeNs, 'curl', '-s', '-w', ' %{http_code}', 'http://127.0.0.1:9463/readyz'],
    {
      encoding: 'utf8',
    },
  );
const checkpoint = async (): Promise<AppliedCheckpoint> => {
  const applied = await new CheckpointStore(node.stateDir).readApplied();
  if (applied.kind !== 'ok') throw new Error(`applied.json: ${applied.kind}`);
  return applied.value;
};

/** The host as the agent before this one left it: FRR runs `frrText`, the checkpoint records it for `spec`. */
async function predecessorRendered(spec: NodeConfigSpec, frrText: string): Promise<void> {
  const { rendered } = await checkpoint();
  await frr.apply(frrText, { force: true });
  await new CheckpointStore(node.stateDir).saveApplied(spec, { frr: frrText, netlink: rendered!.netlink });
}

const start = (): AgentRun =>
  node.startAgent({ confirmWindow: '6s', extraArgs: FAST_CONFIRM_ARGS, resync: '3s' });

describePrivileged(
  'agent upgrades go through the confirm window (real agent, real FRR, real BGP)',
  FRR_PREREQUISITES,
  () => {
    beforeAll(async () => {
      ({ cluster, node } = await bgpNodeOnSpine('upg'));
      frr = nodeFrrDriver(node);
      await cluster.assign('node-1', GOOD);
      agent = start();
      await waitForStatus(
        'GOOD provisioned',
        (s) => s.configStatus === 'provisioned' && s.lastAppliedRevision === GOOD.revision,
      );
      await agent.stop();
    }, 120_000);
    afterAll(async () => {
      await cluster?.tearDown();
    });

    it('records what it put on the host in its checkpoint', async () => {
      const { rendered } = await checkpoint();
      expect(rendered?.frr).toBe(readFileSync(join(node.frr.confdir, 'frr.conf'), 'utf8'));
      expect(rendered?.netlink.map((d) => (d as { name: string }).name)).toContain('l2.100');
    });

    it('a binary that renders one line differently applies the difference through the window and records it', async () => {
      const mine = (await checkpoint()).rendered!.frr;
      await predecessorRendered(GOOD, `${mine.trimEnd()}\n${OLD_LINE}\n`);
      expect(node.frr.vtysh('show running-config')).toContain(OLD_LINE);
      agent = start();
      await agent.waitForLog((l) => l.msg === 'confirm window started', 30_000);
      await agent.waitForLog((l) => l.msg === 'agent upgrade confirmed', 30_000);
      expect(node.frr.vtysh('show running-config')).not.toContain(OLD_LINE);
      expect((await checkpoint()).rendered?.frr).toBe(mine);
      expect(await frr.drift()).toEqual({ toAdd: [], toDelete: [] });
      await waitForStatus('the confirmed upgrade reported', (s) =>
        /agent upgrade confirmed/.test(s.message ?? ''),
      );
      expect(readyz()).toMatch(/^ok: .* 200$/s);
      await agent.stop();
    }, 90_000);

    it('a binary whose rendering cuts the node off restores the previous one and stays not ready, naming the cause', async () => {
      const good = (await checkpoint()).rendered!.frr;
      // The node's NodeConfig carries the template this binary renders the shutdown from; the agent
      // before it had rendered it without (the checkpoint and FRR say so).
      await cluster.assign('node-1', CUTS_OFF);
      await predecessorRendered(CUTS_OFF, good);
      agent = start();
      const failed = await waitForStatus('AgentUpgradeFailed', (s) =>
        /^AgentUpgradeFailed: /.test(s.message ?? ''),
      );
      expect(failed.message).toMatch(/\+ "interface vtep0" " shutdown"/);
      // Its checks passed; the window's probe lost the API server, and the agent put the previous one back.
      expect(failed.message).toMatch(/confirm window failed: API server unreachable/);
      expect(failed.configStatus).toBe('provisioned');
      expect(node.link('vtep0')?.operstate).toBe('UP');
      expect(node.frr.vtysh('show running-config')).not.toMatch(/interface vtep0\n shutdown/);
      expect(readyz()).toMatch(/^not ok: AgentUpgradeFailed: .*shutdown.* 503$/s);
      // Resyncs keep the previous rendering (no second attempt, no drift repair towards this one).
      await new Promise((r) => setTimeout(r, 8_000));
      expect(node.link('vtep0')?.operstate).toBe('UP');
      expect((await checkpoint()).rendered?.frr).toBe(good);
      expect(readyz()).toMatch(/ 503$/);
    }, 120_000);
  },
);
