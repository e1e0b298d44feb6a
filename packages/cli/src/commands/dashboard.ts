/**
 * `kubectl nodenet dashboard`: a local web page of the fleet (dashboard/server.ts) on the user's
 * kubeconfig, served until Ctrl-C (or the Io's signal, in tests).
 */
import { spawn } from 'node:child_process';
import { Command, Option } from 'commander';
import { CliError, EXIT } from '../exit-codes.js';
import { startDashboard } from '../dashboard/server.js';
import { commonOptions, type Session } from './session.js';

interface DashboardFlags {
  port: string;
  address: string;
  open?: boolean;
  waveLabel?: string;
}

export function addDashboardCommand(program: Command, s: Session): void {
  program
    .command('dashboard')
    .description(
      'A live page of the fleet in the browser: the desired revision’s progress, every node by wave, why a node ' +
        'is where it is, the history, the inputs, and pause / resume / abort / retry. Serves on 127.0.0.1 with a ' +
        'random token in the URL it prints; it can do exactly what your kubeconfig can. Runs until Ctrl-C.',
    )
    .option('--port <port>', 'port to listen on (0: any free port)', '3100')
    .option(
      '--address <address>',
      'address to listen on (anything else than loopback exposes the page)',
      '127.0.0.1',
    )
    .option('--open', 'open the page in the browser (xdg-open / open)')
    .addOption(
      new Option(
        '--wave-label <label>',
        'label to group nodes by (default: the RolloutPolicy’s waveLabel)',
      ).env('NODENET_WAVE_LABEL'),
    )
    .action(async (o: DashboardFlags, cmd: Command) => {
      const port = Number(o.port);
      if (!/^\d+$/.test(o.port) || port > 65535)
        throw new CliError(
          `--port: must be a port number 0-65535 (got ${JSON.stringify(o.port)})`,
          EXIT.usage,
        );
      const dashboard = await startDashboard({
        clients: s.connect(commonOptions(cmd)),
        address: o.address,
        port,
        ...(o.waveLabel ? { waveLabel: o.waveLabel } : {}),
        now: s.now,
        onError: (err) =>
          s.io.stderr.write(`dashboard: ${err instanceof Error ? err.message : String(err)}\n`),
      }).catch((err: unknown) => {
        throw err instanceof CliError
          ? err
          : new CliError(`dashboard: ${(err as Error).message}`, EXIT.apiError);
      });
      s.io.stdout.write(
        `Dashboard: ${dashboard.url}\n(the token in the URL is the only key to it; Ctrl-C stops)\n`,
      );
      if (o.open) openInBrowser(dashboard.url);
      await untilStopped(s.io.signal);
      await dashboard.stop();
    });
}

function untilStopped(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    signal?.addEventListener('abort', () => resolve(), { once: true });
    if (!signal) {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    }
  });
}

function openInBrowser(url: string): void {
  const opener =
    process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  const child = spawn(opener, [url], { stdio: 'ignore', detached: true });
  child.on('error', () => undefined);
  child.unref();
}
