/**
 * What every command shares within one `run()`: the streams and clock, one API connection made on
 * first use, the output format, and the exit code `run()` returns.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeClient, loadKubeConfig, makeClients, type Clients } from '@nodenet/kube';
import { Command, Option } from 'commander';
import { CliError, EXIT, type ExitCode } from '../exit-codes.js';
import { machine, parseOutputFormat, type OutputFormat } from '../views/format.js';
import { escapeControls } from '@nodenet/api';

export interface Io {
  stdout: { write(s: string): unknown; isTTY?: boolean };
  stderr: { write(s: string): unknown };
  /** Wall clock, for ages shown to people and the retry annotation's value. */
  now?: () => number;
  /** Answers a yes/no question; absent = not interactive. */
  confirm?: (question: string) => Promise<boolean>;
  /** Interval of `status --watch` polls (ms). */
  watchIntervalMs?: number;
  /** Stops `status --watch` (tests); Ctrl-C does it for people. */
  signal?: AbortSignal;
}

/** The global and per-command options every command reads. */
export interface Common {
  kubeconfig?: string;
  output?: string;
}

export interface Session {
  io: Io;
  now: () => number;
  /** The API clients, connected on first use with the command's --kubeconfig. */
  connect(o: Common): Clients;
  format(o: Common): OutputFormat;
  /** Prints `data` as JSON or YAML, or `human()` for the table format. */
  print(o: Common, data: unknown, human: () => string): void;
  /** Sets the exit code `run()` returns. */
  exit(code: ExitCode): void;
}

export const REVISION_ARG = 'revision name (rev-000007-0a1b2c3d4e), number (7) or rev-7';

export const outputOption = (): Option =>
  new Option('-o, --output <format>', 'json or yaml instead of the table').choices(['json', 'yaml']);

export const commonOptions = (cmd: Command): Common => cmd.optsWithGlobals<Common>();

export function newSession(io: Io): { session: Session; close: () => void; code: () => number } {
  const now = io.now ?? Date.now;
  let code: number = EXIT.ok;
  let clients: Clients | undefined;
  const format = (o: Common): OutputFormat => {
    try {
      return parseOutputFormat(o.output);
    } catch (err) {
      throw new CliError((err as Error).message, EXIT.usage);
    }
  };
  const session: Session = {
    io,
    now,
    connect: (o) => (clients ??= makeClients(new KubeClient(loadKubeConfigOrFail(o.kubeconfig)))),
    format,
    print: (o, data, human) => {
      const f = format(o);
      // Every text for a terminal: controls from the server's strings escaped (tables escape newlines too).
      io.stdout.write(f === 'table' ? escapeControls(human(), true) : machine(data, f));
    },
    exit: (c) => {
      code = c;
    },
  };
  return { session, close: () => clients?.client.close(), code: () => code };
}

function loadKubeConfigOrFail(path: string | undefined): ReturnType<typeof loadKubeConfig> {
  const missing = path === undefined ? missingDefaultKubeconfig() : undefined;
  if (missing) throw new CliError(missing, EXIT.usage);
  try {
    return loadKubeConfig(path);
  } catch (err) {
    throw new CliError((err as Error).message, EXIT.usage);
  }
}

/**
 * Without --kubeconfig: one line saying which kubeconfig is missing, instead of the client
 * library's raw ENOENT for $KUBECONFIG, or its silent fallback to http://localhost:8080.
 */
function missingDefaultKubeconfig(): string | undefined {
  const env = process.env.KUBECONFIG;
  if (env) {
    const files = env.split(delimiter).filter(Boolean);
    return files.some((f) => existsSync(f))
      ? undefined
      : `kubeconfig ${env} (from $KUBECONFIG): file not found; give --kubeconfig or set $KUBECONFIG to an existing file`;
  }
  if (process.env.KUBERNETES_SERVICE_HOST) return undefined; // in a pod: the service account
  const home = join(homedir(), '.kube', 'config');
  return existsSync(home)
    ? undefined
    : `no kubeconfig: give --kubeconfig, or set $KUBECONFIG (npm start prints the demo's), or create ${home}`;
}
