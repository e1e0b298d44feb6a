/**
 * Pure parsers from vtysh's answers to the observed-state model of `NodeConfig.status.observed`.
 * Input is FRR's own text (as `vtysh -c` prints it), so the unit tests feed real FRR output captured
 * from a running instance (packages/agent/test/golden/frr-observed/).
 *
 * Time: a session's `since` is `readAt - peerUptimeMsec`, where `readAt` is the agent's own wall
 * clock taken when it ran the command. FRR's uptime is a duration on FRR's monotonic clock, so the
 * result is a timestamp on the agent's clock, like every other timestamp the agent writes. FRR's
 * `peerUptimeEstablishedEpoch` is not used: it is FRR's wall clock (and only set for established
 * sessions), and timestamps from another clock are shown, never mixed with ours.
 */
import type { ObservedBgpSession, ObservedState, ObservedVni } from '@nodenet/api';
import { AgentError } from '../errors.js';

/** The vtysh commands the observed state is built from, in the order they are read. */
export const OBSERVED_COMMANDS = {
  bgp: 'show bgp vrf all summary json',
  evpnVni: 'show evpn vni json',
  vrfVni: 'show vrf vni json',
  version: 'show version',
} as const;
export type ObservedCommand = keyof typeof OBSERVED_COMMANDS;

/** FRR answered a show command with something this parser does not understand. */
export class ObservedParseError extends AgentError {
  constructor(
    readonly command: string,
    readonly problem: string,
    readonly output: string,
  ) {
    super(
      'ObservedParseFailed',
      `vtysh -c '${command}': ${problem} (output starts ${JSON.stringify(output.slice(0, 80))})`,
    );
  }
}

