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

/**
 * Longest event line held: an API server refuses objects over ~1.5 MiB (etcd's request limit) and
 * its requests over 3 MiB, so a longer line is a broken stream, not an event to wait for.
 */
export const MAX_WATCH_LINE_BYTES = 16 * 1024 * 1024;

/** A watch event line longer than MAX_WATCH_LINE_BYTES: the stream is ended with this error. */
export class WatchLineTooLongError extends Error {
  constructor(
    readonly path: string,
    readonly bytes: number,
  ) {
    super(
      `watch ${path}: an event line exceeds ${MAX_WATCH_LINE_BYTES} bytes (${bytes} so far without a newline); the stream is closed and re-opened`,
    );
    this.name = 'WatchLineTooLongError';
  }
}

/**
 * Cuts a byte stream into lines at `\n`; a line's bytes may span any number of chunks, up to
 * `maxBytes` (then `onTooLong` is called once with the bytes held and nothing more is read).
 */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private stopped = false;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly limit: { maxBytes: number; onTooLong: (bytes: number) => void } = {
      maxBytes: MAX_WATCH_LINE_BYTES,
      onTooLong: () => undefined,
    },
  ) {}

  push(chunk: Buffer): void {
    if (this.stopped) return;
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      if (this.pending.length === 0) {
        if (nl > start) this.onLine(chunk.toString('utf8', start, nl));
      } else {
        this.pending.push(chunk.subarray(start, nl));
        const line = Buffer.concat(this.pending);
        this.pending = [];
        this.pendingBytes = 0;
        this.onLine(line.toString('utf8'));
      }
      start = nl + 1;
    }
    if (start < chunk.length) {
      this.pending.push(start === 0 ? chunk : chunk.subarray(start));
      this.pendingBytes += chunk.length - start;
      if (this.pendingBytes > this.limit.maxBytes) {
        this.stopped = true;
        const bytes = this.pendingBytes;
        this.pending = [];
        this.pendingBytes = 0;
        this.limit.onTooLong(bytes);
      }
    }
  }

  /** The last line, when the stream ended without a newline after it. */
  end(): void {
    if (this.stopped || this.pending.length === 0) return;
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
  const lines = new LineSplitter(
    (line) => {
      try {
        const e = JSON.parse(line) as { type: string; object: unknown };
        onEvent(e.type, e.object);
      } catch {
        // Skipped, as client-node skips it.
      }
    },
    {
      maxBytes: MAX_WATCH_LINE_BYTES,
      onTooLong: (bytes) => {
        finish(new WatchLineTooLongError(options.path ?? '', bytes));
        req.destroy();
      },
    },
  );
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
