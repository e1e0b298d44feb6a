/**
 * The dashboard's controls: the CLI verbs themselves (commands/controls.ts, fleet-pause.ts through
 * control-verbs.ts), with the CLI's texts and refusals, performed with the user's credentials. A
 * control reads the cluster afresh (as the CLI verb does), not the informers' view.
 */
import type { Clients } from '@nodenet/kube';
import { findRevision, readState } from '../cluster/state.js';
import { runControl, VERBS, type Verb } from '../commands/control-verbs.js';
import { setFleetPaused } from '../commands/fleet-pause.js';
import { CliError, EXIT } from '../exit-codes.js';

export interface ControlRequest {
  verb: Verb;
  /** A revision (name or number); absent = the whole fleet (pause and resume only). */
  revision?: string;
}

export interface ControlAnswer {
  ok: boolean;
  /** The CLI's message: what was done, or why it was refused. */
  message: string;
  /** The exit code the CLI verb would end with. */
  exitCode: number;
}

const isVerb = (v: unknown): v is Verb => typeof v === 'string' && Object.hasOwn(VERBS, v);

/** Checks a request body; a bad one names its field and value. */
export function parseControlRequest(body: unknown): ControlRequest {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (!isVerb(b.verb))
    throw new CliError(
      `verb: must be one of ${Object.keys(VERBS).join(', ')} (got ${JSON.stringify(b.verb)})`,
      EXIT.usage,
    );
  const revision = b.revision;
  if (revision !== undefined && (typeof revision !== 'string' || revision === '' || revision.length > 253))
    throw new CliError(
      `revision: must be a revision name or number (got ${JSON.stringify(revision)})`,
      EXIT.usage,
    );
  if (revision === undefined && b.verb !== 'pause' && b.verb !== 'resume')
    throw new CliError(`revision: ${b.verb} needs a revision`, EXIT.usage);
  return { verb: b.verb, ...(revision !== undefined ? { revision } : {}) };
}

/** What the confirmation states: the question the CLI asks and what the verb does (its help). */
export function confirmation(r: ControlRequest): string {
  const target = r.revision ?? 'the whole fleet (RolloutPolicy default)';
  return `${r.verb} ${target}?\n\n${VERBS[r.verb].description}`;
}

export async function performControl(clients: Clients, r: ControlRequest, now: Date): Promise<ControlAnswer> {
  try {
    if (r.revision === undefined) {
      const result = await setFleetPaused(clients, r.verb === 'pause');
      return { ok: true, message: result.message, exitCode: 0 };
    }
    const state = await readState(clients);
    const rev = findRevision(state, r.revision);
    const result = await runControl(r.verb, { kube: clients, state, rev, now });
    return { ok: true, message: result.message, exitCode: 0 };
  } catch (err) {
    if (err instanceof CliError) return { ok: false, message: err.message, exitCode: err.exitCode };
    throw err;
  }
}
