/**
 * A change that cuts the node off, with a real BGP session (issue 12, invariant 7 of docs/architecture.md): the real
 * `nodenet-agent` binary and FRR in a node namespace reach the API server (devcluster behind a TCP
 * relay in a spine namespace) only over a route the spine announces by BGP. Short BGP timers
 * (`timers bgp 1 3`) and a short confirm window (flags) keep the suite quick.
 *
 * This machine's kernel has no VRF devices, so the changes are Layer-2 networks (bridge + VXLAN)
 * whose anycast gateway address does the damage.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type NodeConfigSpec, type NodeConfigStatus, shortHash } from '@nodenet/api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describePrivileged } from '../support/privileged.js';
import {
  FRR_PREREQUISITES,
  type AgentCluster,
  l2Entry,
  layer2Spec,
  type AgentRun,
  API_PREFIX,
  bgpNodeOnSpine,
  BgpNodeEnv,
  SPINE_PEER,
  answers,
  condition,
  eventuallyPasses,
  waitForStatus as waitFor,
} from '@nodenet/testkit';

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
let originalRoute: ReturnType<BgpNodeEnv['apiRoute']>;

const assign = (s: NodeConfigSpec): Promise<number> => cluster.assign('node-1', s);
const waitForStatus = (
  what: string,
  pred: (s: NodeConfigStatus) => boolean,
  seen: NodeConfigStatus[] = [],
  timeoutMs = 60_000,
): Promise<NodeConfigStatus> => waitFor(cluster.clients, what, pred, { seen, timeoutMs });

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

const onHost = (name: string) => node.link(name) !== undefined;

describePrivileged(
  'agent confirm window with a real BGP session (spine and node namespaces, real FRR, real agent)',
  FRR_PREREQUISITES,
  () => {
    beforeAll(async () => {
      ({ cluster, node, route: originalRoute } = await bgpNodeOnSpine('bgp'));
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
      await eventuallyPasses(async () => expect(await nodenetReady()).toBe('True Applied'), 30_000);
      const wide = await kubectlOut('get', 'nc', 'node-1', '-o', 'wide');
      expect(wide).toContain(s.observed?.frrVersion);
    }, 60_000);

    it('(a) an immediate cut-off (connected /25 over the learned /24) is caught by the first check and restored', async () => {
      const gen = await assign(HIJACK);
      const seen: NodeConfigStatus[] = [];
      const invalid = await waitForStatus('invalid', (s) => answers(s, 'Invalid', gen), seen);
      expect(condition(invalid, 'Invalid')?.reason).toBe('HealthCheckFailed');
      expect(invalid.failureCause).toBe('ChangeFailed');
      expect(invalid.message).toMatch(/^health check failed: apiserver \(.*\); restored revision /);
      expect(invalid.lastAppliedRevision).toBe(GOOD.revision);
      expect(seen.some((s) => answers(s, 'Confirming', gen))).toBe(false);
      expect(onHost('l2.200')).toBe(false);
      expect(node.apiRoute()).toEqual(originalRoute);
      await eventuallyPasses(async () => expect(await nodenetReady()).toBe('False Restored'), 30_000);
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
      // The restore brought the API server back: the change cut the node off.
      expect(invalid.failureCause).toBe('ChangeFailed');
      expect(invalid.message).toMatch(
        /the API server answered \d+ s after the restore: the change cut the node off$/,
      );
      expect(invalid.message).toMatch(
        new RegExp(
          `^API server unreachable \\d+ s after apply, for \\d+ s \\(.*\\); restored revision ${shortHash(GOOD.revision)}; health after restore: `,
        ),
      );
      expect(invalid.lastAppliedRevision).toBe(GOOD.revision);
      expect(onHost('l2.300')).toBe(false);
      await eventuallyPasses(() => expect(node.sessionState()).toBe('Established'), 30_000);
      await eventuallyPasses(() => expect(node.apiRoute()).toEqual(originalRoute), 30_000);
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
      expect(invalid.failureCause).toBe('Interrupted');
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
      // The restore at start-up, as the agent wrote it (its log: the retry below may supersede the
      // report in the API within a poll).
      const written = await agent.waitForLog(
        (l) => l.msg === 'NodeConfig status written' && l.configStatus === 'invalid',
        60_000,
      );
      expect(written.message).toMatch(
        /^agent restarted during the confirm window of revision [0-9a-f]{10}; restored revision /,
      );
      const restored = agent.logs.find((l) => l.attempted === KILLED.revision && l.failureCause);
      // The checks had passed before the kill: Interrupted, and tried again under the same assignment.
      expect(restored).toMatchObject({
        reason: 'AgentRestartedDuringApply',
        failureCause: 'Interrupted',
        restored: true,
      });
      await waitForStatus(
        'KILLED retried and provisioned',
        (s) => s.configStatus === 'provisioned' && s.lastAppliedRevision === KILLED.revision,
      );
      expect(onHost('l2.400')).toBe(true);
      expect(onHost('l2.100')).toBe(true);
      expect(node.apiRoute()).toEqual(originalRoute);
    }, 90_000);
  },
);
