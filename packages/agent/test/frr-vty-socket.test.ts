/**
 * FRR's vty socket protocol (frr/vty-socket.ts): output, then `\0\0\0<status>`; and the drift
 * check's fingerprint over fake daemons listening on Unix sockets as FRR's do.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { daemonConfigs, resolveInstance, splitVtyAnswers } from '@nodenet/agent';

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

describe("the daemons' own running configs", () => {
  let dir = '';
  const servers: Server[] = [];
  afterEach(() => {
    for (const s of servers.splice(0)) s.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const start = (name: string, config: () => string, refuse = false): void => {
    servers.push(
      fakeDaemon(dir, name, (cmd) => {
        if (cmd === 'enable') return ['', 0];
        if (cmd === 'show running-config' && !refuse) return [config(), 0];
        return [`% Unknown command: ${cmd}\n`, 2];
      }),
    );
  };
  const ready = (): Promise<unknown> =>
    Promise.all(servers.map((s) => new Promise((r) => (s.listening ? r(0) : s.once('listening', r)))));

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
