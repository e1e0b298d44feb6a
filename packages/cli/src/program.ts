/**
 * The `kubectl nodenet` command line: parses arguments with commander, reads the cluster, prints
 * views. `run()` takes its streams and clock as arguments, so tests drive it in-process exactly as
 * the binary does. Each command lives in commands/; the views it prints in views/.
 */
import { createInterface } from 'node:readline/promises';
import { escapeControls, NODENET_VERSION } from '@nodenet/api';
import { Command, CommanderError } from 'commander';
import { addControlCommands } from './commands/control-verbs.js';
import { addDashboardCommand } from './commands/dashboard.js';
import { addDiffCommand } from './commands/diff.js';
import { addNodeCommands } from './commands/nodes.js';
import { newSession, type Io } from './commands/session.js';
import { addStatusCommand } from './commands/status.js';
import { CliError, EXIT } from './exit-codes.js';

export type { Io } from './commands/session.js';

export async function run(argv: readonly string[], io: Io): Promise<number> {
  const { session, close, code } = newSession(io);
  const program = new Command('kubectl nodenet')
    .version(NODENET_VERSION, '--version', 'print the version and exit')
    .description(
      'Follow and steer nodenet rollouts: where a revision stands, which node runs what, what a change will do to ' +
        'each node, and pause / resume / abort / retry.\n\n' +
        'Exit codes: 0 done / complete; 1 status: still rolling out or paused, diff: differences; 2 usage; ' +
        '3 revision not found; 4 halted, failed or degraded nodes, or invalid inputs; 5 API error; 6 control refused.',
    )
    .option('--kubeconfig <path>', 'kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
    .configureHelp({ showGlobalOptions: true })
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .showHelpAfterError('(run with --help for usage)');
  addStatusCommand(program, session);
  addNodeCommands(program, session);
  addDiffCommand(program, session);
  addControlCommands(program, session);
  addDashboardCommand(program, session);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code();
  } catch (err) {
    return handleError(err, io);
  } finally {
    close();
  }
}

function handleError(err: unknown, io: Io): number {
  if (err instanceof CommanderError) {
    // --help and --version end here with exit code 0; usage errors were already printed by commander.
    return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  if (err instanceof CliError) {
    io.stderr.write(`error: ${escapeControls(err.message, true)}\n`);
    return err.exitCode;
  }
  // Anything unexpected (a broken answer, a bug): exit 5 with one line, never a stack or exit 1.
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  io.stderr.write(`error: ${escapeControls(text.split('\n')[0] ?? '').slice(0, 500)}\n`);
  return EXIT.apiError;
}

/** Asks on the terminal. */
export async function askOnTerminal(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}
