/**
 * Real FRR instances for host tests: each one runs Debian's daemons (zebra, bgpd, …) by hand, outside
 * systemd, inside its own network namespace with its own pathspace (`-N <name>`: sockets and pid
 * files under /var/run/frr/<name>) and its own config directory, so several run side by side and
 * none touches the machine's own /etc/frr.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const FRR_SBIN = '/usr/lib/frr';
export const FRR_PREREQUISITES = {
  root: true,
  commands: ['ip', 'vtysh', `${FRR_SBIN}/zebra`, `${FRR_SBIN}/bgpd`, `${FRR_SBIN}/frr-reload.py`],
};

export interface FrrNetnsInstance {
  /** Pathspace (`-N`) of the daemons. */
  name: string;
  netns: string;
  /** The daemons started, in start order. */
  daemons: readonly string[];
  /** Config directory (the managed file is `<confdir>/frr.conf`). */
  confdir: string;
  /** Socket and pid directory (`/var/run/frr/<name>`). */
  rundir: string;
  pid(daemon: string): number;
  /** `vtysh -c …` against this instance. */
  vtysh(...commands: string[]): string;
  stop(): void;
}

function frrUser(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('frr:'));
  if (!line) throw new Error('user frr not found (is the frr package installed?)');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

export function startFrr(
  name: string,
  netns: string,
  daemons: string[] = ['zebra', 'bgpd'],
): FrrNetnsInstance {
  const { uid, gid } = frrUser();
  const rundir = `/var/run/frr/${name}`;
  mkdirSync(rundir, { recursive: true });
  chownSync(rundir, uid, gid);
  const confdir = mkdtempSync(join(tmpdir(), `nn-frr-${name}-`));
  // vtysh given both --config_dir and -N looks for <confdir>/<name>/vtysh.conf; frr-reload.py for
  // <confdir>/vtysh.conf. Both say the config is integrated.
  for (const d of [confdir, join(confdir, name)]) {
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, 'vtysh.conf'), 'service integrated-vtysh-config\n');
    chownSync(d, uid, gid);
  }
  for (const daemon of daemons) {
    execFileSync(
      'ip',
      [
        'netns',
        'exec',
        netns,
        join(FRR_SBIN, daemon),
        '-d',
        '-N',
        name,
        '-P',
        '0', // no TCP vty
        '-f',
        '/dev/null', // the integrated config is loaded by the driver, not by the daemon
        '-i',
        join(rundir, `${daemon}.pid`),
        '--log',
        `file:${join(confdir, `${daemon}.log`)}`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    ); // start-up notes (e.g. no MPLS in this kernel) go to the log, not the terminal; a failure still throws with them
  }
  const inst: FrrNetnsInstance = {
    name,
    netns,
    daemons,
    confdir,
    rundir,
    pid: (daemon) => Number(readFileSync(join(rundir, `${daemon}.pid`), 'utf8').trim()),
    vtysh: (...commands) =>
      execFileSync('vtysh', ['--config_dir', confdir, '-N', name, ...commands.flatMap((c) => ['-c', c])], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    stop: () => {
      for (const daemon of [...daemons].reverse()) {
        const pidFile = join(rundir, `${daemon}.pid`);
        if (!existsSync(pidFile)) continue;
        try {
          process.kill(Number(readFileSync(pidFile, 'utf8').trim()), 'SIGTERM');
        } catch {
          /* already gone */
        }
      }
      waitGone(daemons.map((d) => join(rundir, `${d}.pid`)));
      rmSync(rundir, { recursive: true, force: true });
      rmSync(confdir, { recursive: true, force: true });
    },
  };
  return inst;
}

function waitGone(pidFiles: string[]): void {
  const deadline = Date.now() + 10_000;
  for (const f of pidFiles) {
    if (!existsSync(f)) continue;
    const pid = Number(readFileSync(f, 'utf8').trim());
    while (Date.now() < deadline) {
      try {
        process.kill(pid, 0);
      } catch {
        break;
      }
      execFileSync('sleep', ['0.1']);
    }
  }
}

/** Poll `fn` until it returns a truthy value or `timeoutMs` passes (then return the last value). */
export async function eventually<T>(fn: () => T | Promise<T>, timeoutMs = 60_000, stepMs = 500): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  let last: T = await fn();
  while (!last && performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, stepMs));
    last = await fn();
  }
  return last;
}
