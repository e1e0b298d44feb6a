/**
 * Where the demo runs: devcluster plus agents, either real (the agent binary in a network namespace
 * per node with its own FRR, as test/agent does) or simulated (test/support/simulated-agent.ts).
 */
import { accessSync, constants, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { startDevCluster, type DevCluster } from '@nodenet/devcluster';
import { KubeClient, loadKubeConfig, makeClients, type Clients } from '@nodenet/kube';
import { AgentCluster, PEER_ADDR, type NodeEnv, FRR_PREREQUISITES, SimulatedAgents } from '@nodenet/testkit';

export type AgentMode = 'real' | 'simulated';

export interface Stage {
  mode: AgentMode;
  kubeconfigPath: string;
  clients: Clients;
  /** Sets up one node's agent environment (its namespace and FRR in real mode). */
  addNode(name: string): Promise<void>;
  startAgents(): void;
  /** Lines for the user: how to look at a node's host. */
  hostHints(): string[];
  /** Devices on a node's host (real mode), for the rollback check; undefined when simulated. */
  hostDevices(node: string): string[] | undefined;
  tearDown(): Promise<void>;
}

/** Whether real agents can run here, and if not, why not. */
export function realAgentsPossible(): { ok: boolean; why: string } {
  const missing: string[] = [];
  if (process.getuid?.() !== 0) missing.push('root privileges (network namespaces)');
  for (const cmd of FRR_PREREQUISITES.commands) if (!findCommand(cmd)) missing.push(cmd);
  return missing.length === 0
    ? { ok: true, why: 'running as root with iproute2 and FRR installed' }
    : { ok: false, why: `missing ${missing.join(', ')}` };
}

function findCommand(cmd: string): boolean {
  const candidates = cmd.startsWith('/')
    ? [cmd]
    : (process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, cmd));
  return candidates.some((p) => {
    try {
      accessSync(p, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Real agents; each one's log goes to `<logDir>/agent-<node>.log`. */
export async function realStage(logDir: string): Promise<Stage> {
  const cluster = new AgentCluster(`demo${process.pid % 1000}`);
  await cluster.setUp([]);
  const envs = new Map<string, NodeEnv>();
  return {
    mode: 'real',
    kubeconfigPath: cluster.dc.kubeconfigPath,
    clients: cluster.clients,
    addNode: async (name) => {
      envs.set(name, await cluster.addNode(name));
    },
    startAgents: () => {
      for (const env of envs.values())
        env.startAgent({ resync: '5s', logFile: join(logDir, `agent-${env.nodeName}.log`) });
    },
    hostHints: () => [
      ...[...envs.values()].flatMap((e) => [
        `ip netns exec ${e.nodeNs} ip -br link     # ${e.nodeName}'s host`,
        `vtysh --config_dir ${e.frr.confdir} -N ${e.frr.name} -c 'show running-config'     # ${e.nodeName}'s FRR`,
      ]),
      `(each node's health check connects to its underlay peer ${PEER_ADDR}:7179)`,
    ],
    hostDevices: (node) =>
      envs
        .get(node)
        ?.links()
        .map((l) => l.ifname),
    tearDown: () => cluster.tearDown(),
  };
}

/**
 * Simulated agents report what a real agent would: `provisioned` after a short apply, and for the
 * bad change `invalid` with the health-check message a real node reports (the revision whose
 * configuration puts an anycast gateway on the health-check target's address).
 */
export async function simulatedStage(crdsDir: string, badHash: string): Promise<Stage> {
  const work = mkdtempSync(join(tmpdir(), 'nodenet-demo-'));
  const kubeconfigPath = join(work, 'kubeconfig');
  const dc: DevCluster = await startDevCluster({ crdsDir, kubeconfigPath });
  const client = new KubeClient(loadKubeConfig(kubeconfigPath));
  const agents = new SimulatedAgents({
    kubeconfigPath,
    behaviour: (_node, revision) =>
      revision === badHash
        ? {
            kind: 'invalid',
            delayMs: 400,
            message: `health check failed: tcp/peer (${PEER_ADDR}:7179 unreachable; simulated)`,
          }
        : { kind: 'ok', delayMs: 400 },
  });
  return {
    mode: 'simulated',
    kubeconfigPath,
    clients: makeClients(client),
    addNode: () => Promise.resolve(undefined),
    startAgents: () => void agents.start(),
    hostHints: () => ['(simulated agents: no hosts to look at)'],
    hostDevices: () => undefined,
    tearDown: async () => {
      await agents.stop();
      client.close();
      await dc.stop();
      if (existsSync(work)) rmSync(work, { recursive: true, force: true });
    },
  };
}
