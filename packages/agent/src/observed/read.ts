/**
 * Reads the observed state from a running FRR with vtysh (argument arrays, never a shell): all
 * commands in one vtysh run (frr/read/show.ts), the BGP summary last, so the clock read right after the
 * run is as close as it gets to FRR's answer with the uptimes. When that run fails, each command is
 * read on its own, so one failing command does not hide the others' answers. First of all the
 * commands go straight to the daemons' vty sockets (frr/read/vty-socket.ts: no vtysh process at all, the
 * read every `--observe-interval` of an idle agent); vtysh is the fallback when that fails.
 */
import type { ObservedState } from '@nodenet/api';
import {
  frrMessage,
  run,
  vtyshArgv,
  type ResolvedInstance,
  showMany,
  type ShowAnswer,
  askDaemon,
} from '../frr/read/index.js';
import { buildObserved, OBSERVED_COMMANDS, type ObservedCommand, type ShowOutputs } from './parse.js';

/** How long one read may take; FRR answers these in milliseconds when it is well. */
const SHOW_TIMEOUT_MS = 10_000;

/** The BGP summary last: its uptimes are converted with the clock read after the run. */
const ORDER = (Object.keys(OBSERVED_COMMANDS) as ObservedCommand[]).sort(
  (a, b) => Number(a === 'bgp') - Number(b === 'bgp'),
);

/** The daemon that answers each command (vtysh sends it there); `show version` any daemon answers. */
const DAEMON: Record<ObservedCommand, 'bgpd' | 'zebra'> = {
  bgp: 'bgpd',
  evpnVni: 'zebra',
  vrfVni: 'zebra',
  version: 'zebra',
};

/** All answers over the daemons' sockets, or undefined when a socket could not be used. */
async function askDaemons(instance: ResolvedInstance): Promise<ShowOutputs | undefined> {
  const byDaemon = (d: 'bgpd' | 'zebra'): ObservedCommand[] => ORDER.filter((c) => DAEMON[c] === d);
  const ask = (d: 'bgpd' | 'zebra'): Promise<ShowAnswer[]> =>
    askDaemon(
      instance,
      d,
      byDaemon(d).map((c) => OBSERVED_COMMANDS[c]),
      SHOW_TIMEOUT_MS,
    );
  try {
    const [zebra, bgpd] = await Promise.all([ask('zebra'), ask('bgpd')]);
    const answers = new Map<ObservedCommand, ShowAnswer>([
      ...byDaemon('zebra').map((c, i) => [c, zebra[i]!] as const),
      ...byDaemon('bgpd').map((c, i) => [c, bgpd[i]!] as const),
    ]);
    return Object.fromEntries(ORDER.map((c) => [c, answers.get(c)!])) as ShowOutputs;
  } catch {
    return undefined;
  }
}

export function frrObservedReader(
  instance: ResolvedInstance,
  now: () => Date = () => new Date(),
): () => Promise<ObservedState> {
  const [vtysh, base] = vtyshArgv(instance);
  const oneByOne = async (): Promise<ObservedState> => {
    const outputs = {} as ShowOutputs;
    let readAt = now();
    for (const command of ORDER) {
      const r = await run(vtysh, [...base, '-c', OBSERVED_COMMANDS[command]], SHOW_TIMEOUT_MS);
      if (command === 'bgp') readAt = now();
      outputs[command] = r.code === 0 ? { ok: true, text: r.stdout } : { ok: false, error: frrMessage(r) };
    }
    return buildObserved(outputs, readAt);
  };
  return async () => {
    const direct = await askDaemons(instance);
    if (direct) return buildObserved(direct, now());
    const { answers, result } = await showMany(
      instance,
      ORDER.map((c) => OBSERVED_COMMANDS[c]),
      SHOW_TIMEOUT_MS,
    );
    const readAt = now();
    if (result.code !== 0 || answers.some((a) => !a.ok)) return oneByOne();
    const outputs = Object.fromEntries(ORDER.map((c, i) => [c, answers[i]!])) as ShowOutputs;
    return buildObserved(outputs, readAt);
  };
}
