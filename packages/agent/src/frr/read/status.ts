/**
 * Status read-back for health checks: does FRR answer, and are the named BGP sessions established.
 * Parsing is a pure function of `show bgp vrf all summary json`, so it is unit-tested on its own.
 */
import { cleanMessage, run, type RunResult } from './exec.js';
import { vtyshArgv, type ResolvedInstance } from './instance.js';
import { askDaemon } from './vty-socket.js';

export interface SessionRef {
  /** Neighbour as FRR names it: an address or, for unnumbered sessions, the interface. */
  peer: string;
  /** VRF of the session (default: the default VRF). */
  vrf?: string;
}

export interface SessionState {
  vrf: string;
  peer: string;
  /** FRR's state (`Established`, `Active`, `Idle`, …) or `NotConfigured` when FRR has no such neighbour. */
  state: string;
  established: boolean;
}

export interface FrrStatus {
  /** FRR answered the query. */
  answering: boolean;
  sessions: SessionState[];
  /** Answering and every named session established. */
  healthy: boolean;
  /** Why it is not healthy (FRR's message, or the sessions that are down). */
  message?: string;
}

type Summary = Record<string, Record<string, { peers?: Record<string, { state?: string }> } | undefined>>;

/** Session states from the JSON of `show bgp vrf all summary json`. */
export function sessionStates(summaryJson: string, wanted: readonly SessionRef[]): SessionState[] {
  const summary = JSON.parse(summaryJson) as Summary;
  return wanted.map(({ peer, vrf = 'default' }) => {
    const afs = Object.values(summary[vrf] ?? {});
    const states = afs
      .map((af) => af?.peers?.[peer]?.state)
      .filter((s): s is string => typeof s === 'string');
    const state = states.includes('Established') ? 'Established' : (states[0] ?? 'NotConfigured');
    return { vrf, peer, state, established: state === 'Established' };
  });
}

export function describeDown(sessions: readonly SessionState[]): string | undefined {
  const down = sessions.filter((s) => !s.established);
  if (down.length === 0) return undefined;
  return `BGP session(s) not established: ${down.map((s) => `${s.peer} (vrf ${s.vrf}): ${s.state}`).join(', ')}`;
}

const SUMMARY = 'show bgp vrf all summary json';

/** The summary straight from bgpd's vty socket (vty-socket.ts), else through vtysh. */
async function readSummary(instance: ResolvedInstance): Promise<RunResult> {
  const direct = await askDaemon(instance, 'bgpd', [SUMMARY], instance.timeoutMs).catch(() => undefined);
  const answer = direct?.[0];
  if (answer?.ok) return { code: 0, stdout: answer.text, stderr: '' };
  const [vtysh, base] = vtyshArgv(instance);
  return run(vtysh, [...base, '-c', SUMMARY], instance.timeoutMs);
}

/**
 * Ask FRR for the BGP summary and judge the named sessions. Never throws. The health checks ask
 * this every few seconds through a confirm window: over bgpd's socket, no vtysh process each time.
 */
export async function readStatus(
  instance: ResolvedInstance,
  wanted: readonly SessionRef[],
): Promise<FrrStatus> {
  const r = await readSummary(instance);
  if (r.code !== 0) return { answering: false, sessions: [], healthy: false, message: cleanMessage(r) };
  let sessions;
  try {
    // bgpd not running (or no BGP instance) answers with an empty or non-JSON body.
    sessions = sessionStates(r.stdout.trim() || '{}', wanted);
  } catch {
    return {
      answering: false,
      sessions: [],
      healthy: false,
      message: `unexpected answer: ${r.stdout.slice(0, 200)}`,
    };
  }
  const message = describeDown(sessions);
  return { answering: true, sessions, healthy: message === undefined, ...(message ? { message } : {}) };
}
