/**
 * FRR's vty socket protocol (frr/vty-socket.ts): output, then `\0\0\0<status>`; the drift check's
 * fingerprint and the fast path's direct write (frr/vty-apply.ts) over fake daemons listening on
 * Unix sockets as FRR's do; which daemons vtysh sends each command to (frr/vty-daemons.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  applyOverSockets,
  daemonConfigs,
  daemonSteps,
  resolveInstance,
  splitVtyAnswers,
} from '@nodenet/agent';

const answer = (text: string, status = 0): Buffer =>
  Buffer.concat([Buffer.from(text), Buffer.from([0, 0, 0, status])]);

describe('vty socket answers', () => {
  it('splits back-to-back answers, empty ones included, and keeps a refusal as its message', () => {
    const data = Buffer.concat([
      answer(''),
      answer('frr version 8.4.4\n!\n'),
      answer('% [BGP] Unknown command: show nothing\n', 2),
      answer(''),
    ]);
    expect(splitVtyAnswers(data)).toEqual([
      { ok: true, text: '' },
      { ok: true, text: 'frr version 8.4.4\n!\n' },
      { ok: false, error: '% [BGP] Unknown command: show nothing' },
      { ok: true, text: '' },
    ]);
  });

  it('leaves an answer whose status has not come yet', () => {
    const whole = Buffer.concat([answer('a\n'), answer('{"x":1}')]);
    expect(splitVtyAnswers(whole.subarray(0, whole.length - 1))).toEqual([{ ok: true, text: 'a\n' }]);
    expect(splitVtyAnswers(whole.subarray(0, whole.length - 3))).toEqual([{ ok: true, text: 'a\n' }]);
    expect(splitVtyAnswers(whole)).toHaveLength(2);
  });
});

/** A daemon at `<dir>/<name>.vty` answering each NUL-terminated command with `answer(command)`. */
function fakeDaemon(dir: string, name: string, answer: (cmd: string) => [string, number]): Server {
  const server = createServer((socket) => {
    let pending = '';
    socket.on('data', (d: Buffer) => {
      pending += d.toString('utf8');
      for (let at = pending.indexOf('\0'); at >= 0; at = pending.indexOf('\0')) {
        const [text, status] = answer(pending.slice(0, at));
        pending = pending.slice(at + 1);
        // Split in two writes: the reader must wait for the status.
        socket.write(Buffer.from(text));
        socket.write(Buffer.from([0, 0, 0, status]));
      }
    });
  });
  server.listen(join(dir, `${name}.vty`));
  return server;
}

let dir = '';
const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
  rmSync(dir, { recursive: true, force: true });
});
const ready = (): Promise<unknown> =>
  Promise.all(servers.map((s) => new Promise((r) => (s.listening ? r(0) : s.once('listening', r)))));

describe("the daemons' own running configs", () => {
  const start = (name: string, config: () => string, refuse = false): void => {
    servers.push(
      fakeDaemon(dir, name, (cmd) => {
        if (cmd === 'enable') return ['', 0];
        if (cmd === 'show running-config' && !refuse) return [config(), 0];
        return [`% Unknown command: ${cmd}\n`, 2];
      }),
    );
  };

  it("is every daemon's text by name, and changes when one daemon's does", async () => {
    dir = mkdtempSync(join(tmpdir(), 'nn-vty-'));
    let bgpd = 'router bgp 65000\n';
    start('zebra', () => 'vrf v1\n vni 1001\n');
    start('bgpd', () => bgpd);
    await ready();
    const instance = resolveInstance({ vtySocket: dir });
    const first = await daemonConfigs(instance);
    expect(first).toBe('== bgpd\nrouter bgp 65000\n\n== zebra\nvrf v1\n vni 1001\n');
    expect(await daemonConfigs(instance)).toBe(first);
    bgpd = 'router bgp 65000\n bgp router-id 10.0.0.9\n';
    expect(await daemonConfigs(instance)).not.toBe(first);
  });

  it('is undefined when a daemon refuses to show its config (a refusal reads the same whatever it runs)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'nn-vty-'));
    start('zebra', () => 'vrf v1\n');
    start('watchfrr', () => '', true);
    await ready();
    expect(await daemonConfigs(resolveInstance({ vtySocket: dir }))).toBeUndefined();
  });

  it('is undefined without sockets', async () => {
    dir = mkdtempSync(join(tmpdir(), 'nn-vty-'));
    expect(await daemonConfigs(resolveInstance({ vtySocket: join(dir, 'none') }))).toBeUndefined();
  });
});

