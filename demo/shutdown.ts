/**
 * How the demo stops. On a terminal, Ctrl-C sends SIGINT to the whole foreground process group: npm,
 * the demo, and every child still in that group. The demo's children therefore run in their own
 * process groups (detached), so the keypress reaches only npm and the demo, and the demo stops them
 * in order. npm forwards the SIGINT it got to the demo as well, so one keypress arrives as a burst of
 * signals: every SIGINT within BURST_MS of the first is the same Ctrl-C. A SIGINT after that is a
 * second Ctrl-C: the demo exits at once and says what it left behind and how to remove it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Signals of one Ctrl-C (the terminal's and npm's forwarded copy) arrive within this time. */
const BURST_MS = 1_000;

/** What the demo holds on the machine: network namespaces, processes and directories. */
export interface Footprint {
  namespaces: string[];
  /** `kind` groups them in a summary (agent, helper, FRR daemon, configurator). */
  pids: { pid: number; what: string; kind: string }[];
  dirs: string[];
}

export const emptyFootprint = (): Footprint => ({ namespaces: [], pids: [], dirs: [] });

export function mergeFootprints(...parts: Footprint[]): Footprint {
  return {
    namespaces: parts.flatMap((p) => p.namespaces),
    pids: parts.flatMap((p) => p.pids),
    dirs: parts.flatMap((p) => p.dirs),
  };
}

/** The part of `f` still present now. */
export function stillPresent(f: Footprint): Footprint {
  let netns = '';
  if (f.namespaces.length > 0)
    try {
      netns = execFileSync('ip', ['netns', 'list'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      });
    } catch {
      /* no iproute2: no namespaces either */
    }
  const listed = new Set(netns.split('\n').map((l) => l.split(' ')[0]));
  return {
    namespaces: f.namespaces.filter((n) => listed.has(n)),
    pids: f.pids.filter(({ pid }) => alive(pid)),
    dirs: f.dirs.filter((d) => existsSync(d)),
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const count = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** One line: what a footprint holds, counted (for "removed: …"). */
export function summary(f: Footprint): string {
  const parts = [
    f.pids.length ? `${count(f.pids.length, 'process', 'processes')} (${kinds(f)})` : '',
    f.namespaces.length ? count(f.namespaces.length, 'network namespace') : '',
    f.dirs.length ? count(f.dirs.length, 'temporary directory', 'temporary directories') : '',
  ].filter(Boolean);
  return parts.join(', ') || 'nothing';
}

/** "configurator, 4 agents, 8 helpers": processes counted by kind, in order of first appearance. */
function kinds(f: Footprint): string {
  const by = new Map<string, number>();
  for (const p of f.pids) by.set(p.kind, (by.get(p.kind) ?? 0) + 1);
  return [...by].map(([kind, n]) => (n === 1 ? kind : `${n} ${kind}s`)).join(', ');
}

/** What is left, each item with the command that removes it. */
export function leftoverLines(f: Footprint): string[] {
  return [
    ...f.pids.map((p) => `  process ${p.pid} (${p.what}): kill ${p.pid}`),
    ...f.namespaces.map((n) => `  network namespace ${n}: ip netns del ${n}`),
    ...f.dirs.map((d) => `  directory ${d}: rm -r ${d}`),
  ];
}

/**
 * Runs `stop` on the first Ctrl-C (or SIGTERM); `atOnce` on a second Ctrl-C arriving while `stop`
 * still runs (it must exit the process).
 */
export function onInterrupt(stop: () => Promise<void>, atOnce: () => void): void {
  let first: number | undefined;
  const handler = (signal: NodeJS.Signals): void => {
    const now = performance.now();
    if (first === undefined) {
      first = now;
      process.stdout.write(
        `\n${signal === 'SIGINT' ? 'Ctrl-C' : signal}: stopping and removing what the demo created (Ctrl-C again to exit at once)\n`,
      );
      void stop();
    } else if (now - first > BURST_MS) atOnce();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}
