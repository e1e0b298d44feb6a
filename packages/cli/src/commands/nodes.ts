/** `kubectl nodenet nodes`, `why NODE` and `history`: the read-only tables. */
import type { Command } from 'commander';
import { readState } from '../cluster/state.js';
import { historyRows, renderHistory } from '../views/history.js';
import { nodeRows, renderNodes, renderWhy, whyExitCode, whyRow } from '../views/nodes.js';
import { commonOptions, outputOption, type Session } from './session.js';

export function addNodeCommands(program: Command, s: Session): void {
  program
    .command('nodes')
    .description(
      'One row per node: the desired revision, the one it is handed, the one on its host, where it stands ' +
        '(up-to-date, rolling-out, queued, held, rolling-back, unavailable, failed, restore-failed) and why.',
    )
    .addOption(outputOption())
    .action(async (_o: unknown, cmd: Command) => {
      const c = commonOptions(cmd);
      const rows = nodeRows(await readState(s.connect(c)));
      s.print(c, rows, () => renderNodes(rows, s.now()));
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
      const c = commonOptions(cmd);
      const row = whyRow(await readState(s.connect(c)), node);
      s.print(c, row, () => renderWhy(row, s.now()));
      s.exit(whyExitCode(row));
    });

  program
    .command('history')
    .description('Every revision, newest first: number, result, counts, start and completion times.')
    .addOption(outputOption())
    .action(async (_o: unknown, cmd: Command) => {
      const c = commonOptions(cmd);
      const rows = historyRows(await readState(s.connect(c)));
      s.print(c, rows, () => renderHistory(rows));
    });
}