describe('which daemons vtysh sends a fast-path command to (FRR 8.4)', () => {
  const running = new Set(['zebra', 'bgpd', 'staticd']);
  const to = (commands: string[]): [string, string[]][] | undefined =>
    daemonSteps(commands, running)?.map((s) => [s.command, [...s.daemons].sort()]);

  it('prefix-lists and route-map clauses to zebra and bgpd, a community and BGP lines to bgpd only', () => {
    expect(
      to([
        'ip prefix-list pl_a seq 5 permit 10.0.0.0/8 le 24',
        'route-map rm4_a permit 10',
        'match ip address prefix-list pl_a',
        'no set community 65000:1 additive',
        'set large-community 65000:1:2 additive',
        'exit',
        'no route-map rm4_a deny 65535',
        'router bgp 65000 vrf vr.a',
        'address-family l2vpn evpn',
        'route-target import 65000:7',
        'exit',
        'exit',
      ]),
    ).toEqual([
      ['ip prefix-list pl_a seq 5 permit 10.0.0.0/8 le 24', ['bgpd', 'zebra']],
      ['route-map rm4_a permit 10', ['bgpd', 'zebra']],
      ['match ip address prefix-list pl_a', ['bgpd', 'zebra']],
      ['no set community 65000:1 additive', ['bgpd']],
      ['set large-community 65000:1:2 additive', ['bgpd']],
      ['exit', ['bgpd', 'zebra']],
      ['no route-map rm4_a deny 65535', ['bgpd', 'zebra']],
      ['router bgp 65000 vrf vr.a', ['bgpd']],
      ['address-family l2vpn evpn', ['bgpd']],
      ['route-target import 65000:7', ['bgpd']],
      ['exit', ['bgpd']],
      ['exit', ['bgpd']],
    ]);
  });

  it('leaves to vtysh a command it does not know, an open context, or one no running daemon takes', () => {
    expect(to(['route-map m permit 10', 'set src 10.0.0.1', 'exit'])).toBeUndefined();
    expect(to(['route-map m permit 10'])).toBeUndefined();
    expect(to(['ip route 10.0.0.0/8 Null0'])).toBeUndefined();
    expect(daemonSteps(['router bgp 1 vrf a', 'exit'], new Set(['zebra']))).toBeUndefined();
  });
});

describe("the fast path's commands written straight to the daemons' sockets", () => {
  /** A daemon that logs what it receives and refuses the commands `refuse` names. */
  const start = (name: string, log: string[], refuse: (cmd: string) => boolean = () => false): void => {
    servers.push(
      fakeDaemon(dir, name, (cmd) => {
        log.push(cmd);
        if (refuse(cmd)) return ['% Configuration failed.\n', 13];
        if (cmd.startsWith('show ')) return [`{"${name.toUpperCase()}":{}}`, 0];
        return ['', 0];
      }),
    );
  };
  const session = ['enable', 'configure terminal'];

  it("sends each command to its daemons only, then reads back from each, answers in vtysh's order", async () => {
    dir = mkdtempSync(join(tmpdir(), 'nn-vty-'));
    const zebra: string[] = [];
    const bgpd: string[] = [];
    start('zebra', zebra);
    start('bgpd', bgpd);
    await ready();
    const r = await applyOverSockets(
      resolveInstance({ vtySocket: dir }),
      { commands: ['route-map m permit 10', 'set community 1:2 additive', 'exit'], batch: true },
      ['show route-map m json', 'show running-config bgpd', 'show running-config'],
    );
    expect(r).toEqual({
      applied: true,
      answers: ['{"ZEBRA":{}}{"BGPD":{}}', '{"BGPD":{}}', undefined],
      unasked: [2],
    });
    const around = (body: string[], shows: string[]): string[] => [
      ...session,
      'XFRR_start_configuration',
      ...body,
      'XFRR_end_configuration',
      'end',
      'show route-map m json',
      ...shows,
    ];
    expect(zebra).toEqual(around(['route-map m permit 10', 'exit'], []));
    // vtysh's `show running-config bgpd` is bgpd's own `show running-config`.
    expect(bgpd).toEqual(
      around(['route-map m permit 10', 'set community 1:2 additive', 'exit'], ['show running-config']),
    );
  });

  it('stops at the first refusal: no later command reaches any daemon, nothing is read back', async () => {
    dir = mkdtempSync(join(tmpdir(), 'nn-vty-'));
    const zebra: string[] = [];
    const bgpd: string[] = [];
    start('zebra', zebra);
    start('bgpd', bgpd, (c) => c.includes('seq 5'));
    await ready();
    const r = await applyOverSockets(
      resolveInstance({ vtySocket: dir }),
      {
        commands: ['ip prefix-list a seq 5 permit 10.0.0.0/8', 'ip prefix-list a seq 6 permit 10.1.0.0/16'],
        batch: false,
      },
      ['show ip prefix-list a json'],
    );
    expect(r).toMatchObject({ applied: false });
    for (const log of [zebra, bgpd])
      expect(log).toEqual([...session, 'ip prefix-list a seq 5 permit 10.0.0.0/8']);
  });

  it('sends nothing when a command is not one it knows, or a socket belongs to a daemon it does not know', async () => {
    dir = mkdtempSync(join(tmpdir(), 'nn-vty-'));
    const zebra: string[] = [];
    start('zebra', zebra);
    await ready();
    const instance = resolveInstance({ vtySocket: dir });
    expect(
      await applyOverSockets(instance, { commands: ['ip route 10.0.0.0/8 Null0'], batch: false }, []),
    ).toBeUndefined();
    start('ospfd-2', []);
    await ready();
    const plist = { commands: ['ip prefix-list a seq 5 permit 10.0.0.0/8'], batch: false };
    expect(await applyOverSockets(instance, plist, [])).toBeUndefined();
    expect(zebra).toEqual([]);
  });
});
