/** The fleet benchmark's processes: devcluster, the simulated agents, Nodes with their Ready condition. */
import { fork, spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDevCluster } from '@nodenet/devcluster';
import { makeClients } from '@nodenet/kube';
import { SimulatedAgents, type StatusWriteRecord } from '@nodenet/testkit';
import { SINGLE, PROF, LATENCY, CRDS, DEVCLUSTER_MAIN, AGENTS_MAIN } from './args.js';

export async function pool<T>(items: T[], n: number, fn: (t: T) => Promise<unknown>): Promise<void> {
  let i = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (i < items.length) await fn(items[i++] as T);
    }),
  );
}

/** CPU time (user + system, ms) a process has used so far, from /proc (Linux). */
export function procCpuMs(pid: number): number {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (100 Hz)
  } catch {
    return NaN;
  }
}

export interface DevClusterHandle {
  kubeconfigPath: string;
  pid: number;
  stop(): Promise<void>;
}

/** devcluster in its own process (the real CLI from dist), or in this one with --single-process. */
export async function startCluster(): Promise<DevClusterHandle> {
  if (SINGLE) {
    const dc = await startDevCluster({ crdsDir: CRDS });
    return { kubeconfigPath: dc.kubeconfigPath, pid: process.pid, stop: () => dc.stop() };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodenet-bench-'));
  const kubeconfigPath = path.join(dir, 'kubeconfig');
  const child = spawn(
    process.execPath,
    [...PROF, DEVCLUSTER_MAIN, '--crds', CRDS, '--kubeconfig', kubeconfigPath],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  process.on('exit', () => child.kill('SIGKILL')); // never leave a server behind
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('listening on')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`devcluster exited with ${code}: ${out}`)));
  });
  return {
    kubeconfigPath,
    pid: child.pid!,
    stop: async () => {
      child.kill('SIGTERM');
      await once(child, 'exit');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface AgentsHandle {
  pid: number;
  report(): Promise<{ writes: StatusWriteRecord[]; writeErrors: number }>;
  stop(): Promise<void>;
}

/** The simulated agents in their own process (bench/fleet-agents.ts), or in this one with --single-process. */
export async function startAgents(kubeconfigPath: string): Promise<AgentsHandle> {
  if (SINGLE) {
    const agents = new SimulatedAgents({ kubeconfigPath, defaultDelayMs: LATENCY });
    await agents.start();
    return {
      pid: process.pid,
      report: () => Promise.resolve({ writes: agents.writes, writeErrors: agents.writeErrors }),
      stop: () => agents.stop(),
    };
  }
  const { child, next } = forkChild(AGENTS_MAIN);
  const ready = next('ready');
  child.send({ type: 'start', kubeconfigPath, latencyMs: LATENCY });
  await ready;
  return {
    pid: child.pid!,
    report: async () => {
      const r = next<{ writes: StatusWriteRecord[]; writeErrors: number }>('report');
      child.send({ type: 'report' });
      return r;
    },
    stop: async () => {
      const exited = once(child, 'exit');
      child.send({ type: 'stop' });
      await exited;
    },
  };
}

/** A child process running a bench module (with tsx), and the next IPC message of a type from it. */
export function forkChild(main: string) {
  const child = fork(main, [], { execArgv: [...PROF, '--import', 'tsx'], stdio: 'inherit' });
  process.on('exit', () => child.kill('SIGKILL'));
  const next = <T>(type: string): Promise<T> =>
    new Promise((resolve) => {
      const on = (m: { type: string }): void => {
        if (m.type !== type) return;
        child.off('message', on);
        resolve(m as T);
      };
      child.on('message', on);
    });
  return { child, next };
}

/** A Node status patch with its Ready condition (the kubelet's part). */
export const readyStatus = (ready: boolean) => ({
  status: {
    conditions: [
      {
        type: 'Ready',
        status: ready ? 'True' : 'False',
        reason: ready ? 'KubeletReady' : 'NodeStatusUnknown',
        message: '',
        lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      },
    ],
  },
});

export const pct = (xs: number[], p: number): number => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

export const nodeNames = (n: number): string[] =>
  Array.from({ length: n }, (_, i) => `node-${String(i).padStart(4, '0')}`);

export async function createReadyNodes(
  setup: ReturnType<typeof makeClients>,
  names: string[],
  parallel: number,
): Promise<void> {
  await pool(names, parallel, async (name) => {
    await setup.node.create({ metadata: { name } });
    await setup.node.patchStatus(name, readyStatus(true));
  });
}

/** Stops a scenario's parts, the configurator first (it writes until it stops), devcluster last. */
export async function stopAll(parts: {
  controller: { stop(): Promise<void> };
  agents: { stop(): Promise<void> };
  clients: { close(): void }[];
  dc: { stop(): Promise<void> };
}): Promise<void> {
  await parts.controller.stop();
  await parts.agents.stop();
  for (const c of parts.clients) c.close();
  await parts.dc.stop();
}
