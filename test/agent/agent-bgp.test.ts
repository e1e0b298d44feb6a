/**
 * A change that cuts the node off, with a real BGP session (issue 12, DESIGN invariant 7): the real
 * `nodenet-agent` binary and FRR in a node namespace reach the API server (devcluster behind a TCP
 * relay in a spine namespace) only over a route the spine announces by BGP. Short BGP timers
 * (`timers bgp 1 3`) and a short confirm window (flags) keep the suite quick.
 *
 * This machine's kernel has no VRF devices, so the changes are Layer-2 networks (bridge + VXLAN)
 * whose anycast gateway address does the damage.
 */
import { execFile } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  API_VERSION,
  ASSIGNED_AT_ANNOTATION,
  type NodeConfig,
  type NodeConfigSpec,
  type NodeConfigStatus,
  shortHash,
} from '@nodenet/api';
import { isConflict } from '@nodenet/kube';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describePrivileged } from '../support/privileged.js';
import { FRR_PREREQUISITES } from '../frr/support/frr-netns.js';
import { AgentCluster, l2Entry, layer2Spec, type AgentRun } from './support/agent-host.js';
import { API_PREFIX, BGP_NODE_TEMPLATE, BgpNodeEnv, SPINE_PEER } from './support/bgp-node.js';

const l2 = l2Entry;
const spec = layer2Spec;

const BASE = l2(100, ['10.100.0.1/24']);
const GOOD = spec([BASE]);
/** (a) A connected /25 more specific than the learned /24 swallows the API server's address. */
const HIJACK = spec([BASE, l2(200, ['10.96.0.100/25'])]);
/** (b) The gateway takes the spine's peering address: the session dies after the checks passed. */
const PEER_STEAL = spec([BASE, l2(300, [`${SPINE_PEER}/24`])]);
/** Harmless; the agent is killed during its window. */
const KILLED = spec([BASE, l2(400, ['10.104.0.1/24'])]);
/** Harmless; the agent gets SIGTERM during its window. */
const STOPPED = spec([BASE, l2(500, ['10.105.0.1/24'])]);

const WINDOW = [
  '--confirm-interval',
  '1s',
  '--confirm-unreachable-limit',
  '4s',
  '--heartbeat-interval',
  '2s',
  '--observe-interval',
  '2s',
];

let cluster: AgentCluster;
let node: BgpNodeEnv;
let agent: AgentRun;
let assigned = 0;
let originalRoute: ReturnType<BgpNodeEnv['apiRoute']>;

/** Writes node-1's NodeConfig; returns its generation (the agent's conditions name it). */
async function assign(s: NodeConfigSpec): Promise<number> {
  const annotations = {
    [ASSIGNED_AT_ANNOTATION]: new Date(Date.UTC(2025, 0, 1, 0, 0, assigned++)).toISOString(),
  };
  // The agent writes status at any time: a PUT from an older read conflicts; read again.
  for (let attempt = 1; ; attempt++) {
    const existing = await cluster.clients.nodeConfig.get('node-1').catch(() => undefined);
    const obj: NodeConfig = {
      apiVersion: API_VERSION,
      kind: 'NodeConfig',
      metadata: { ...(existing?.metadata ?? { name: 'node-1' }), annotations },
      spec: s,
    };
    try {
      const stored = existing
        ? await cluster.clients.nodeConfig.update(obj)
        : await cluster.clients.nodeConfig.create(obj);
      return stored.metadata.generation ?? 0;
    } catch (err) {
      if (!isConflict(err) || attempt >= 5) throw err;
    }
  }
}

/** The condition is True and answers generation `gen`. */
const answers = (s: NodeConfigStatus, type: string, gen: number): boolean =>
  condition(s, type)?.status === 'True' && condition(s, type)?.observedGeneration === gen;

/** Polls the status; every status seen is kept, so a test can tell what came before. */
async function waitForStatus(
  what: string,
  pred: (s: NodeConfigStatus) => boolean,
  seen: NodeConfigStatus[] = [],
  timeoutMs = 60_000,
): Promise<NodeConfigStatus> {
  return eventually(
    async () => {
      const s = (await cluster.clients.nodeConfig.get('node-1')).status;
      if (s) seen.push(s);
      if (s && pred(s)) return s;
      throw new Error(`waiting for ${what}; last status: ${JSON.stringify(s)}`);
    },
    timeoutMs,
    200,
  );
}

