/**
 * The `kubectl nodenet` command line: parses arguments with commander, reads the cluster, prints
 * views. `run()` takes its streams and clock as arguments, so tests drive it in-process exactly as
 * the binary does.
 */
import { createInterface } from 'node:readline/promises';
import { KubeClient, loadKubeConfig, makeClients, type Clients } from '@nodenet/kube';
import { Command, CommanderError, Option } from 'commander';
import * as controls from './commands/controls.js';
import { diffNodes, renderDiff, type DiffSide } from './views/diff.js';
import { setFleetPaused } from './commands/fleet-pause.js';
import { previewOf, renderHeldBack, renderProblems, type HeldBackInput } from './views/preview.js';
import { withFiles } from './cluster/input-files.js';
import { CliError, EXIT, type ExitCode } from './exit-codes.js';
import { machine, parseOutputFormat, type OutputFormat } from './views/format.js';
import { historyRows, renderHistory } from './views/history.js';
import { nodeRows, renderNodes, renderWhy, whyExitCode, whyRow } from './views/nodes.js';
import {
  findRevision,
  readInputs,
  readState,
  newestRevision,
  revisionInForce,
  type ClusterState,
  type Revision,
} from './cluster/state.js';
import { renderStatus, statusExitCode, statusView, type StatusView } from './views/status.js';
import { NODENET_VERSION, RETRY_ANNOTATION } from '@nodenet/api';

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

interface Common {
  kubeconfig?: string;
  output?: string;
}

