/**
 * `pause`, `resume`, `abort`, `retry` as commands: which revision (or, for pause and resume without
 * one, the whole fleet), the confirmation, then the control itself (controls.ts, fleet-pause.ts).
 */
import { RETRY_ANNOTATION } from '@nodenet/api';
import type { Clients } from '@nodenet/kube';
import type { Command } from 'commander';
import { findRevision, readState, type ClusterState, type Revision } from '../cluster/state.js';
import { CliError, EXIT } from '../exit-codes.js';
import * as controls from './controls.js';
import { setFleetPaused } from './fleet-pause.js';
import { commonOptions, outputOption, REVISION_ARG, type Io, type Session } from './session.js';

export type Verb = 'pause' | 'resume' | 'abort' | 'retry';

export interface VerbSpec {
  description: string;
  /** Asks before writing (abort and retry), unless --yes. */
  confirm: boolean;
}

export const VERBS: Record<Verb, VerbSpec> = {
  pause: {
    description:
      'Pause: no new node starts; nodes in progress finish. Never holds back a rollback. Without a revision, the ' +
      'whole fleet (RolloutPolicy default spec.paused=true, also holds revisions created later); with one, that ' +
      'revision (spec.paused=true).',
    confirm: false,
  },
  resume: {
    description:
      'Resume: without a revision, the fleet (RolloutPolicy default spec.paused=false); with one, that revision.',
    confirm: false,
  },
  abort: {
    description:
      'Give up on a rollout: the revision is marked invalid (spec.aborted=true, reason Aborted) and the nodes that ' +
      'took it are rolled back, as after a node failure.',
    confirm: true,
  },
  retry: {
    description:
      `Try an invalid revision again: annotates it ${RETRY_ANNOTATION}; the configurator builds a new revision ` +
      'with the same configuration and a new number, and keeps the old one for inspection.',
    confirm: true,
  },
};

const fleetWide = (verb: Verb): verb is 'pause' | 'resume' => verb === 'pause' || verb === 'resume';

export function addControlCommands(program: Command, s: Session): void {
  for (const verb of Object.keys(VERBS) as Verb[]) addControl(program, s, verb);
}

function addControl(program: Command, s: Session, verb: Verb): void {
  const { description, confirm } = VERBS[verb];
  const cmd = program
    .command(verb)
    .description(description)
    .argument(
      '[revision]',
      fleetWide(verb)
        ? `${REVISION_ARG}; without one: the whole fleet (RolloutPolicy default), every revision`
        : `${REVISION_ARG}; default: the newest${verb === 'retry' ? ' invalid' : ''} revision`,
    )
    .addOption(outputOption());
  if (confirm) cmd.option('-y, --yes', 'do not ask for confirmation');
  cmd.action(async (arg: string | undefined, o: { yes?: boolean }, self: Command) => {
    const c = commonOptions(self);
    const kube = s.connect(c);
    if (arg === undefined && fleetWide(verb)) {
      const result = await setFleetPaused(kube, verb === 'pause');
      s.print(c, result, () => result.message + '\n');
      return;
    }
    const state = await readState(kube);
    const rev = findRevision(state, arg, verb === 'retry' ? controls.newestInvalid : controls.newestRevision);
    if (confirm && !o.yes) await confirmOrFail(s.io, `${verb} ${rev.metadata.name}?`);
    const result = await runControl(verb, { kube, state, rev, now: new Date(s.now()) });
    s.print(c, result, () => result.message + '\n');
  });
}

export interface ControlTarget {
  kube: Clients;
  state: ClusterState;
  rev: Revision;
  now: Date;
}

export function runControl(verb: Verb, t: ControlTarget): Promise<controls.ControlResult> {
  switch (verb) {
    case 'pause':
      return controls.pause(t.kube, t.state, t.rev);
    case 'resume':
      return controls.resume(t.kube, t.state, t.rev);
    case 'abort':
      return controls.abort(t.kube, t.state, t.rev);
    case 'retry':
      return controls.retry(t.kube, t.state, t.rev, t.now);
  }
}

async function confirmOrFail(io: Io, question: string): Promise<void> {
  if (!io.confirm) throw new CliError(`${question} Not a terminal: pass --yes to confirm`, EXIT.usage);
  if (!(await io.confirm(`${question} [y/N] `))) throw new CliError('cancelled', EXIT.refused);
}