/** Retries `fn` until it stops throwing; rethrows its last error after `timeoutMs`. */
async function eventually<T>(fn: () => T | Promise<T>, timeoutMs = 60_000, stepMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, stepMs));
    }
  }
}

/** kubectl against the devcluster, asynchronously (the server runs in this process). */
const kubectlOut = async (...args: string[]): Promise<string> =>
  (await promisify(execFile)('kubectl', ['--kubeconfig', cluster.dc.kubeconfigPath, ...args])).stdout;

/** `<status> <reason>` of the NodenetReady condition on node-1, as kubectl shows it. */
const nodenetReady = (): Promise<string> =>
  kubectlOut(
    'get',
    'node',
    'node-1',
    '-o',
    'jsonpath={.status.conditions[?(@.type=="NodenetReady")].status} {.status.conditions[?(@.type=="NodenetReady")].reason}',
  );

const condition = (s: NodeConfigStatus, type: string) => s.conditions?.find((c) => c.type === type);
const onHost = (name: string) => node.link(name) !== undefined;

describePrivileged(
  'agent confirm window with a real BGP session (spine and node namespaces, real FRR, real agent)',
  FRR_PREREQUISITES,
  () => {
    beforeAll(async () => {
      cluster = new AgentCluster(`bgp${Math.random().toString(36).slice(2, 5)}`);
      await cluster.setUp();
      // The agent keeps its NodenetReady condition on this Node.
      await cluster.clients.node.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' } });
      writeFileSync(cluster.templateFile, BGP_NODE_TEMPLATE);
      node = new BgpNodeEnv(cluster, 'node-1', cluster.tag);
      cluster.nodes.push(node);
      await node.setUp();
      originalRoute = await node.bootstrapUplink();
      agent = node.startAgent({ confirmWindow: '10s', extraArgs: WINDOW, resync: '5s' });
    }, 120_000);
    afterAll(async () => {
      await cluster?.tearDown();
    });

    it('reaches the API server only over the route learned from the spine', () => {
      expect(originalRoute).toMatchObject({
        dst: API_PREFIX,
        gateway: SPINE_PEER,
        dev: 'vtep0',
        protocol: 'bgp',
      });
    });

    it('a good NodeConfig is confirmed through the window (Confirming, pending.json kept), then provisioned', async () => {
      await assign(GOOD);
      const confirming = await waitForStatus(
        'Confirming',
        (s) => condition(s, 'Confirming')?.status === 'True',
      );
      expect(confirming.configStatus).toBe('provisioning');
      expect(condition(confirming, 'Confirming')).toMatchObject({ reason: 'Confirming' });
      expect(condition(confirming, 'Confirming')?.message).toMatch(/confirming for 10 s/);
      expect(existsSync(join(node.stateDir, 'pending.json'))).toBe(true);
      const done = await waitForStatus('provisioned', (s) => s.configStatus === 'provisioned');
      expect(done.lastAppliedRevision).toBe(GOOD.revision);
      expect(condition(done, 'Confirming')?.status).toBe('False');
      expect(existsSync(join(node.stateDir, 'pending.json'))).toBe(false);
      expect(onHost('l2.100')).toBe(true);
    }, 90_000);

    it('after the apply, status.observed shows FRR and the uplink session, and NodenetReady=True (kubectl)', async () => {
      const s = await waitForStatus('observed uplink session', (st) =>
        (st.observed?.bgpSessions ?? []).some((x) => x.peer === SPINE_PEER && x.state === 'Established'),
      );
      expect(s.observed?.frrVersion).toMatch(/^\d+\.\d+/);
      expect(s.observed?.bgpSummary).toBe('1/1');
      expect(s.observed?.bgpSessions).toEqual([
        expect.objectContaining({ vrf: 'default', peer: SPINE_PEER, state: 'Established', remoteAs: 65000 }),
      ]);
      await eventually(async () => expect(await nodenetReady()).toBe('True Applied'), 30_000);
      const wide = await kubectlOut('get', 'nc', 'node-1', '-o', 'wide');
      expect(wide).toContain(s.observed?.frrVersion);
    }, 60_000);

    it('(a) an immediate cut-off (connected /25 over the learned /24) is caught by the first check and restored', async () => {
      const gen = await assign(HIJACK);
      const seen: NodeConfigStatus[] = [];
      const invalid = await waitForStatus('invalid', (s) => answers(s, 'Invalid', gen), seen);
      expect(condition(invalid, 'Invalid')?.reason).toBe('HealthCheckFailed');
      expect(invalid.message).toMatch(/^health check failed: apiserver \(.*\); restored revision /);
      expect(invalid.lastAppliedRevision).toBe(GOOD.revision);
      expect(seen.some((s) => answers(s, 'Confirming', gen))).toBe(false);
      expect(onHost('l2.200')).toBe(false);
      expect(node.apiRoute()).toEqual(originalRoute);
      await eventually(async () => expect(await nodenetReady()).toBe('False Restored'), 30_000);
    }, 90_000);

    it('(b) a delayed cut-off (the gateway takes the spine peering address): the first check passes, the agent reverts on its own within the window, the session comes back, invalid names the loss', async () => {
      // Checks that cannot see the path (see writeHealthConfig): the loss shows only in the window.
      await agent.stop();
      node.writeHealthConfig('blind');
      agent = node.startAgent({ confirmWindow: '10s', extraArgs: WINDOW, resync: '5s' });
      const gen = await assign(PEER_STEAL);
      const seen: NodeConfigStatus[] = [];
      const invalid = await waitForStatus('invalid', (s) => answers(s, 'Invalid', gen), seen);
      // The first check passed: the agent was confirming when the path went away. (Its `Confirming`
      // report is best effort: with the path already gone it may never reach the API server, so the
      // agent's own log is the witness.)
      expect(
        agent.logs.some((l) => l.msg === 'confirm window started' && l.revision === PEER_STEAL.revision),
      ).toBe(true);
      expect(condition(invalid, 'Invalid')?.reason).toBe('ConfirmApiServerUnreachable');
      expect(invalid.message).toMatch(
        new RegExp(
          `^API server unreachable \\d+ s after apply, for \\d+ s \\(.*\\); restored revision ${shortHash(GOOD.revision)}; health after restore: `,
        ),
      );
      expect(invalid.lastAppliedRevision).toBe(GOOD.revision);
      expect(onHost('l2.300')).toBe(false);
      await eventually(() => expect(node.sessionState()).toBe('Established'), 30_000);
      await eventually(() => expect(node.apiRoute()).toEqual(originalRoute), 30_000);
    }, 90_000);

    it('SIGTERM during the window: the agent restores the previous revision and reports it before exiting', async () => {
      const gen = await assign(STOPPED);
      await waitForStatus('Confirming', (s) => answers(s, 'Confirming', gen));
      expect(onHost('l2.500')).toBe(true);
      await agent.stop();
      expect(await agent.exited).toEqual({ code: 0, signal: null });
      expect(onHost('l2.500')).toBe(false);
      expect(existsSync(join(node.stateDir, 'pending.json'))).toBe(false);
      const invalid = await waitForStatus('invalid', (s) => answers(s, 'Invalid', gen));
      expect(condition(invalid, 'Invalid')?.reason).toBe('AgentStoppedDuringConfirm');
      expect(invalid.message).toMatch(/^agent stopped \d+ s into the confirm window; restored revision /);
      agent = node.startAgent({ confirmWindow: '10s', extraArgs: WINDOW, resync: '5s' });
    }, 90_000);

    it('the agent killed during the window restores the previous revision at start-up', async () => {
      await assign(KILLED);
      await waitForStatus(
        'Confirming',
        (s) =>
          condition(s, 'Confirming')?.status === 'True' &&
          s.message?.includes(shortHash(KILLED.revision)) === true,
      );
      expect(onHost('l2.400')).toBe(true);
      agent.process.kill('SIGKILL');
      await agent.exited;
      expect(existsSync(join(node.stateDir, 'pending.json'))).toBe(true);
      agent = node.startAgent({ confirmWindow: '10s', extraArgs: WINDOW, resync: '5s' });
      const invalid = await waitForStatus(
        'invalid after restart',
        (s) =>
          s.configStatus === 'invalid' && condition(s, 'Invalid')?.reason === 'AgentRestartedDuringApply',
      );
      expect(invalid.message).toMatch(
        /^agent restarted during apply of revision [0-9a-f]{10}; restored revision /,
      );
      expect(onHost('l2.400')).toBe(false);
      expect(onHost('l2.100')).toBe(true);
      expect(node.apiRoute()).toEqual(originalRoute);
    }, 90_000);
  },
);