export async function run(argv: readonly string[], io: Io): Promise<number> {
  const now = io.now ?? Date.now;
  let code: number = EXIT.ok;
  let clients: Clients | undefined;
  const connect = (o: Common): Clients =>
    (clients ??= makeClients(new KubeClient(loadKubeConfigOrFail(o.kubeconfig))));
  const format = (o: Common): OutputFormat => {
    try {
      return parseOutputFormat(o.output);
    } catch (err) {
      throw new CliError((err as Error).message, EXIT.usage);
    }
  };
  const print = (o: Common, data: unknown, human: () => string): void => {
    const f = format(o);
    io.stdout.write(f === 'table' ? human() : machine(data, f));
  };

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

  const outputOption = (): Option =>
    new Option('-o, --output <format>', 'json or yaml instead of the table').choices(['json', 'yaml']);
  const opts = (cmd: Command): Common => cmd.optsWithGlobals<Common>();
  const revisionArg = 'revision name (rev-000007-0a1b2c3d4e), number (7) or rev-7';

  program
    .command('status')
    .description(
      'The rollout of a revision at a glance: progress, counts, current wave, failed and degraded nodes, why it is ' +
        'paused or halted, what is held back or behind fleet-wide (rejected inputs, unavailable nodes), and what ' +
        'happens next. Default: the desired revision (the one nodes are moved to). Exit 0 only when it is ' +
        'complete and nothing is held back or behind.',
    )
    .argument('[revision]', revisionArg)
    .option('-w, --watch', 'redraw on every change until the rollout completes or halts')
    .addOption(
      new Option(
        '--wave-label <label>',
        'label the configurator orders waves by (its --wave-label), to show the current wave',
      ).env('NODENET_WAVE_LABEL'),
    )
    .addOption(outputOption())
    .action(async (arg: string | undefined, o: { watch?: boolean; waveLabel?: string }, cmd: Command) => {
      const c = opts(cmd);
      const kube = connect(c);
      const show = async (): Promise<{ view: StatusView; text: string }> => {
        const state = await readState(kube);
        const view = statusView(
          state,
          findRevision(state, arg, (st) => revisionInForce(st) ?? newestRevision(st)),
          o.waveLabel,
        );
        const f = format(c);
        return { view, text: f === 'table' ? renderStatus(view, now()) : machine(view, f) };
      };
      if (!o.watch) {
        const { view, text } = await show();
        io.stdout.write(text);
        code = statusExitCode(view);
        return;
      }
      code = await watchStatus(show, io);
    });

  program
    .command('nodes')
    .description(
      'One row per node: the desired revision, the one it is handed, the one on its host, where it stands ' +
        '(up-to-date, rolling-out, queued, held, rolling-back, unavailable, failed, restore-failed) and why.',
    )
    .addOption(outputOption())
    .action(async (_o: unknown, cmd: Command) => {
      const c = opts(cmd);
      const rows = nodeRows(await readState(connect(c)));
      print(c, rows, () => renderNodes(rows, now()));
    });

  program
    .command('why')
    .description(
      'Why is this node not on the desired revision? Its desired, handed and applied revisions, its state with ' +
        'the reason (NotReady since …, agent misconfigured, start-up taint, paused, held, rolled back from N), ' +
        'and what happens next. Exit 0 up to date, 1 moving, 3 unknown node, 4 needs attention.',
    )
    .argument('<node>', 'node name')
    .addOption(outputOption())
    .action(async (node: string, _o: unknown, cmd: Command) => {
      const c = opts(cmd);
      const row = whyRow(await readState(connect(c)), node);
      print(c, row, () => renderWhy(row, now()));
      code = whyExitCode(row);
    });

  program
    .command('history')
    .description('Every revision, newest first: number, result, counts, start and completion times.')
    .addOption(outputOption())
    .action(async (_o: unknown, cmd: Command) => {
      const c = opts(cmd);
      const rows = historyRows(await readState(connect(c)));
      print(c, rows, () => renderHistory(rows));
    });

  program
    .command('diff')
    .description(
      'What changes on each node between two revisions: VRFs, Layer-2 networks and routing tables added, removed or ' +
        'changed, with the node selector that caused it. FROM defaults to the revision in force, TO to the current ' +
        'inputs: with no arguments, a preview of what the next rollout will do, before anything rolls out. ' +
        'Inputs the configurator holds back (refused, or the change that broke an invalid revision) are left out, ' +
        'as the configurator leaves them out, and listed with the reason. ' +
        'Exit code 0: no differences, 1: differences (as kubectl diff), 4: some input is held back or selects no node.',
    )
    .argument('[from]', `${revisionArg}; default: the revision in force`)
    .argument('[to]', `${revisionArg}; default: the current inputs`)
    .option(
      '-f, --filename <file...>',
      'input objects (YAML, as for kubectl apply -f) taken as applied on top of the current inputs: a preview before applying',
    )
    .addOption(outputOption())
    .action(
      async (
        fromArg: string | undefined,
        toArg: string | undefined,
        o: { filename?: string[] },
        cmd: Command,
      ) => {
        const c = opts(cmd);
        const kube = connect(c);
        const state = await readState(kube);
        const from = fromArg !== undefined ? findRevision(state, fromArg) : revisionInForce(state);
        let to: DiffSide;
        const notes: string[] = [];
        const held: HeldBackInput[] = [];
        if (toArg !== undefined) {
          if (o.filename)
            throw new CliError(
              '-f/--filename compares with the current inputs: give no TO revision',
              EXIT.usage,
            );
          to = side(findRevision(state, toArg));
        } else {
          const label = o.filename ? `current inputs + ${o.filename.join(', ')}` : 'current inputs';
          const preview = previewOf(
            await withFiles(kube, await readInputs(kube), o.filename ?? []),
            label,
            state,
            from,
          );
          if ('problems' in preview) {
            print(c, preview, () => renderProblems(preview.problems));
            code = EXIT.attention;
            return;
          }
          to = preview.side;
          notes.push(...preview.notes);
          held.push(...preview.heldBack);
        }
        const nodes = state.nodes.map((n) => ({ name: n.metadata.name, labels: n.metadata.labels ?? {} }));
        const result = diffNodes(from && side(from), to, nodes);
        print(
          c,
          { ...result, notes, heldBack: held },
          () => renderDiff(result) + notes.map((n) => `\n${n}\n`).join('') + renderHeldBack(held),
        );
        code =
          held.length > 0 || result.selectsNoNode.length > 0
            ? EXIT.attention
            : result.changedNodes > 0
              ? EXIT.pending
              : EXIT.ok;
      },
    );

  const control = (
    name: 'pause' | 'resume' | 'abort' | 'retry',
    description: string,
    needsConfirmation: boolean,
  ): void => {
    const cmd = program
      .command(name)
      .description(description)
      .argument(
        '[revision]',
        name === 'pause' || name === 'resume'
          ? `${revisionArg}; without one: the whole fleet (RolloutPolicy default), every revision`
          : `${revisionArg}; default: the newest${name === 'retry' ? ' invalid' : ''} revision`,
      )
      .addOption(outputOption());
    if (needsConfirmation) cmd.option('-y, --yes', 'do not ask for confirmation');
    cmd.action(async (arg: string | undefined, o: { yes?: boolean }, self: Command) => {
      const c = opts(self);
      const kube = connect(c);
      if (arg === undefined && (name === 'pause' || name === 'resume')) {
        const result = await setFleetPaused(kube, name === 'pause');
        print(c, result, () => result.message + '\n');
        return;
      }
      const state = await readState(kube);
      const rev = findRevision(
        state,
        arg,
        name === 'retry' ? controls.newestInvalid : controls.newestRevision,
      );
      if (needsConfirmation && !o.yes) await confirmOrFail(io, `${name} ${rev.metadata.name}?`);
      const result = await runControl(name, kube, state, rev, new Date(now()));
      print(c, result, () => result.message + '\n');
    });
  };
  control(
    'pause',
    'Pause: no new node starts; nodes in progress finish. Never holds back a rollback. Without a revision, the ' +
      'whole fleet (RolloutPolicy default spec.paused=true, also holds revisions created later); with one, that ' +
      'revision (spec.paused=true).',
    false,
  );
  control(
    'resume',
    'Resume: without a revision, the fleet (RolloutPolicy default spec.paused=false); with one, that revision.',
    false,
  );
  control(
    'abort',
    'Give up on a rollout: the revision is marked invalid (spec.aborted=true, reason Aborted) and the nodes that ' +
      'took it are rolled back, as after a node failure.',
    true,
  );
  control(
    'retry',
    `Try an invalid revision again: annotates it ${RETRY_ANNOTATION}; the configurator builds a new revision ` +
      'with the same configuration and a new number, and keeps the old one for inspection.',
    true,
  );

  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (err) {
    code = handleError(err, io);
  } finally {
    clients?.client.close();
  }
  return code;
}

