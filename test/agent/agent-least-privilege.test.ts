/**
 * The real agent with the identity deploy/ gives it: devcluster with authorization and admission on
 * (`--authorization-mode RBAC`), deploy/ applied as rendered by `kubectl kustomize`, the agent
 * binary in its own network namespace with real FRR and a ServiceAccount token bound to its Pod on
 * node-1 (so the admission policy knows its node), beside two simulated agents and the real
 * configurator with their own tokens. A full rollout completes with no call refused: the agent's
 * NodeConfig informer, status reports, Node read and start-up taint removal are all allowed, and
 * the address lands on its host.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  FRR_PREREQUISITES,
  SimulatedAgents,
  AgentCluster,
  fleetQueries,
  layer2Input,
  PEER_ADDR,
  PEER_PORT,
  type AgentRun,
  type NodeEnv,
} from '@nodenet/testkit';
import { describePrivileged } from '../support/privileged.js';
import {
  AGENT_SA,
  CONFIGURATOR_SA,
  RbacCluster,
  refusals,
  spawnConfigurator,
  type LoggedProcess,
} from '../deploy/support/rbac-cluster.js';

const REAL = 'node-1';
const SIMULATED = ['node-2', 'node-3'];
const STARTUP_TAINT = 'node.nodenet.io/network-unavailable';

let cluster: AgentCluster;
let rbac: RbacCluster;
let env: NodeEnv;
let agent: AgentRun;
const simulated: SimulatedAgents[] = [];
let configurator: LoggedProcess;

describePrivileged(
  'the real agent with its pod-bound token under RBAC and the admission policy',
  FRR_PREREQUISITES,
  () => {
    beforeAll(async () => {
      cluster = new AgentCluster('lp');
      await cluster.setUp(['packages/agent', 'packages/configurator'], { authorizationMode: 'RBAC' });
      rbac = new RbacCluster();
      await rbac.start(cluster.dc);
      for (const n of [REAL, ...SIMULATED]) await rbac.addNode(n);
      // The Node starts with the taint the agent removes after its first healthy apply.
      await cluster.clients.node.mergePatch(REAL, {
        spec: {
          taints: [
            { key: STARTUP_TAINT, effect: 'NoSchedule' },
            { key: 'example.com/keep', effect: 'NoSchedule' },
          ],
        },
      });

      env = await cluster.addNode(REAL);
      env.writeKubeconfig(await rbac.podToken(AGENT_SA, `nodenet-agent-${REAL}`));
      writeFileSync(
        env.healthFile,
        [
          'interfaces: [vtep0]',
          'apiServer: {timeoutMs: 2000, retries: 1}',
          'tcp:',
          '  targets:',
          `    - {host: ${PEER_ADDR}, port: ${PEER_PORT}, name: peer, refusedIsReachable: false, timeoutMs: 1000, retries: 1}`,
          `startupTaints: [${STARTUP_TAINT}]`,
          '',
        ].join('\n'),
      );
      for (const n of SIMULATED) {
        const a = new SimulatedAgents({
          kubeconfigPath: await rbac.agentKubeconfig(n),
          behaviour: (node) => (node === n ? { kind: 'ok', delayMs: 20 } : { kind: 'never' }),
        });
        await a.start();
        simulated.push(a);
      }
      await rbac.createPod('nodenet-configurator-5c8f7', CONFIGURATOR_SA, REAL);
      configurator = spawnConfigurator(
        await rbac.podTokenKubeconfig(CONFIGURATOR_SA, 'nodenet-configurator-5c8f7'),
      );
      // Its liveness Lease in its own namespace, as deploy/ runs it (the RBAC Role is there), renewed
      // every second of a 3 s confirm window (issue 40).
      agent = env.startAgent({
        resync: '5s',
        confirmWindow: '3s',
        extraArgs: [
          ...['--lease-namespace', 'nodenet-system', '--heartbeat-interval', '1s'],
          ...['--confirm-interval', '1s', '--confirm-unreachable-limit', '2s'],
        ],
      });
    }, 180_000);

    afterAll(async () => {
      await configurator?.stop();
      for (const a of simulated) await a.stop();
      await rbac?.stop();
      await cluster?.tearDown();
    });

    it('a full rollout completes; no call of the real agent, the simulated agents or the configurator is refused', async () => {
      await cluster.clients.layer2.create(layer2Input('l2-100', 100, ['10.100.0.1/24']));
      await fleetQueries(cluster.clients).firstRevisionEverywhere(3);
      expect(env.hasAddress('l2.100', '10.100.0.1/24')).toBe(true);

      // The start-up taint is gone, the foreign one stays: the policy let the agent change its own.
      await fleetQueries(cluster.clients).until('start-up taint removed', async () => {
        const node = await cluster.clients.node.get(REAL);
        return !(node.spec?.taints ?? []).some((t) => t.key === STARTUP_TAINT);
      });
      expect((await cluster.clients.node.get(REAL)).spec?.taints?.map((t) => t.key)).toEqual([
        'example.com/keep',
      ]);

      // The agent renewed its own liveness Lease with its own identity.
      const lease = await cluster.clients.lease.get(REAL, 'nodenet-system');
      expect(lease.spec?.holderIdentity).toBe(REAL);
      expect(refusals(agent.logs.map((l) => JSON.stringify(l)))).toEqual([]);
      expect(simulated.map((a) => a.writeErrors)).toEqual([0, 0]);
      expect(refusals(configurator.lines)).toEqual([]);
    }, 120_000);
  },
);
