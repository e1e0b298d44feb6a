/**
 * The observed-state parser on real FRR output (Debian's FRR 8.4.4), captured from two FRR
 * instances in network namespaces peering over eBGP with `advertise-all-vni`, a VXLAN `vx100` in a
 * bridge (L2 VNI 100), `vrf vr.blue / vni 2000` (an L3 VNI whose kernel VRF does not exist on the
 * capture machine), a BGP instance in vr.blue with an unreachable neighbour and one default-VRF
 * neighbour that never answered. `peer-down` is the same node seconds after its peer's bgpd stopped;
 * `empty` is FRR with nothing configured.
 */
import { readFileSync } from 'node:fs';
import { FormatRegistry } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ObservedState } from '@nodenet/api';
import { describe, expect, it } from 'vitest';
import {
  buildObserved,
  ObservedParseError,
  parseBgpSessions,
  parseFrrVersion,
  parseVnis,
  sinceOf,
  type ShowOutputs,
} from '@nodenet/agent';

const golden = (name: string): string =>
  readFileSync(new URL(`./golden/frr-observed/${name}`, import.meta.url), 'utf8');
const readAt = new Date('2026-11-23T16:04:12.345Z');

const outputs = (prefix: string, version = golden('evpn-node.version.txt')): ShowOutputs => ({
  bgp: { ok: true, text: golden(`${prefix}.bgp-summary.json`) },
  evpnVni: { ok: true, text: golden(`${prefix}.evpn-vni.json`) },
  vrfVni: { ok: true, text: golden(`${prefix}.vrf-vni.json`) },
  version: { ok: true, text: version },
});

describe('parseBgpSessions', () => {
  it('lists each session once across address families, with its VRF, state and remote AS', () => {
    const sessions = parseBgpSessions(golden('evpn-node.bgp-summary.json'), readAt);
    expect(sessions).toEqual([
      {
        vrf: 'default',
        peer: '10.99.0.2',
        state: 'Established',
        remoteAs: 65002,
        since: '2026-11-23T16:03:53Z',
      },
      { vrf: 'default', peer: '10.99.0.9', state: 'Active', remoteAs: 65009 },
      { vrf: 'vr.blue', peer: '192.0.2.1', state: 'Idle', remoteAs: 65100 },
    ]);
  });

  it("derives since from FRR's uptime and the agent's read time, not from FRR's epoch", () => {
    // The sample's peerUptimeEstablishedEpoch is FRR's wall clock at the capture; since depends
    // only on readAt and the 19000 ms uptime.
    const other = new Date('2030-01-01T00:00:10.900Z');
    const [up] = parseBgpSessions(golden('evpn-node.bgp-summary.json'), other);
    expect(up?.since).toBe('2029-12-31T23:59:51Z');
  });

  it('gives a session that went down the time it left Established; one never up has no since', () => {
    const sessions = parseBgpSessions(golden('peer-down.bgp-summary.json'), readAt);
    expect(sessions.find((s) => s.peer === '10.99.0.2')).toEqual({
      vrf: 'default',
      peer: '10.99.0.2',
      state: 'Active',
      remoteAs: 65002,
      since: '2026-11-23T16:04:07Z',
    });
    expect(sessions.find((s) => s.peer === '10.99.0.9')?.since).toBeUndefined();
  });

  it('reads an FRR without BGP instances as no sessions', () => {
    expect(parseBgpSessions(golden('empty.bgp-summary.json'), readAt)).toEqual([]);
    expect(parseBgpSessions('', readAt)).toEqual([]);
  });

  it('refuses output that is not the summary, naming the command', () => {
    expect(() => parseBgpSessions('% Unknown command: show bgp vrf all summary json', readAt)).toThrow(
      /vtysh -c 'show bgp vrf all summary json': not JSON/,
    );
    expect(() => parseBgpSessions('{"default":{"ipv4Unicast":{"peers":{"10.0.0.1":{}}}}}', readAt)).toThrow(
      ObservedParseError,
    );
  });
});

describe('sinceOf', () => {
  it('rounds down to the second', () => {
    expect(sinceOf(new Date('2026-01-01T00:00:10.999Z'), 1000)).toBe('2026-01-01T00:00:09Z');
    expect(sinceOf(new Date('2026-01-01T00:00:10.000Z'), 0)).toBe('2026-01-01T00:00:10Z');
  });
});

describe('parseVnis', () => {
  it('types each VNI L2 or L3 and names the L3 VNI’s VRF from show vrf vni', () => {
    expect(parseVnis(golden('evpn-node.evpn-vni.json'), golden('evpn-node.vrf-vni.json'))).toEqual([
      { vni: 100, type: 'L2', vrf: 'default', vxlanInterface: 'vx100' },
      { vni: 2000, type: 'L3', vrf: 'vr.blue', state: 'Down' },
    ]);
  });

  it('reads FRR without VNIs (it prints nothing for show evpn vni json) as none', () => {
    expect(parseVnis(golden('empty.evpn-vni.json'), golden('empty.vrf-vni.json'))).toEqual([]);
  });

  it('refuses an unknown VNI type, naming the VNI', () => {
    expect(() => parseVnis('{"7":{"vni":7,"type":"L9"}}', '')).toThrow(/VNI 7 has type "L9"/);
  });
});

describe('parseFrrVersion', () => {
  it("takes the version from show version's first line", () => {
    expect(parseFrrVersion(golden('evpn-node.version.txt'))).toBe('8.4.4');
  });
  it('refuses text without it', () => {
    expect(() => parseFrrVersion('Exiting: failed to connect to any daemons.')).toThrow(/show version/);
  });
});

describe('buildObserved', () => {
  it('builds the status.observed model, valid against the API schema', () => {
    // What the API server checks for `format: date-time` (RFC 3339).
    FormatRegistry.Set('date-time', (v) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(v));
    const observed = buildObserved(outputs('evpn-node'), readAt);
    expect(observed).toMatchObject({
      frrVersion: '8.4.4',
      bgpSummary: '1/3',
      vniSummary: '1 L2, 1 L3',
    });
    expect(observed.bgpSessions).toHaveLength(3);
    expect(observed.vnis).toHaveLength(2);
    expect(observed.error).toBeUndefined();
    expect([...Value.Errors(ObservedState, observed)]).toEqual([]);
  });

  it('summarises an empty FRR', () => {
    expect(buildObserved(outputs('empty'), readAt)).toEqual({
      frrVersion: '8.4.4',
      bgpSummary: '0/0',
      vniSummary: 'none',
      bgpSessions: [],
      vnis: [],
    });
  });

  it('keeps the parts that were read and names the command that failed', () => {
    const observed = buildObserved(
      {
        ...outputs('evpn-node'),
        bgp: { ok: false, error: 'bgpd is not running' },
        version: { ok: true, text: 'garbage' },
      },
      readAt,
    );
    expect(observed.bgpSessions).toBeUndefined();
    expect(observed.frrVersion).toBeUndefined();
    expect(observed.vniSummary).toBe('1 L2, 1 L3');
    expect(observed.error).toContain("vtysh -c 'show bgp vrf all summary json': bgpd is not running");
    expect(observed.error).toContain("vtysh -c 'show version'");
  });
});
