/**
 * BGP passwords from Secrets, end to end with every real part (issue 41): devcluster, the
 * configurator binary, the agent binary and FRR in a node namespace, and a workload peer (its own
 * FRR in the peer namespace) that requires TCP-MD5 on this kernel (CONFIG_TCP_MD5SIG).
 * - the session establishes only with the right password (Established), never with a wrong one;
 * - a rotation, peer first, then the Secret, goes through the rollout (a new revision) and the
 *   session is Established again on the new password;
 * - a wrong new password in the Secret drops the session the health check watches: the agent
 *   reverts to the old password (read from its 0600 book: the Secret holds the new one by then),
 *   the session comes back and the revision is invalid;
 * - a password changed by hand on the node is repaired as drift, and the drift shows `<redacted>`;
 * - no password text in any NodeConfig, revision, BGPPeering, Event, agent or configurator log,
 *   metrics page or `kubectl nodenet` output.
 */
import { execFile, execFileSync, type ChildProcess } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PASSWORD_SALT_SECRET, type BGPPeering, type NetworkConfigRevision } from '@nodenet/api';
import {
  AgentCluster,
  createNode,
  fleetQueries,
  FRR_PREREQUISITES,
  NodeEnv,
  NODE_ADDR,
  PEER_ADDR,
  repoRoot,
  spawnConfigurator,
  startFrr,
  stopProcess,
  type AgentRun,
  type FrrNetnsInstance,
} from '@nodenet/testkit';
import { describePrivileged } from '../support/privileged.js';

const PASSWORDS_NS = 'nodenet-bgp-passwords';
const SECRET = 'bgp-workload';
const P1 = 'nn-first-4f1c';
const P2 = 'nn-second-9a2e';
/** A rotation to a value the peer does not have. */
const P3 = 'nn-wrong-77b1';
/** The peer's own wrong guess. */
const PEER_WRONG = 'nn-peer-guess-03';
const ALL = [P1, P2, P3, PEER_WRONG];
const WORKLOAD_ASN = 65100;

let cluster: AgentCluster;
let node: NodeEnv;
let workload: FrrNetnsInstance;
let agent: AgentRun;
let configurator: ChildProcess | undefined;
const configuratorLog: string[] = [];
let configuratorMetrics = '';
let q: ReturnType<typeof fleetQueries>;

const b64 = (v: string): string => Buffer.from(v).toString('base64');

/** The node's view of the workload session. */
function nodeSession(): string {
  const out = JSON.parse(node.frr.vtysh(`show bgp neighbors ${PEER_ADDR} json`)) as Record<
    string,
    { bgpState?: string }
  >;
  return out[PEER_ADDR]?.bgpState ?? 'NotConfigured';
}

/** The peer asks for this password from now on. */
const peerPassword = (pw: string): void => {
  workload.vtysh('configure terminal', `router bgp ${WORKLOAD_ASN}`, `neighbor ${NODE_ADDR} password ${pw}`);
};

async function setSecret(pw: string): Promise<void> {
  const current = await cluster.clients.secret.get(SECRET, PASSWORDS_NS);
  await cluster.clients.secret.update({ ...current, data: { password: b64(pw) } });
}

const until = <T>(what: string, fn: () => Promise<T | undefined | false>, ms = 90_000): Promise<T> =>
  q.until(what, fn, ms);

async function established(timeoutMs = 60_000): Promise<void> {
  await until('the workload session Established', async () => nodeSession() === 'Established', timeoutMs);
}

/** The revision with the highest number. */
const newestRevision = async (): Promise<NetworkConfigRevision | undefined> => (await q.revisions()).at(-1);

const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

