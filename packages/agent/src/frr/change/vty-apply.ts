/**
 * A fast-path change (fast-path.ts) written straight to the daemons' vty sockets (vty-socket.ts),
 * the way vtysh writes it, without vtysh: no process to start (~30 ms of CPU at 50 VRFs, most of it
 * building every daemon's command tree), and each command goes to its daemons at once rather than
 * to one after the other, so zebra and bgpd commit a change (each a pass over its whole
 * configuration) side by side instead of back to back. What stays as vtysh does it:
 *  - each command reaches the daemons vtysh sends it to (vty-daemons.ts), with `configure
 *    terminal`, the batch markers and `end` around them, and a context left with `exit`;
 *  - one command at a time: the next goes only after every daemon answered the last, and the first
 *    refusal (a status other than 0, or a `%` line, as `failed()` counts vtysh's) stops the run,
 *    so a later command never runs after a refused one;
 *  - the read-back's shows are asked of the daemons vtysh asks, and each answer is their outputs in
 *    vtysh's client order; a daemon refusing one (a prefix-list it lacks) leaves it unanswered.
 * Undefined (nothing sent, the caller uses vtysh) when a command or a socket is not one this knows,
 * or a daemon cannot be reached.
 */
import { readdir } from 'node:fs/promises';
import {
  rejectedLines,
  type ResolvedInstance,
  type ShowAnswer,
  VtySession,
  vtySocketDir,
} from '../read/index.js';
import {
  daemonCommand,
  daemonSteps,
  inVtyshOrder,
  showDaemons,
  VTYSH_ORDER,
  type DaemonStep,
} from './vty-daemons.js';

export interface SocketApply {
  /** Every command was taken by every daemon it went to. */
  applied: boolean;
  /** The answer to each show, when `applied`; undefined where a daemon refused it or it was not asked. */
  answers: (string | undefined)[];
  /** Shows not asked over the sockets (the whole config: vtysh merges the daemons'), by index. */
  unasked: number[];
}

const refused = (a: ShowAnswer | undefined): boolean => !a?.ok || rejectedLines(a.text).length > 0;

/** The daemons whose vty socket is in the socket directory; undefined when one is not a name vtysh knows. */
async function runningDaemons(instance: ResolvedInstance): Promise<Set<string> | undefined> {
  const names = (await readdir(vtySocketDir(instance)).catch(() => [] as string[]))
    .filter((f) => f.endsWith('.vty'))
    .map((f) => f.slice(0, -'.vty'.length));
  const known = new Set<string>(VTYSH_ORDER);
  return names.every((n) => known.has(n)) && names.length > 0 ? new Set(names) : undefined;
}

/** Open a session with each of `daemons`; undefined (all closed) when one cannot be opened. */
async function openAll(
  instance: ResolvedInstance,
  daemons: Iterable<string>,
): Promise<Map<string, VtySession> | undefined> {
  const opened = await Promise.allSettled(
    [...daemons].map(async (d) => [d, await VtySession.open(instance, d, instance.timeoutMs)] as const),
  );
  const sessions = new Map(opened.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : [])));
  if (sessions.size === opened.length) return sessions;
  for (const s of sessions.values()) s.close();
  return undefined;
}

/** Send each step to its daemons, one step at a time; false at the first refusal. */
async function runSteps(sessions: Map<string, VtySession>, steps: readonly DaemonStep[]): Promise<boolean> {
  for (const step of steps) {
    const answers = await Promise.all([...step.daemons].map((d) => sessions.get(d)!.send([step.command])));
    if (answers.some(([a]) => refused(a))) return false;
  }
  return true;
}

/** Each show's answer: the outputs of its daemons in vtysh's order; undefined where one refused. */
async function askShows(
  sessions: Map<string, VtySession>,
  shows: readonly (string[] | undefined)[],
  commands: readonly string[],
): Promise<(string | undefined)[]> {
  const perDaemon = new Map<string, number[]>();
  shows.forEach((ds, i) => ds?.forEach((d) => perDaemon.set(d, [...(perDaemon.get(d) ?? []), i])));
  const got = new Map<string, Map<number, ShowAnswer>>();
  await Promise.all(
    [...perDaemon].map(async ([d, idx]) => {
      const answers = await sessions.get(d)!.send(idx.map((i) => daemonCommand(commands[i]!)));
      got.set(d, new Map(idx.map((i, k) => [i, answers[k]!])));
    }),
  );
  return shows.map((ds, i) => {
    if (!ds) return undefined;
    const parts = ds.map((d) => got.get(d)?.get(i));
    return parts.some(refused) ? undefined : parts.map((a) => (a?.ok ? a.text : '')).join('');
  });
}

/**
 * Run `configure` (the fast path's commands; `batch`: between the batch markers) and then the
 * read-back `shows` over the daemons' sockets. Undefined when this cannot (nothing was sent).
 */
export async function applyOverSockets(
  instance: ResolvedInstance,
  configure: { commands: readonly string[]; batch: boolean },
  shows: readonly string[],
): Promise<SocketApply | undefined> {
  const running = await runningDaemons(instance);
  const steps = running && daemonSteps(configure.commands, running);
  if (!running || !steps) return undefined;
  const showSets = shows.map((c) => showDaemons(c, running));
  const configured = inVtyshOrder(new Set(steps.flatMap((s) => [...s.daemons])));
  const everyone = new Set([...configured, ...showSets.flatMap((s) => s ?? [])]);
  const sessions = await openAll(instance, everyone);
  if (!sessions) return undefined;
  const around = (command: string): DaemonStep => ({ command, daemons: new Set(configured) });
  const all = [
    around('configure terminal'),
    ...(configure.batch ? [around('XFRR_start_configuration')] : []),
    ...steps,
    ...(configure.batch ? [around('XFRR_end_configuration')] : []),
    around('end'),
  ];
  try {
    if (steps.length > 0 && !(await runSteps(sessions, all)))
      return { applied: false, answers: [], unasked: [] };
    const answers = await askShows(sessions, showSets, shows);
    return { applied: true, answers, unasked: showSets.flatMap((s, i) => (s ? [] : [i])) };
  } catch {
    // A daemon went away mid-way: what it took is unknown, so not applied (the caller reloads).
    return { applied: false, answers: [], unasked: [] };
  } finally {
    for (const s of sessions.values()) s.close();
  }
}