function parseJson(command: string, text: string): unknown {
  // FRR prints nothing at all for some commands when there is nothing to show (`show evpn vni
  // json` without VNIs; `show bgp … json` without bgpd's instance): that is an empty answer.
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new ObservedParseError(command, `not JSON: ${(err as Error).message}`, text);
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

interface SummaryPeer {
  state?: unknown;
  remoteAs?: unknown;
  peerUptime?: unknown;
  peerUptimeMsec?: unknown;
}

/**
 * BGP sessions from `show bgp vrf all summary json`: `{<vrf>: {<afi-safi>: {peers: {<peer>: …}}}}`.
 * A peer appears once per address family; it is one session (one TCP connection), Established when
 * any family shows it so.
 */
export function parseBgpSessions(text: string, readAt: Date): ObservedBgpSession[] {
  const command = OBSERVED_COMMANDS.bgp;
  const root = parseJson(command, text);
  if (!isRecord(root)) throw new ObservedParseError(command, 'expected an object of VRFs', text);
  const sessions = new Map<string, ObservedBgpSession>();
  for (const [vrf, families] of Object.entries(root)) {
    if (!isRecord(families)) continue;
    for (const family of Object.values(families)) {
      if (!isRecord(family) || !isRecord(family.peers)) continue;
      for (const [peer, raw] of Object.entries(family.peers)) {
        if (!isRecord(raw)) continue;
        const p = raw as SummaryPeer;
        if (typeof p.state !== 'string')
          throw new ObservedParseError(command, `peer ${peer} in VRF ${vrf} has no state`, text);
        const key = `${vrf}\0${peer}`;
        const seen = sessions.get(key);
        if (seen && (seen.state === 'Established' || p.state !== 'Established')) continue;
        const session: ObservedBgpSession = { vrf, peer, state: p.state };
        if (typeof p.remoteAs === 'number') session.remoteAs = p.remoteAs;
        // FRR keeps one uptime per peer: time since it entered or left Established; "never" when it
        // never was established (then there is no meaningful "since").
        const uptimeMs =
          p.peerUptime === 'never' || typeof p.peerUptimeMsec !== 'number' ? undefined : p.peerUptimeMsec;
        if (uptimeMs !== undefined || p.state === 'Established')
          session.since = sinceOf(readAt, uptimeMs ?? 0);
        sessions.set(key, session);
      }
    }
  }
  return [...sessions.values()].sort((a, b) => compareText(a.vrf, b.vrf) || compareText(a.peer, b.peer));
}

/** `readAt - uptime`, to the second: FRR's uptime has one-second resolution. */
export function sinceOf(readAt: Date, uptimeMs: number): string {
  const ms = Math.floor((readAt.getTime() - uptimeMs) / 1000) * 1000;
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** FRR's placeholders for "no such thing" in its VNI tables. */
const NONE = new Set(['None', 'Unknown', 'n/a', '']);
const named = (v: unknown): string | undefined => (typeof v === 'string' && !NONE.has(v) ? v : undefined);

/**
 * VNIs from `show evpn vni json` (`{"<vni>": {vni, type, vxlanIf, tenantVrf}}`) and `show vrf vni
 * json` (`{vrfs: [{vrf, vni, state, vxlanIntf}]}`). The second names an L3 VNI's VRF and state even
 * when zebra's VNI table does not know the VRF yet (`tenantVrf: "Unknown"`).
 */
export function parseVnis(evpnVniText: string, vrfVniText: string): ObservedVni[] {
  const evpnCommand = OBSERVED_COMMANDS.evpnVni;
  const vrfCommand = OBSERVED_COMMANDS.vrfVni;
  const evpn = parseJson(evpnCommand, evpnVniText);
  if (!isRecord(evpn)) throw new ObservedParseError(evpnCommand, 'expected an object of VNIs', evpnVniText);
  const byVni = new Map<number, ObservedVni>();
  for (const [key, raw] of Object.entries(evpn)) {
    if (!isRecord(raw)) continue;
    const vni = typeof raw.vni === 'number' ? raw.vni : Number(key);
    if (!Number.isInteger(vni) || vni < 1)
      throw new ObservedParseError(
        evpnCommand,
        `entry ${JSON.stringify(key)} has no VNI number`,
        evpnVniText,
      );
    if (raw.type !== 'L2' && raw.type !== 'L3')
      throw new ObservedParseError(
        evpnCommand,
        `VNI ${vni} has type ${JSON.stringify(raw.type)}`,
        evpnVniText,
      );
    const entry: ObservedVni = { vni, type: raw.type };
    const vrf = named(raw.tenantVrf);
    if (vrf) entry.vrf = vrf;
    const vxlan = named(raw.vxlanIf);
    if (vxlan) entry.vxlanInterface = vxlan;
    byVni.set(vni, entry);
  }
  const vrfs = parseJson(vrfCommand, vrfVniText);
  const list = isRecord(vrfs) ? (vrfs.vrfs ?? []) : undefined;
  if (!Array.isArray(list)) throw new ObservedParseError(vrfCommand, 'expected {"vrfs": [...]}', vrfVniText);
  for (const raw of list) {
    if (!isRecord(raw) || typeof raw.vni !== 'number' || typeof raw.vrf !== 'string') continue;
    // The VRF table is zebra's L3 VNI configuration: a VNI listed here is the VRF's L3 VNI.
    const entry: ObservedVni = byVni.get(raw.vni) ?? { vni: raw.vni, type: 'L3' };
    entry.vrf = raw.vrf;
    const vxlan = named(raw.vxlanIntf);
    if (vxlan && !entry.vxlanInterface) entry.vxlanInterface = vxlan;
    if (typeof raw.state === 'string') entry.state = raw.state;
    byVni.set(raw.vni, entry);
  }
  return [...byVni.values()].sort((a, b) => a.vni - b.vni);
}

/** FRR's version from `show version` ("FRRouting 8.4.4 (host) on Linux(…)."). */
export function parseFrrVersion(text: string): string {
  const match = /^FRRouting (\S+)/m.exec(text);
  if (!match?.[1])
    throw new ObservedParseError(OBSERVED_COMMANDS.version, 'no "FRRouting <version>" line', text);
  return match[1];
}

/** What vtysh answered per command: its stdout, or why it did not answer. */
export type ShowOutputs = Record<ObservedCommand, { ok: true; text: string } | { ok: false; error: string }>;

/**
 * The observed state from every command's answer. A command that failed or could not be parsed
 * leaves its part out and is named in `error`; the others are still reported.
 */
export function buildObserved(outputs: ShowOutputs, readAt: Date): ObservedState {
  const errors: string[] = [];
  const part = <T>(command: ObservedCommand, parse: (text: string) => T): T | undefined => {
    const out = outputs[command];
    if (!out.ok) {
      errors.push(`vtysh -c '${OBSERVED_COMMANDS[command]}': ${out.error}`);
      return undefined;
    }
    try {
      return parse(out.text);
    } catch (err) {
      errors.push(err instanceof Error ? err.message : String(err));
      return undefined;
    }
  };
  const observed: ObservedState = {};
  const version = part('version', parseFrrVersion);
  if (version) observed.frrVersion = version;
  const sessions = part('bgp', (text) => parseBgpSessions(text, readAt));
  if (sessions) {
    observed.bgpSummary = `${sessions.filter((s) => s.state === 'Established').length}/${sessions.length}`;
    observed.bgpSessions = sessions;
  }
  const vrfVni = outputs.vrfVni;
  const vnis = part('evpnVni', (text) =>
    // Without `show vrf vni` the L2/L3 typing of zebra's own table still stands.
    parseVnis(text, vrfVni.ok ? vrfVni.text : ''),
  );
  if (!vrfVni.ok) errors.push(`vtysh -c '${OBSERVED_COMMANDS.vrfVni}': ${vrfVni.error}`);
  if (vnis) {
    observed.vniSummary = vniSummary(vnis);
    observed.vnis = vnis;
  }
  if (errors.length > 0) observed.error = errors.join('; ');
  return observed;
}

/** "2 L2, 1 L3", or "none". */
export function vniSummary(vnis: readonly ObservedVni[]): string {
  const l2 = vnis.filter((v) => v.type === 'L2').length;
  const l3 = vnis.length - l2;
  const parts = [l2 ? `${l2} L2` : '', l3 ? `${l3} L3` : ''].filter(Boolean);
  return parts.length ? parts.join(', ') : 'none';
}
