/**
 * One FRR instance on the host, as frr-reload.py and vtysh address it: config directory, pathspace
 * (`-N`), binary and run directories. Several instances can run side by side (one per network
 * namespace, each started with `-N <name>`), which is how the host tests run a node and its peer.
 */
import { join } from 'node:path';
import { FrrRenderError } from '../errors.js';

export interface FrrInstanceOptions {
  /** Directory of the integrated config; the file is always `<confdir>/frr.conf` (default `/etc/frr`). */
  confdir?: string;
  /** FRR pathspace (`-N`), for an instance started with `-N <name>`. */
  pathspace?: string;
  /** Directory holding `vtysh` (default `/usr/bin`). */
  bindir?: string;
  /** Scratch directory for frr-reload.py (default `/var/run/frr`, or `/var/run/frr/<pathspace>`). */
  rundir?: string;
  /** Directory of the daemons' vty sockets, when not the default for the pathspace. */
  vtySocket?: string;
  /** argv prefix of the reload tool (default `['/usr/lib/frr/frr-reload.py']`). */
  reloadCommand?: string[];
  /** Limit for each vtysh / frr-reload.py run (default 60 s). */
  timeoutMs?: number;
}

export interface ResolvedInstance {
  confdir: string;
  configFile: string;
  /** Copy of the file an apply replaced: what `restore()` goes back to. */
  previousFile: string;
  pathspace?: string;
  bindir: string;
  rundir: string;
  vtySocket?: string;
  reloadCommand: string[];
  timeoutMs: number;
}

const PATHSPACE = /^[A-Za-z0-9_-]{1,32}$/;

export function resolveInstance(o: FrrInstanceOptions = {}): ResolvedInstance {
  if (o.pathspace !== undefined && !PATHSPACE.test(o.pathspace)) {
    throw new FrrRenderError('frr.pathspace', o.pathspace, 'must be 1-32 characters of [A-Za-z0-9_-]');
  }
  for (const [k, v] of Object.entries({
    confdir: o.confdir,
    bindir: o.bindir,
    rundir: o.rundir,
    vtySocket: o.vtySocket,
  })) {
    if (v !== undefined && (!v.startsWith('/') || /[\n\0]/.test(v))) {
      throw new FrrRenderError(`frr.${k}`, v, 'must be an absolute path');
    }
  }
  if (o.reloadCommand !== undefined && o.reloadCommand.length === 0) {
    throw new FrrRenderError('frr.reloadCommand', o.reloadCommand, 'must not be empty');
  }
  const confdir = o.confdir ?? '/etc/frr';
  return {
    confdir,
    // frr-reload.py runs `write` (overwriting <confdir>/frr.conf with the running config) whenever it
    // reloads another file than that one, so the managed file must be exactly <confdir>/frr.conf.
    configFile: join(confdir, 'frr.conf'),
    previousFile: join(confdir, 'frr.conf.nodenet-previous'),
    ...(o.pathspace !== undefined ? { pathspace: o.pathspace } : {}),
    bindir: o.bindir ?? '/usr/bin',
    rundir: o.rundir ?? (o.pathspace ? `/var/run/frr/${o.pathspace}` : '/var/run/frr'),
    ...(o.vtySocket !== undefined ? { vtySocket: o.vtySocket } : {}),
    reloadCommand: o.reloadCommand ?? ['/usr/lib/frr/frr-reload.py'],
    timeoutMs: o.timeoutMs ?? 60_000,
  };
}

/** argv of vtysh addressing this instance (as frr-reload.py builds it). */
export function vtyshArgv(i: ResolvedInstance): [string, string[]] {
  const args = ['--config_dir', i.confdir];
  if (i.vtySocket) args.push('--vty_socket', i.vtySocket);
  if (i.pathspace) args.push('-N', i.pathspace);
  return [join(i.bindir, 'vtysh'), args];
}

/** argv of `frr-reload.py --reload <file>` (or `--test`: print the difference only) for this instance. */
export function reloadArgv(
  i: ResolvedInstance,
  file: string,
  mode: 'reload' | 'test' = 'reload',
): [string, string[]] {
  const [cmd, ...pre] = i.reloadCommand as [string, ...string[]];
  // --stdout: log to our pipe, not /var/log/frr (absent or read-only in a container); errors only,
  // so the output is FRR's complaint and nothing else.
  const args = [
    ...pre,
    `--${mode}`,
    '--stdout',
    '--log-level',
    'error',
    '--bindir',
    i.bindir,
    '--confdir',
    i.confdir,
    '--rundir',
    i.rundir,
  ];
  if (i.pathspace) args.push('--pathspace', i.pathspace);
  if (i.vtySocket) args.push('--vty_socket', i.vtySocket);
  args.push(file);
  return [cmd, args];
}
