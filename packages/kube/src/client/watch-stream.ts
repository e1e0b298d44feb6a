/**
 * A watch stream read the way @kubernetes/client-node's Watch reads it (one JSON event per line,
 * `done` called once), without its layers: client-node pipes the response through node-fetch's
 * PassThrough and readline (a string per chunk, a regular expression per line) before JSON.parse;
 * here the response's Buffers are split at newline bytes and each line decoded and parsed once.
 * A newline byte never occurs inside a multi-byte UTF-8 sequence, so a line split across chunks,
 * even inside a character, decodes whole.
 */
import type http from 'node:http';
import type https from 'node:https';
import { apiErrorOf } from './answer.js';

/** TCP keep-alive probes on a watch's connection, as client-node sets them: a dead peer is noticed. */
const KEEP_ALIVE_MS = 30_000;

/** What is kept of the body of an answer other than 200 (a Status), for the error's message. */
const MAX_ERROR_BODY = 64 * 1024;

/** Cuts a byte stream into lines at `\n`; a line's bytes may span any number of chunks. */
export class LineSplitter {
  private pending: Buffer[] = [];

  constructor(private readonly onLine: (line: string) => void) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      if (this.pending.length === 0) {
        if (nl > start) this.onLine(chunk.toString('utf8', start, nl));
      } else {
        this.pending.push(chunk.subarray(start, nl));
        const line = Buffer.concat(this.pending);
        this.pending = [];
        this.onLine(line.toString('utf8'));
      }
      start = nl + 1;
    }
    if (start < chunk.length) this.pending.push(start === 0 ? chunk : chunk.subarray(start));
  }

  /** The last line, when the stream ended without a newline after it. */
  end(): void {
    if (this.pending.length === 0) return;
    const line = Buffer.concat(this.pending);
    this.pending = [];
    this.onLine(line.toString('utf8'));
  }
}

export interface WatchCallbacks {
  onEvent: (type: string, object: unknown) => void;
  /** Called once: null when the server ended the stream, the error otherwise (abort included). */
  onDone: (err: unknown) => void;
}

/**
 * Sends the watch request and reads its events; returns the function that aborts it. A line that
 * is not JSON is skipped, and so is an event whose handler throws, as client-node does.
 */
export function openWatch(
  transport: typeof http | typeof https,
  options: https.RequestOptions,
  { onEvent, onDone }: WatchCallbacks,
): () => void {
  let done = false;
  const finish = (err: unknown): void => {
    if (done) return;
    done = true;
    onDone(err);
  };
  const lines = new LineSplitter((line) => {
    try {
      const e = JSON.parse(line) as { type: string; object: unknown };
      onEvent(e.type, e.object);
    } catch {
      // Skipped, as client-node skips it.
    }
  });
  const req = transport.request(options, (res) => {
    // Events may be minutes apart: the request's timeout covered the wait for the answer only.
    req.setTimeout(0);
    if (res.statusCode !== 200) {
      const status = res.statusCode ?? 0;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (s: string) => {
        if (text.length < MAX_ERROR_BODY) text += s.slice(0, MAX_ERROR_BODY - text.length);
      });
      res.on('end', () => finish(apiErrorOf({ method: 'GET', path: options.path ?? '', status, text })));
      res.on('error', finish);
      return;
    }
    res.on('data', (chunk: Buffer) => {
      if (!done) lines.push(chunk);
    });
    res.on('end', () => {
      if (!done) lines.end();
      finish(null);
    });
    res.on('error', finish);
    res.on('close', () => finish(res.complete ? null : new Error('watch stream closed before its end')));
  });
  req.on('socket', (socket) => socket.setKeepAlive(true, KEEP_ALIVE_MS));
  req.on('timeout', () => req.destroy(new Error(`watch: no answer after ${options.timeout} ms`)));
  req.on('error', finish);
  req.end();
  return () => {
    if (done) return;
    finish(new Error('watch aborted'));
    req.destroy();
  };
}
