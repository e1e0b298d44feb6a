/** `kubectl nodenet status [--watch]`: the rollout of one revision at a glance. */
import { Command, Option } from 'commander';
import { findRevision, newestRevision, readState, revisionInForce } from '../cluster/state.js';
import type { ExitCode } from '../exit-codes.js';
import { machine } from '../views/format.js';
import { renderStatus, statusExitCode, statusView, type StatusView } from '../views/status.js';
import { commonOptions, outputOption, REVISION_ARG, type Io, type Session } from './session.js';

interface Shown {
  view: StatusView;
  text: string;
}

export function addStatusCommand(program: Command, s: Session): void {
  program
    .command('status')
    .description(
      'The rollout of a revision at a glance: progress, counts, current wave, failed and degraded nodes, why it is ' +
        'paused or halted, what is held back or behind fleet-wide (rejected inputs, unavailable nodes), and what ' +
        'happens next. Default: the desired revision (the one nodes are moved to). Exit 0 only when it is ' +
        'complete and nothing is held back or behind.',
    )
    .argument('[revision]', REVISION_ARG)
    .option(
      '-w, --watch',
      'redraw on every change until the rollout completes or halts; exit as without --watch, except that what was ' +
        'already listed for attention when it began (e.g. an older held-back input) does not count',
    )
    .addOption(
      new Option(
        '--wave-label <label>',
        'label the configurator orders waves by (its --wave-label), to show the current wave',
      ).env('NODENET_WAVE_LABEL'),
    )
    .addOption(outputOption())
    .action(async (arg: string | undefined, o: { watch?: boolean; waveLabel?: string }, cmd: Command) => {
      const c = commonOptions(cmd);
      const kube = s.connect(c);
      const show = async (): Promise<Shown> => {
        const state = await readState(kube);
        const view = statusView(
          state,
          findRevision(state, arg, (st) => revisionInForce(st) ?? newestRevision(st)),
          o.waveLabel,
        );
        const f = s.format(c);
        return { view, text: f === 'table' ? renderStatus(view, s.now()) : machine(view, f) };
      };
      if (!o.watch) {
        const { view, text } = await show();
        s.io.stdout.write(text);
        s.exit(statusExitCode(view));
        return;
      }
      s.exit(await watchStatus(show, s.io));
    });
}

/**
 * Redraws on every change until the revision completes or halts (or the signal stops it). The exit
 * code answers for what happened while watching: what was already listed for attention when the
 * watch began on a revision still moving (e.g. an old input held back) is shown, but does not make
 * a clean finish exit 4; a watch that begins on a settled revision exits as `status` does.
 */
async function watchStatus(show: () => Promise<Shown>, io: Io): Promise<ExitCode> {
  let last = '';
  let before: Set<string> | undefined;
  for (let first = true; ; first = false) {
    const { view, text } = await show();
    if (text !== last) {
      io.stdout.write(io.stdout.isTTY ? `\x1b[2J\x1b[H${text}` : last ? `---\n${text}` : text);
      last = text;
    }
    const settled =
      view.phase === 'Superseded' ||
      (view.phase === 'Complete' && view.counts.ongoing === 0) ||
      // Only unavailable nodes left: nothing moves until they answer (configurator's reason).
      view.phase === 'WaitingForUnavailable' ||
      (view.phase === 'Halted' && (view.rollback?.remaining.length ?? 0) === 0);
    if (first && !settled) before = new Set(view.attention);
    if (settled || io.signal?.aborted) return statusExitCode(withoutEarlier(view, before));
    await new Promise((r) => setTimeout(r, io.watchIntervalMs ?? 1000));
  }
}

/** The view without the attention lines listed when the watch began (`earlier`), if any. */
const withoutEarlier = (view: StatusView, earlier: ReadonlySet<string> | undefined): StatusView =>
  earlier ? { ...view, attention: view.attention.filter((a) => !earlier.has(a)) } : view;