describePrivileged(
  'BGP passwords from Secrets: TCP-MD5 on real FRR, rotation and rollback through the rollout',
  { ...FRR_PREREQUISITES, commands: [...FRR_PREREQUISITES.commands, 'curl', 'kubectl'] },
  () => {
    beforeAll(async () => {
      cluster = new AgentCluster(`pw${Math.random().toString(36).slice(2, 5)}`);
      await cluster.setUp(['packages/agent', 'packages/configurator', 'packages/cli']);
      q = fleetQueries(cluster.clients);
      await createNode(cluster.clients, 'node-1');
      node = new NodeEnv(cluster, 'node-1', cluster.tag);
      cluster.nodes.push(node);
      await node.setUp();
      // The session to the workload is a health check: a change that drops it is undone.
      writeFileSync(
        node.healthFile,
        [
          'interfaces: [vtep0]',
          'apiServer: {timeoutMs: 2000, retries: 1}',
          'frr:',
          `  bgpSessions: [{peer: ${PEER_ADDR}}]`,
          '',
        ].join('\n'),
      );
      // What deploy/bgp-passwords.yaml creates: the namespace and the empty salt Secret.
      await cluster.clients.client.request('POST', '/api/v1/namespaces', {
        body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: PASSWORDS_NS } },
      });
      for (const [name, data] of [
        [PASSWORD_SALT_SECRET, {}],
        [SECRET, { password: b64(P1) }],
      ] as const)
        await cluster.clients.secret.create({
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name, namespace: PASSWORDS_NS },
          data,
        });

      workload = startFrr(node.peerNs, node.peerNs);
      workload.vtysh(
        'configure terminal',
        `router bgp ${WORKLOAD_ASN}`,
        `bgp router-id ${PEER_ADDR}`,
        'no bgp ebgp-requires-policy',
        'timers bgp 1 3',
        `neighbor ${NODE_ADDR} remote-as 65001`,
        `neighbor ${NODE_ADDR} timers connect 1`,
        `neighbor ${NODE_ADDR} password ${P1}`,
      );

      const metricsPort = await freePort();
      configuratorMetrics = `http://127.0.0.1:${metricsPort}/metrics`;
      configurator = spawnConfigurator(
        cluster.dc.kubeconfigPath,
        [
          '--update-limit',
          '1',
          '--log-level',
          'debug',
          '--metrics-addr',
          `127.0.0.1:${metricsPort}`,
          // The peerings here are in the default VRF: this site allows it (issue #37's guard).
          '--allow-default-vrf-peering',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      for (const s of [configurator.stdout!, configurator.stderr!])
        s.on('data', (c: Buffer) => configuratorLog.push(c.toString('utf8')));
      agent = node.startAgent({
        confirmWindow: '8s',
        resync: '5s',
        extraArgs: ['--confirm-interval=1s', '--confirm-unreachable-limit=4s', '--heartbeat-interval=2s'],
      });
    }, 180_000);

    afterAll(async () => {
      await stopProcess(configurator);
      try {
        workload?.stop();
      } catch {
        /* best effort */
      }
      await cluster?.tearDown();
    });

    it('the peering with the right password establishes; frr.conf (0600) holds it, the revision only its salted hash', async () => {
      const peering: BGPPeering = {
        apiVersion: 'network.nodenet.io/v1alpha1',
        kind: 'BGPPeering',
        metadata: { name: 'workload' },
        spec: {
          neighbor: { addresses: [PEER_ADDR] },
          remoteASN: WORKLOAD_ASN,
          holdTime: 3,
          keepaliveTime: 1,
          passwordSecretRef: { name: SECRET, namespace: PASSWORDS_NS },
        },
      };
      await cluster.clients.bgpPeering.create(peering);
      const rev1 = await until('a revision carrying the peering', async () => {
        const r = await newestRevision();
        return r?.spec.config.bgpPeering?.length ? r : undefined;
      });
      await until('node-1 provisioned on it', async () => {
        const nc = await cluster.clients.nodeConfig.get('node-1');
        return nc.status?.configStatus === 'provisioned' && nc.status.lastAppliedRevision === rev1.spec.hash;
      });
      expect(rev1.spec.config.bgpPeering?.[0]?.password).toEqual({
        secret: SECRET,
        key: 'password',
        hash: expect.stringMatching(/^hmac-sha256:[0-9a-f]{64}$/),
      });
      await established();
      const conf = join(node.frr.confdir, 'frr.conf');
      expect(readFileSync(conf, 'utf8')).toContain(` neighbor pp_workload password ${P1}\n`);
      expect(statSync(conf).mode & 0o777).toBe(0o600);
      expect(statSync(join(node.stateDir, 'passwords.json')).mode & 0o777).toBe(0o600);
    }, 120_000);

    it('a peering naming a Secret that does not exist is Accepted=False naming it, and holds back only itself', async () => {
      const before = (await newestRevision())!;
      await cluster.clients.bgpPeering.create({
        apiVersion: 'network.nodenet.io/v1alpha1',
        kind: 'BGPPeering',
        metadata: { name: 'no-secret' },
        spec: {
          neighbor: { addresses: ['10.98.0.77'] },
          remoteASN: 65300,
          passwordSecretRef: { name: 'absent' },
        },
      });
      const refused = await until('the peering refused', async () => {
        const p = await cluster.clients.bgpPeering.get('no-secret');
        return p.status?.conditions?.find((c) => c.type === 'Accepted' && c.status === 'False');
      });
      expect(refused.message).toBe(
        `BGPPeering no-secret: spec.passwordSecretRef.name: names no Secret in namespace ${PASSWORDS_NS} (got "absent")`,
      );
      expect((await newestRevision())!.metadata.name).toBe(before.metadata.name);
      await cluster.clients.bgpPeering.delete('no-secret');
      expect(nodeSession()).toBe('Established');
    }, 60_000);

    it('with a wrong password on the peer the session never establishes; with the right one it does again', async () => {
      peerPassword(PEER_WRONG);
      await until('the session down', async () => nodeSession() !== 'Established', 20_000);
      // Hold time 3 s, the peer retries every second: 10 s is several attempts.
      const deadline = performance.now() + 10_000;
      while (performance.now() < deadline) {
        expect(nodeSession()).not.toBe('Established');
        await new Promise((r) => setTimeout(r, 250));
      }
      peerPassword(P1);
      await established();
    }, 90_000);

    it('a rotation, peer first and then the Secret, rolls out as a new revision and the session is Established on the new password', async () => {
      const before = (await newestRevision())!;
      peerPassword(P2);
      await until('the session down after the peer changed', async () => nodeSession() !== 'Established');
      await setSecret(P2);
      const rev2 = await until('a new revision for the rotation', async () => {
        const r = await newestRevision();
        return r && r.metadata.name !== before.metadata.name ? r : undefined;
      });
      expect(rev2.spec.config.bgpPeering?.[0]?.password?.hash).not.toBe(
        before.spec.config.bgpPeering?.[0]?.password?.hash,
      );
      await until('node-1 provisioned on the rotation', async () => {
        const nc = await cluster.clients.nodeConfig.get('node-1');
        return nc.status?.configStatus === 'provisioned' && nc.status.lastAppliedRevision === rev2.spec.hash;
      });
      await established();
      expect(readFileSync(join(node.frr.confdir, 'frr.conf'), 'utf8')).toContain(
        ` neighbor pp_workload password ${P2}\n`,
      );
    }, 120_000);

    it('a wrong new password drops the session: the agent reverts to the old one (the Secret holds the new one), the session comes back, the revision is invalid', async () => {
      const good = (await newestRevision())!;
      await setSecret(P3);
      const bad = await until('the wrong rotation marked invalid', async () => {
        const r = await newestRevision();
        return r && r.metadata.name !== good.metadata.name && r.status?.isInvalid ? r : undefined;
      });
      expect(bad.status?.failedNodes?.map((f) => f.node)).toEqual(['node-1']);
      expect(bad.status?.failedNodes?.[0]?.message).toMatch(new RegExp(`bgp/default/${PEER_ADDR}`));
      const nc = await until('node-1 back on the good revision', async () => {
        const x = await cluster.clients.nodeConfig.get('node-1');
        return x.spec.revision === good.spec.hash && x.status?.configStatus === 'provisioned' ? x : undefined;
      });
      expect(nc.status?.lastAppliedRevision).toBe(good.spec.hash);
      await established();
      expect(node.frr.vtysh('show running-config')).toContain(`neighbor pp_workload password ${P2}`);
      expect(readFileSync(join(node.frr.confdir, 'frr.conf'), 'utf8')).toContain(
        ` neighbor pp_workload password ${P2}\n`,
      );
    }, 150_000);

    it('a password changed by hand on the node is drift: repaired from the revision, the DriftRepaired Event shows password <redacted>', async () => {
      node.frr.vtysh('configure terminal', 'router bgp 65001', `neighbor pp_workload password ${PEER_WRONG}`);
      const event = await until('a DriftRepaired Event naming the password line', async () =>
        (await cluster.clients.event.list()).items.find(
          (e) => e.reason === 'DriftRepaired' && e.message.includes('neighbor pp_workload password'),
        ),
      );
      expect(event.message).toContain('neighbor pp_workload password <redacted>');
      await established();
      expect(node.frr.vtysh('show running-config')).toContain(`neighbor pp_workload password ${P2}`);
    }, 90_000);

    it('no password text in NodeConfigs, revisions, BGPPeerings, Events, agent and configurator logs, metrics pages or kubectl nodenet output', async () => {
      const kubeconfig = cluster.dc.kubeconfigPath;
      const run = promisify(execFile);
      const cli = async (...args: string[]): Promise<string> => {
        const r = await run(
          process.execPath,
          [join(repoRoot, 'packages/cli/dist/main.js'), '--kubeconfig', kubeconfig, ...args],
          { encoding: 'utf8' },
        ).catch((e: { stdout?: string; stderr?: string }) => e);
        return `${r.stdout ?? ''}${r.stderr ?? ''}`;
      };
      const texts: Record<string, string> = {
        nodeConfigs: JSON.stringify(await cluster.clients.nodeConfig.list()),
        revisions: JSON.stringify(await cluster.clients.revision.list()),
        peerings: JSON.stringify(await cluster.clients.bgpPeering.list()),
        events: JSON.stringify(await cluster.clients.event.list()),
        agentLog: JSON.stringify(agent.logs),
        configuratorLog: configuratorLog.join(''),
        agentMetrics: execFileSync(
          'ip',
          ['netns', 'exec', node.nodeNs, 'curl', '-s', 'http://127.0.0.1:9462/metrics'],
          { encoding: 'utf8' },
        ),
        configuratorMetrics: execFileSync('curl', ['-s', configuratorMetrics], { encoding: 'utf8' }),
        cliStatus: await cli('status'),
        cliNodes: await cli('nodes'),
        cliHistory: await cli('history'),
        cliWhy: await cli('why', 'node-1'),
        cliDiff: await cli('diff', 'node-1'),
      };
      // The texts are real: each holds what it is about.
      expect(texts.agentLog).toContain('applying new config');
      expect(texts.configuratorLog).toContain('revision created');
      expect(texts.agentMetrics).toContain('nodenet_agent');
      expect(texts.configuratorMetrics).toContain('nodenet_configurator');
      expect(texts.cliNodes).toContain('node-1');
      const found = Object.entries(texts).flatMap(([where, text]) =>
        ALL.flatMap((pw) => [pw, b64(pw)].filter((v) => text.includes(v)).map((v) => `${where}: ${v}`)),
      );
      expect(found).toEqual([]);
    }, 90_000);
  },
);