function side(r: Revision): DiffSide {
  return { label: r.metadata.name, config: r.spec.config, hash: r.spec.hash };
}

function runControl(
  name: 'pause' | 'resume' | 'abort' | 'retry',
  kube: Clients,
  state: ClusterState,
  rev: Revision,
  now: Date,
): Promise<controls.ControlResult> {
  switch (name) {
    case 'pause':
      return controls.pause(kube, state, rev);
    case 'resume':
      return controls.resume(kube, state, rev);
    case 'abort':
      return controls.abort(kube, state, rev);
    case 'retry':
      return controls.retry(kube, state, rev, now);
  }
}

async function confirmOrFail(io: Io, question: string): Promise<void> {
  if (!io.confirm) throw new CliError(`${question} Not a terminal: pass --yes to confirm`, EXIT.usage);
  if (!(await io.confirm(`${question} [y/N] `))) throw new CliError('cancelled', EXIT.refused);
}

/** Redraws on every change until the revision completes or halts (or the signal stops it). */
async function watchStatus(
  show: () => Promise<{ view: StatusView; text: string }>,
  io: Io,
): Promise<ExitCode> {
  let last = '';
  for (;;) {
    const { view, text } = await show();
    if (text !== last) {
      io.stdout.write(io.stdout.isTTY ? `\x1b[2J\x1b[H${text}` : last ? `---\n${text}` : text);
      last = text;
    }
    const settled =
      view.phase === 'Superseded' ||
      (view.phase === 'Complete' && view.counts.ongoing === 0) ||
      (view.phase === 'Halted' && (view.rollback?.remaining.length ?? 0) === 0);
    if (settled || io.signal?.aborted) return statusExitCode(view);
    await new Promise((r) => setTimeout(r, io.watchIntervalMs ?? 1000));
  }
}

function loadKubeConfigOrFail(path: string | undefined): ReturnType<typeof loadKubeConfig> {
  try {
    return loadKubeConfig(path);
  } catch (err) {
    throw new CliError((err as Error).message, EXIT.usage);
  }
}

function handleError(err: unknown, io: Io): number {
  if (err instanceof CommanderError) {
    // --help and --version end here with exit code 0; usage errors were already printed by commander.
    return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  if (err instanceof CliError) {
    io.stderr.write(`error: ${err.message}\n`);
    return err.exitCode;
  }
  io.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
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
