/**
 * Show commands straight to one FRR daemon over its vty socket, as vtysh talks to it, without
 * starting vtysh: at 50 VRFs a vtysh run costs ~25 ms of CPU to start (it builds every daemon's
 * command tree) before it asks anything, and a process spawn on top. For the periodic reads of an
 * idle agent (observed state, the drift check's fingerprint). The protocol (FRR's lib/vty.c,
 * `vtysh_read`): each command is sent NUL-terminated; the daemon answers with the command's output
 * followed by three NUL bytes and a status byte (0: success). A new connection is in VIEW mode, so
 * `enable` comes first (vtysh sends it too). Callers fall back to vtysh when this fails.
 */
import { readdir } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import type { ResolvedInstance } from './instance.js';
import type { ShowAnswer } from './show.js';

/** Bound on one connection's answers together (as `run`'s maxBuffer). */
const MAX_BYTES = 64 * 1024 * 1024;

/** The directory vtysh finds the daemons' sockets in (its `--vty_socket`, or the pathspace's). */
export const vtySocketDir = (i: ResolvedInstance): string =>
  i.vtySocket ?? join('/var/run/frr', i.pathspace ?? '');

/**
 * Pure: the answers complete in `data` (output, then `\0\0\0<status>`). A status other than 0 is
 * FRR refusing the command; its output is the reason. FRR's output never holds a NUL byte.
 */
export function splitVtyAnswers(data: Buffer): ShowAnswer[] {
  const answers: ShowAnswer[] = [];
  let start = 0;
  for (let at = data.indexOf(0, start); at >= 0 && at + 3 < data.length; at = data.indexOf(0, at + 1)) {
    if (data[at + 1] !== 0 || data[at + 2] !== 0) continue;
    const text = data.subarray(start, at).toString('utf8');
    const status = data[at + 3]!;
    answers.push(status === 0 ? { ok: true, text } : { ok: false, error: text.trim() || `status ${status}` });
    start = at + 4;
    at += 3;
  }
  return answers;
}

/**
 * Ask `daemon` (`zebra`, `bgpd`, …) the `commands`, in enable mode, on one connection. Rejects when
 * the socket cannot be reached, the daemon closes it early, the answers exceed the bound or
 * `timeoutMs` passes; a command FRR refuses is an answer with `ok: false`.
 */
export function askDaemon(
  instance: ResolvedInstance,
  daemon: string,
  commands: readonly string[],
  timeoutMs: number,
): Promise<ShowAnswer[]> {
  const path = join(vtySocketDir(instance), `${daemon}.vty`);
  const all = ['enable', ...commands];
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    const chunks: Buffer[] = [];
    let bytes = 0;
    const fail = (why: string): void => {
      socket.destroy();
      reject(new Error(`${path}: ${why}`));
    };
    socket.setTimeout(timeoutMs, () => fail(`no answer within ${timeoutMs} ms`));
    socket.on('error', (e) => fail(e.message));
    socket.on('close', () => fail('closed before all answers came'));
    socket.on('data', (d: Buffer) => {
      chunks.push(d);
      bytes += d.length;
      if (bytes > MAX_BYTES) return fail(`answers exceed ${MAX_BYTES} bytes`);
      // Only data ending in a status can complete the answers: no re-scan of a partial one.
      const tail = d.length >= 4 ? d : Buffer.concat(chunks);
      const n = tail.length;
      if (n < 4 || tail[n - 4] !== 0 || tail[n - 3] !== 0 || tail[n - 2] !== 0) return;
      const answers = splitVtyAnswers(Buffer.concat(chunks));
      if (answers.length < all.length) return;
      socket.removeAllListeners('close');
      socket.destroy();
      resolve(answers.slice(1));
    });
    socket.write(all.map((c) => `${c}\0`).join(''));
  });
}

/**
 * Every daemon's own running config (each `<daemon>.vty` in the socket directory, asked at once),
 * as one text: `== <daemon>` and its answer, by name. The drift check's fingerprint: any change to
 * any daemon's configuration changes it. Undefined when a socket cannot be used or a daemon does
 * not show its configuration.
 */
export async function daemonConfigs(instance: ResolvedInstance): Promise<string | undefined> {
  try {
    const names = (await readdir(vtySocketDir(instance)))
      .filter((f) => f.endsWith('.vty'))
      .map((f) => f.slice(0, -'.vty'.length))
      .sort();
    if (names.length === 0) return undefined;
    const answers = await Promise.all(
      names.map((d) => askDaemon(instance, d, ['show running-config'], instance.timeoutMs)),
    );
    // A refusal (a daemon without the command, enable refused) is the same text whatever the
    // daemon runs: no fingerprint then.
    const texts = answers.map(([a]) => (a?.ok ? a.text : undefined));
    if (texts.some((t) => t === undefined)) return undefined;
    return names.map((d, i) => `== ${d}\n${texts[i]}`).join('\n');
  } catch {
    return undefined;
  }
}
