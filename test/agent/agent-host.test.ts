/**
 * End to end: the real `nodenet-agent` binary as root in a network namespace, with real netlink on
 * the machine's kernel, a real FRR instance, and devcluster as the API server. The host is checked
 * with `ip -json` and vtysh, the status through the API.
 *
 * This machine's kernel has no VRF devices, so these configs use Layer-2 networks (bridge + VXLAN)
 * only; the VRF paths run in the VM suites.
 */
import { readdirSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { shortHash, type NodeConfigSpec, type NodeConfigStatus } from '@nodenet/api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describePrivileged } from '../support/privileged.js';
import {
  FRR_PREREQUISITES,
  AgentCluster,
  l2Entry,
  layer2Spec,
  PEER_ADDR,
  type AgentRun,
  type NodeEnv,
  waitFor,
} from '@nodenet/testkit';

const l2 = l2Entry;
const spec = layer2Spec;

/** Good: one L2 network. */
const GOOD = spec([l2(100, ['10.100.0.1/24'])]);
/** Bad: a second L2 network whose gateway takes the peer's address, hijacking the path to it. */
const BAD = spec([l2(100, ['10.100.0.1/24']), l2(200, [`${PEER_ADDR}/24`])]);
/** Harmless, applied while the API server is down. */
const DURING_OUTAGE = spec([l2(100, ['10.100.0.1/24']), l2(400, ['10.104.0.1/24'])]);
/** Harmless but cut off mid-apply by the fault hook. */
const CUT = spec([l2(100, ['10.100.0.1/24']), l2(300, ['10.103.0.1/24'])]);

let cluster: AgentCluster;
let h: NodeEnv;
let agent: AgentRun;

const assign = (name: string, s: NodeConfigSpec): Promise<number> => cluster.assign(name, s);
const waitForStatus = (
  what: string,
  pred: (s: NodeConfigStatus) => boolean,
  timeoutMs = 40_000,
): Promise<NodeConfigStatus> => cluster.waitForStatus('node-1', what, pred, timeoutMs);

async function waitUntil(what: string, fn: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (fn()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const hasAddress = (dev: string, cidr: string): boolean => h.hasAddress(dev, cidr);

/** ifindex and master of the hand-made br.7777 / vx.7777 (same values = never re-created or moved). */
const handMadeIndexes = () =>
  ['br.7777', 'vx.7777'].map((n) => ({ n, ifindex: h.link(n)?.ifindex, master: h.link(n)?.master }));
let handMade: ReturnType<typeof handMadeIndexes>;

describePrivileged(
  'nodenet-agent end to end (netns, real netlink, real FRR, devcluster)',
  FRR_PREREQUISITES,
  () => {
    beforeAll(async () => {
      cluster = new AgentCluster('e2e');
      await cluster.setUp();
      h = await cluster.addNode('node-1');
    }, 120_000);
    afterAll(async () => {
      await cluster?.tearDown();
    });

    it('a first config that fails, with no checkpoint yet: everything managed is removed, reported invalid', async () => {
      // Hand-made devices with nodenet-looking names: not the agent's (no `nodenet` alias), never touched.
      const ipNode = (...args: string[]) => execFileSync('ip', ['-n', h.nodeNs, ...args]);
      ipNode('link', 'add', 'br.7777', 'type', 'bridge');
      ipNode('link', 'add', 'vx.7777', 'type', 'vxlan', 'id', '7777', 'dstport', '4789');
      ipNode('link', 'set', 'vx.7777', 'master', 'br.7777');
      handMade = handMadeIndexes();
      await assign('node-10', BAD); // another node's config, never to be touched by node-1's agent
      await assign('node-1', BAD);
      agent = h.startAgent();
      const status = await waitForStatus('invalid', (s) => s.configStatus === 'invalid');
      expect(status.message).toMatch(
        /^health check failed: tcp\/peer \(.*\); removed all managed configuration \(no previous checkpoint\); health after restore: all 4 checks passed$/,
      );
      expect(status.lastAppliedRevision).toBeUndefined();
      expect(h.links().filter((l) => /^(l2|vx)\./.test(l.ifname) && !l.ifname.endsWith('.7777'))).toEqual([]);
      expect(handMadeIndexes()).toEqual(handMade);
    });

    it('applies a NodeConfig and reports provisioned; the host matches it', async () => {
      await assign('node-1', GOOD);
      const status = await waitForStatus('provisioned', (s) => s.configStatus === 'provisioned');
      expect(status.lastAppliedRevision).toBe(GOOD.revision);
      expect(status.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
      const bridge = h.link('l2.100');
      expect(bridge?.linkinfo?.info_kind).toBe('bridge');
      expect(hasAddress('l2.100', '10.100.0.1/24')).toBe(true);
      const vxlan = h.link('vx.20100');
      expect(vxlan?.linkinfo?.info_kind).toBe('vxlan');
      expect(vxlan?.linkinfo?.info_data?.id).toBe(20100);
      expect(vxlan?.master).toBe('l2.100');
      expect(h.frr.vtysh('show running-config')).toMatch(/router bgp 65001/);
      // Probe and metrics endpoints of the running binary, from inside its namespace.
      const curl = (url: string) =>
        execFileSync('ip', ['netns', 'exec', h.nodeNs, 'curl', '-s', '-w', ' %{http_code}', url], {
          encoding: 'utf8',
        });
      expect(curl('http://127.0.0.1:9463/healthz')).toBe('ok: alive\n 200');
      expect(curl('http://127.0.0.1:9463/readyz')).toMatch(/^ok: .* 200$/s);
      expect(curl('http://127.0.0.1:9462/metrics')).toContain(
        'nodenet_agent_applies_total{result="provisioned"} 1',
      );
      // node-10's config left no trace and got no status from this agent.
      expect(h.link('l2.200')).toBeUndefined();
      expect((await cluster.clients.nodeConfig.get('node-10')).status).toBeUndefined();
    });

    it('recreates a managed device deleted by hand at the next resync, with no status change', async () => {
      // The status report (not the observed state, which follows FRR on its own schedule).
      const report = async () => {
        const { observed: _observed, ...rest } =
          (await cluster.clients.nodeConfig.get('node-1')).status ?? {};
        return rest;
      };
      // Settled first: right after `provisioned` the agent may re-send it once from a cache that has
      // not yet seen its own write (a new lastUpdate, nothing else); that is not the drift repair.
      let before = await report();
      await waitFor('the status to settle', async () => {
        await new Promise((r) => setTimeout(r, 1000));
        const now = await report();
        const settled = JSON.stringify(now) === JSON.stringify(before);
        before = now;
        return settled;
      });
      const deleted = h.link('vx.20100')?.ifindex;
      expect(deleted).toBeDefined();
      execFileSync('ip', ['-n', h.nodeNs, 'link', 'del', 'vx.20100']);
      // The resync may recreate it at any moment, so "gone" is not asserted; a new ifindex proves recreation.
      await waitUntil('vx.20100 recreated', () => {
        const link = h.link('vx.20100');
        return link !== undefined && link.ifindex !== deleted && link.master === 'l2.100';
      });
      await agent.waitForLog((l) => l.msg === 'host had drifted from the applied config; repaired');
      expect(await report()).toEqual(before);
    });

    it('repairs a change made by hand in vtysh at the next resync, with an Event and a metric', async () => {
      const reportNow = async () => {
        const { observed: _observed, ...rest } =
          (await cluster.clients.nodeConfig.get('node-1')).status ?? {};
        return rest;
      };
      const before = await reportNow();
      expect(h.frr.vtysh('show running-config')).toContain('no bgp network import-check');
      h.frr.vtysh('configure terminal', 'ip prefix-list nn_hand seq 5 permit 10.99.0.0/16');
      h.frr.vtysh('configure terminal', 'router bgp 65001', 'bgp network import-check');
      await waitUntil('the hand-made FRR change undone', () => {
        const running = h.frr.vtysh('show running-config');
        return !running.includes('nn_hand') && running.includes('no bgp network import-check');
      });
      const log = await agent.waitForLog(
        (l) =>
          l.msg === 'host had drifted from the applied config; repaired' &&
          String(l.frrDrift).includes('nn_hand'),
      );
      expect(log.frrDrift).toContain('ip prefix-list nn_hand seq 5 permit 10.99.0.0/16');
      // Events are recorded in the background: poll the API for it.
      const repairedMessages = async (): Promise<string> => {
        const events = (await cluster.clients.event.list({ namespace: 'default' })).items as unknown as {
          involvedObject: { name?: string };
          reason: string;
          message: string;
        }[];
        return events
          .filter((e) => e.involvedObject.name === 'node-1' && e.reason === 'DriftRepaired')
          .map((e) => e.message)
          .join('\n');
      };
      const deadline = Date.now() + 20_000;
      while (!(await repairedMessages()).includes('nn_hand') && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(await repairedMessages()).toContain('nn_hand');
      const metrics = execFileSync(
        'ip',
        ['netns', 'exec', h.nodeNs, 'curl', '-s', 'http://127.0.0.1:9462/metrics'],
        { encoding: 'utf8' },
      );
      expect(metrics).toMatch(/^nodenet_agent_frr_drift_repairs_total [1-9]/m);
      // A repair is no new config: the status is not rewritten.
      // The report is not rewritten (status.observed may be: it follows FRR, written on change).
      expect(await reportNow()).toEqual(before);
    });

    it('a config that breaks a health check is restored and reported invalid naming the check', async () => {
      await assign('node-1', BAD);
      const status = await waitForStatus('invalid', (s) => s.configStatus === 'invalid');
      expect(status.message).toMatch(/^health check failed: tcp\/peer \(/);
      expect(status.message).toContain(`restored revision ${shortHash(GOOD.revision)}`);
      expect(status.lastAppliedRevision).toBe(GOOD.revision);
      expect(status.conditions?.find((c) => c.type === 'Invalid')).toMatchObject({
        status: 'True',
        reason: 'HealthCheckFailed',
      });
      const events = (await cluster.clients.event.list({ namespace: 'default' })).items as unknown as {
        involvedObject: { kind?: string; name?: string };
        reason: string;
        type: string;
        message: string;
      }[];
      expect(
        events.find((e) => e.involvedObject.name === 'node-1' && e.reason === 'HealthCheckFailed'),
      ).toMatchObject({ type: 'Warning', involvedObject: { kind: 'NodeConfig' } });
      // Host back to the previous state; the hand-made devices survived the apply and the restore.
      expect(h.link('l2.200')).toBeUndefined();
      expect(h.link('vx.20200')).toBeUndefined();
      expect(hasAddress('l2.100', '10.100.0.1/24')).toBe(true);
      expect(handMadeIndexes()).toEqual(handMade);
    });

    it('API server stopped during an apply: the host keeps the healthy new config, status is written once it is back', async () => {
      const started = agent.logs.length;
      const since = (l: Record<string, unknown>) => agent.logs.indexOf(l) >= started;
      await assign('node-1', DURING_OUTAGE);
      await agent.waitForLog((l) => l.msg === 'applying new config' && since(l));
      await h.stopApi();
      await agent.waitForLog((l) => l.msg === 'NodeConfig status write failed; retrying' && since(l));
      await waitUntil('new config on the host', () => hasAddress('l2.400', '10.104.0.1/24'));
      await new Promise((r) => setTimeout(r, 1500));
      expect(h.link('l2.400')).toBeDefined(); // kept: healthy, and an unreachable API server is no reason to roll back
      expect((await cluster.clients.nodeConfig.get('node-1')).status?.lastAppliedRevision).not.toBe(
        DURING_OUTAGE.revision,
      );
      await h.startApi();
      const status = await waitForStatus(
        'provisioned after the outage',
        (s) => s.configStatus === 'provisioned' && s.lastAppliedRevision === DURING_OUTAGE.revision,
      );
      // The API server was down when the checks ran: they say so, and the change is still kept.
      expect(status.message).toMatch(
        /health: already failing before the apply: apiserver \(connection refused by [\d.:]+ /,
      );
      expect(h.link('l2.400')).toBeDefined();
    });

    it('killed during an apply (fault hook after the netlink step): restores at start-up and reports invalid', async () => {
      await agent.stop();
      agent = h.startAgent({ env: { NODENET_FAULT_AT: 'after-netlink' } });
      await assign('node-1', CUT);
      const exit = await agent.exited;
      expect(exit.signal).toBe('SIGKILL');
      expect(h.link('l2.300')).toBeDefined(); // the half-applied state the crash left
      expect(existsSync(join(h.stateDir, 'pending.json'))).toBe(true);

      agent = h.startAgent();
      const status = await waitForStatus(
        'invalid after restart',
        (s) => s.configStatus === 'invalid' && (s.message ?? '').startsWith('agent restarted during apply'),
      );
      expect(status.message).toBe(
        `agent restarted during apply of revision ${shortHash(CUT.revision)}; restored revision ${shortHash(DURING_OUTAGE.revision)}; ` +
          'health after restore: all 4 checks passed',
      );
      expect(status.conditions?.find((c) => c.type === 'Invalid')?.reason).toBe('AgentRestartedDuringApply');
      expect(h.link('l2.300')).toBeUndefined();
      expect(h.link('vx.20300')).toBeUndefined();
      expect(existsSync(join(h.stateDir, 'pending.json'))).toBe(false);
      // It does not try the same attempt again.
      await new Promise((r) => setTimeout(r, 3000));
      expect(h.link('l2.300')).toBeUndefined();
    });

    it('a corrupt checkpoint gives a clear error, is moved aside, and the agent keeps running', async () => {
      await assign('node-1', GOOD); // the configurator's rollback
      await waitForStatus('provisioned again', (s) => s.configStatus === 'provisioned');
      await agent.stop();
      writeFileSync(join(h.stateDir, 'applied.json'), '{"version":1,"checksum":"abc","bo');
      agent = h.startAgent();
      const line = await agent.waitForLog(
        (l) => typeof l.msg === 'string' && l.msg.startsWith('checkpoint unusable'),
      );
      expect(line.msg).toMatch(/applied\.json is unusable: not valid JSON \(torn write\?\)/);
      expect(line.level).toBe(50); // pino "error"
      expect(readdirSync(h.stateDir).some((f) => f.startsWith('applied.json.corrupt-'))).toBe(true);
      // No checkpoint: the unchanged spec is applied anew and a fresh checkpoint written.
      await agent.waitForLog(
        (l) => typeof l.msg === 'string' && l.msg.startsWith(`revision ${shortHash(GOOD.revision)} applied`),
      );
      expect(existsSync(join(h.stateDir, 'applied.json'))).toBe(true);
      await new Promise((r) => setTimeout(r, 2500));
      expect(agent.process.exitCode).toBeNull(); // still running: no crash loop
      expect(h.link('l2.100')).toBeDefined();
    });
  },
);
