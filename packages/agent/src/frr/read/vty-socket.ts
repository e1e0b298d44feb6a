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
import { connect, type Socket } from 'node:net';
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
 * One connection to one daemon's vty socket, in enable mode: batches of commands, each batch sent
 * at once and answered in order. Rejects (and closes) when the socket cannot be reached, the daemon
 * closes it, the answers exceed the bound or `timeoutMs` passes without a byte; a command FRR
 * refuses is an answer with `ok: false`.
 */
export class VtySession {
  private readonly socket: Socket;
  private chunks: Buffer[] = [];
  private bytes = 0;
  private waiting:
    { count: number; resolve: (a: ShowAnswer[]) => void; reject: (e: Error) => void } | undefined;
  private failure: Error | undefined;

  private constructor(
    readonly path: string,
    timeoutMs: number,
  ) {
    this.socket = connect(path);
    this.socket.setTimeout(timeoutMs, () => this.fail(`no answer within ${timeoutMs} ms`));
    this.socket.on('error', (e) => this.fail(e.message));
    this.socket.on('close', () => this.fail('closed before all answers came'));
    this.socket.on('data', (d: Buffer) => this.receive(d));
  }

  /** A session with `daemon`, nothing sent yet (a new connection is in VIEW mode). */
  static connect(instance: ResolvedInstance, daemon: string, timeoutMs: number): VtySession {
    return new VtySession(join(vtySocketDir(instance), `${daemon}.vty`), timeoutMs);
  }

  /** A session with `daemon`, `enable` sent and answered. */
  static async open(instance: ResolvedInstance, daemon: string, timeoutMs: number): Promise<VtySession> {
    const session = VtySession.connect(instance, daemon, timeoutMs);
    const [enable] = await session.send(['enable']);
    if (!enable?.ok) {
      session.close();
      throw new Error(`${session.path}: enable refused: ${enable?.ok === false ? enable.error : ''}`);
    }
    return session;
  }

  /** Send `commands` at once; their answers, in order. One batch at a time. */
  send(commands: readonly string[]): Promise<ShowAnswer[]> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting = { count: commands.length, resolve, reject };
      this.socket.write(commands.map((c) => `${c}\0`).join(''));
    });
  }

  /** Close the connection (FRR then leaves configure mode, committing what it held back). */
  close(): void {
    this.socket.removeAllListeners('close');
    this.failure ??= new Error(`${this.path}: closed`);
    this.socket.destroy();
  }

  private fail(why: string): void {
    this.failure ??= new Error(`${this.path}: ${why}`);
    this.socket.destroy();
    this.waiting?.reject(this.failure);
    this.waiting = undefined;
  }

  private receive(d: Buffer): void {
    this.chunks.push(d);
    this.bytes += d.length;
    if (this.bytes > MAX_BYTES) return this.fail(`answers exceed ${MAX_BYTES} bytes`);
    // Only data ending in a status can complete the answers: no re-scan of a partial one.
    const tail = d.length >= 4 ? d : Buffer.concat(this.chunks);
    const n = tail.length;
    if (!this.waiting || n < 4 || tail[n - 4] !== 0 || tail[n - 3] !== 0 || tail[n - 2] !== 0) return;
    const answers = splitVtyAnswers(Buffer.concat(this.chunks));
    if (answers.length < this.waiting.count) return;
    const { resolve } = this.waiting;
    this.waiting = undefined;
    this.chunks = [];
    this.bytes = 0;
    resolve(answers);
  }
}

/**
 * Ask `daemon` (`zebra`, `bgpd`, …) the `commands`, in enable mode, on one connection. Rejects as
 * `VtySession` does; a command FRR refuses is an answer with `ok: false`.
 */
export async function askDaemon(
  instance: ResolvedInstance,
  daemon: string,
  commands: readonly string[],
  timeoutMs: number,
): Promise<ShowAnswer[]> {
  // `enable` goes with the commands: one round trip.
  const session = VtySession.connect(instance, daemon, timeoutMs);
  try {
    return (await session.send(['enable', ...commands])).slice(1);
  } finally {
    session.close();
  }
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
