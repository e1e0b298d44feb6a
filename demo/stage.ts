/**
 * Where the demo runs: devcluster plus agents, either real (the agent binary in a network namespace
 * per node with its own FRR, as test/agent does) or simulated (test/support/simulated-agent.ts).
 */
import { execFileSync } from 'node:child_process';
import { accessSync, constants, cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { startDevCluster, type DevCluster } from '@nodenet/devcluster';
import { KubeClient, loadKubeConfig, makeClients, type Clients } from '@nodenet/kube';
import { AgentCluster, PEER_ADDR, type NodeEnv, FRR_PREREQUISITES, SimulatedAgents } from '@nodenet/testkit';
import type { Footprint } from './shutdown.js';

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
  /** What the stage holds on the machine now (namespaces, processes, directories). */
  footprint(): Footprint;
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
  // Agents and helpers in their own process groups: a terminal's Ctrl-C reaches the demo alone,
  // which stops them in order (shutdown.ts).
  const cluster = new AgentCluster(`demo${process.pid % 1000}`, { ownProcessGroups: true });
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
    footprint: () => cluster.footprint(),
    tearDown: async () => {
      for (const env of envs.values()) keepFrrLogs(env, logDir);
      await cluster.tearDown();
    },
  };
}

/** FRR's own logs of a node (they live in its config directory, removed with it) go to the log folder. */
function keepFrrLogs(env: NodeEnv, logDir: string): void {
  try {
    for (const f of readdirSync(env.frr.confdir).filter((f) => f.endsWith('.log')))
      cpSync(join(env.frr.confdir, f), join(logDir, `frr-${env.nodeName}-${f}`));
  } catch {
    /* FRR never started on this node */
  }
}

/**
 * Whether the kernel can make VRF devices (CONFIG_NET_VRF), tried in a throwaway namespace: `ip
 * link add … type vrf` says "Unknown device type" on a kernel without it.
 */
export function vrfSupported(): { ok: boolean; why: string } {
  const ns = `nnvrfprobe-${process.pid}`;
  try {
    execFileSync('ip', ['netns', 'add', ns], { stdio: 'pipe' });
  } catch (e) {
    return { ok: false, why: `could not create a network namespace to probe: ${firstLine(e)}` };
  }
  try {
    execFileSync('ip', ['-n', ns, 'link', 'add', 'vrfprobe', 'type', 'vrf', 'table', '10'], {
      stdio: 'pipe',
    });
    return { ok: true, why: 'the kernel makes VRF devices' };
  } catch (e) {
    return { ok: false, why: `\`ip link add … type vrf\` fails: ${firstLine(e)}` };
  } finally {
    execFileSync('ip', ['netns', 'del', ns], { stdio: 'ignore' });
  }
}

const firstLine = (e: unknown): string =>
  String((e as { stderr?: Buffer }).stderr ?? (e as Error).message)
    .trim()
    .split('\n')[0]
    ?.replace(/\.+$/, '') ?? '';

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
    footprint: () => ({ namespaces: [], pids: [], dirs: [work] }),
    tearDown: async () => {
      await agents.stop();
      client.close();
      await dc.stop();
      if (existsSync(work)) rmSync(work, { recursive: true, force: true });
    },
  };
}
