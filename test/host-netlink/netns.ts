/**
 * Test helpers for network namespaces: create/remove a namespace, run `ip` inside it, and drive the
 * netlink driver in it through driver-child.ts.
 */
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { HostSettings, NetlinkApplyResult, NetlinkSpec, Operation } from '@nodenet/agent';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** A unique namespace name with this suite's prefix, so parallel suites never collide. */
export const uniqueNetns = (tag: string): string =>
  `nnnl-${tag}-${process.pid}-${Math.floor(Math.random() * 1e6)}`;

export function addNetns(name: string): void {
  execFileSync('ip', ['netns', 'add', name]);
  execFileSync('ip', ['-n', name, 'link', 'set', 'lo', 'up']);
}

export function delNetns(name: string): void {
  try {
    execFileSync('ip', ['netns', 'del', name], { stdio: 'ignore' });
  } catch {
    // already gone
  }
}

/** `ip -n <ns> <args>` (argv, no shell); returns stdout. */
export function ipIn(ns: string, args: string[]): string {
  return execFileSync('ip', ['-n', ns, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Parsed `ip -json -details …` output, the independent view tests check the driver against. */
export function ipJson<T = IpLink[]>(ns: string, args: string[]): T {
  const out = ipIn(ns, ['-json', '-details', ...args]);
  return JSON.parse(out || '[]') as T;
}

export interface IpLink {
  ifname: string;
  ifindex: number;
  mtu: number;
  address: string;
  master?: string;
  flags: string[];
  operstate: string;
  link?: string;
  ifalias?: string;
  linkinfo?: {
    info_kind?: string;
    info_data?: Record<string, unknown>;
    info_slave_kind?: string;
    info_slave_data?: Record<string, unknown>;
  };
  addr_info?: { family: string; local: string; prefixlen: number; scope: string }[];
}

export function links(ns: string): Map<string, IpLink> {
  return new Map(ipJson(ns, ['link', 'show']).map((l) => [l.ifname, l]));
}

export function addrs(ns: string, dev: string): string[] {
  const [l] = ipJson(ns, ['addr', 'show', 'dev', dev]);
  return (l?.addr_info ?? [])
    .filter((a) => a.scope !== 'link')
    .map((a) => `${a.local}/${a.prefixlen}`)
    .sort();
}

export interface DriverClient {
  apply(spec: NetlinkSpec): Promise<NetlinkApplyResult>;
  plan(spec: NetlinkSpec): Promise<{ operations: Operation[]; tables: Record<string, number> }>;
  read(): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export class DriverCallError extends Error {
  constructor(
    readonly errorName: string,
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

/** Starts driver-child.ts inside the namespace. */
export function startDriver(
  ns: string | undefined,
  settings: HostSettings & { tableStatePath?: string; adopt?: NetlinkSpec },
): DriverClient {
  const child: ChildProcessWithoutNullStreams = spawn(
    ns ? 'ip' : process.execPath,
    [
      ...(ns ? ['netns', 'exec', ns, process.execPath] : []),
      '--import',
      'tsx',
      'test/host-netlink/driver-child.ts',
    ],
    {
      cwd: repoRoot,
      env: {
        ...process.env,
        NODENET_TEST_SETTINGS: JSON.stringify(settings),
        TSX_TSCONFIG_PATH: 'tsconfig.test.json',
      },
    },
  );
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  createInterface({ input: child.stdout }).on('line', (line) => {
    const msg = JSON.parse(line) as {
      id: number;
      result?: unknown;
      error?: { name: string; code?: string; message: string };
    };
    const p = pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    if (msg.error) p.reject(new DriverCallError(msg.error.name, msg.error.code, msg.error.message));
    else p.resolve(msg.result);
  });
  child.on('exit', (code) => {
    for (const p of pending.values()) p.reject(new Error(`driver child exited (${code}): ${stderr}`));
    pending.clear();
  });
  const call = <T>(method: string, spec?: NetlinkSpec): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      child.stdin.write(`${JSON.stringify({ id, method, spec })}\n`);
    });
  return {
    apply: (spec) => call('apply', spec),
    plan: (spec) => call('plan', spec),
    read: () => call('read'),
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      await call('close').catch(() => undefined);
      child.stdin.end();
      await exited;
    },
  };
}
