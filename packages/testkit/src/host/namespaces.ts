/**
 * What every simulated host shares: the repository's paths, the addresses each node namespace uses,
 * and running commands and helper scripts inside a namespace.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../../..', import.meta.url));
/** Helper scripts run in a namespace with tsx (`helper`): sources, so they run from src/ and dist/ alike. */
export const HELPER_SCRIPTS = join(repoRoot, 'packages/testkit/scripts');

/** Every node namespace uses the same addresses: they are separate namespaces. */
export const NODE_ADDR = '10.98.0.1';
export const PEER_ADDR = '10.98.0.2';
export const PEER_PORT = 7179;
export const API_PORT = 16443;

export interface IpLink {
  ifindex: number;
  ifname: string;
  operstate: string;
  flags: string[];
  master?: string;
  linkinfo?: { info_kind?: string; info_data?: Record<string, unknown> };
  addr_info?: { family: string; local: string; prefixlen: number }[];
}

export interface AgentRun {
  process: ChildProcess;
  logs: Record<string, unknown>[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the first log line matching, or rejects after the timeout. */
  waitForLog(
    match: (line: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

export const sh = (cmd: string, ...args: string[]): string => execFileSync(cmd, args, { encoding: 'utf8' });

/** Spawns a helper script inside a namespace; resolves once it printed its first line ("ready"). */
export function helper(ns: string, script: string, ...args: string[]): Promise<ChildProcess> {
  return helperIn({ ns, script, args });
}

/**
 * `helper`, optionally in its own process group (`detached`): a terminal's Ctrl-C, sent to the whole
 * foreground group, then does not reach it, and its owner stops it in order (the demo).
 */
export function helperIn(o: {
  ns: string;
  script: string;
  args: string[];
  detached?: boolean;
}): Promise<ChildProcess> {
  // `ip netns exec` execs node itself (tsx as a loader, not a wrapper process), so killing the
  // child kills the server.
  const child = spawn(
    'ip',
    ['netns', 'exec', o.ns, process.execPath, '--import', 'tsx', o.script, ...o.args],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      cwd: repoRoot,
      detached: o.detached === true,
    },
  );
  const script = o.script;
  return new Promise((resolve, reject) => {
    child.stdout.once('data', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}
