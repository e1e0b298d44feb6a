/**
 * `--data-dir` persistence: a snapshot plus an append-only log of committed changes. Each commit is
 * appended with a synchronous write (it reaches the OS before the response is sent, so it survives a
 * crash of the process); the log is folded into a new snapshot at start-up, on stop and when it grows.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Store, StoreEvent } from './store.js';
import type { KObject } from '../objects/types.js';

interface SnapshotEntry {
  storageKey: string;
  key: string;
  obj: KObject;
  rv: number;
}

interface Snapshot {
  version: 1;
  resourceVersion: number;
  objects: SnapshotEntry[];
}

interface LogLine {
  t: 'put' | 'del';
  rv: number;
  s: string;
  k: string;
  o?: KObject;
}

export class PersistenceError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`${file}: ${message}`);
    this.name = 'PersistenceError';
  }
}

const COMPACT_AFTER = 200_000;
/** The data holds Secrets and tokens: only the server's own user may read it. */
const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;

/**
 * Creates the data directory, or tightens one that exists, to 0700 and every file in it to 0600
 * (a directory made by an older version, or by hand, may be readable by everyone).
 */
export function secureDataDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  fs.chmodSync(dir, DIR_MODE);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }))
    if (entry.isFile()) fs.chmodSync(path.join(dir, entry.name), FILE_MODE);
}

export class Persistence {
  private fd: number | undefined;
  private lines = 0;
  private readonly snapshotPath: string;
  private readonly logPath: string;

  constructor(
    private readonly dir: string,
    private readonly store: Store,
  ) {
    this.snapshotPath = path.join(dir, 'snapshot.json');
    this.logPath = path.join(dir, 'changes.jsonl');
  }

  /** Loads snapshot + log into the store, writes a fresh snapshot and opens the log for appending. */
  load(): number {
    secureDataDir(this.dir);
    const objects = new Map<string, SnapshotEntry>();
    let rv = 0;
    if (fs.existsSync(this.snapshotPath)) {
      let snap: Snapshot;
      try {
        snap = JSON.parse(fs.readFileSync(this.snapshotPath, 'utf8')) as Snapshot;
      } catch (e) {
        throw new PersistenceError(this.snapshotPath, `unreadable snapshot: ${(e as Error).message}`);
      }
      if (snap.version !== 1)
        throw new PersistenceError(this.snapshotPath, `unsupported snapshot version ${String(snap.version)}`);
      rv = snap.resourceVersion;
      for (const e of snap.objects) objects.set(`${e.storageKey}\0${e.key}`, e);
    }
    if (fs.existsSync(this.logPath)) {
      const text = fs.readFileSync(this.logPath, 'utf8');
      const rows = text.split('\n');
      rows.forEach((row, i) => {
        if (row.trim() === '') return;
        let line: LogLine;
        try {
          line = JSON.parse(row) as LogLine;
        } catch (e) {
          // a torn last line (process killed mid-write) is expected; anything earlier is corruption
          if (i >= rows.length - 2) return;
          throw new PersistenceError(this.logPath, `line ${i + 1}: ${(e as Error).message}`);
        }
        rv = Math.max(rv, line.rv);
        const id = `${line.s}\0${line.k}`;
        if (line.t === 'del') objects.delete(id);
        else if (line.o) objects.set(id, { storageKey: line.s, key: line.k, obj: line.o, rv: line.rv });
      });
    }
    for (const e of objects.values()) this.store.load(e.storageKey, e.key, e.obj, e.rv);
    this.store.restoreResourceVersion(rv);
    this.compact();
    this.store.onCommit((ev) => this.append(ev));
    return objects.size;
  }

  private append(ev: StoreEvent): void {
    if (this.fd === undefined) return;
    const line: LogLine =
      ev.type === 'DELETED'
        ? { t: 'del', rv: ev.rv, s: ev.storageKey, k: ev.key }
        : { t: 'put', rv: ev.rv, s: ev.storageKey, k: ev.key, o: ev.stored.obj };
    fs.writeSync(this.fd, `${JSON.stringify(line)}\n`);
    if (++this.lines >= COMPACT_AFTER) this.compact();
  }

  /** Writes the whole store as a snapshot (atomically: temp file, fsync, rename) and starts a new log. */
  compact(): void {
    const objects: SnapshotEntry[] = [];
    for (const storageKey of this.store.storageKeys())
      for (const s of this.store.list(storageKey)) {
        const m = s.obj.metadata;
        objects.push({
          storageKey,
          key: m.namespace ? `${m.namespace}/${m.name}` : (m.name ?? ''),
          obj: s.obj,
          rv: s.rv,
        });
      }
    const snap: Snapshot = { version: 1, resourceVersion: this.store.resourceVersion, objects };
    const tmp = `${this.snapshotPath}.tmp`;
    fs.rmSync(tmp, { force: true });
    const fd = fs.openSync(tmp, 'wx', FILE_MODE);
    try {
      fs.writeSync(fd, JSON.stringify(snap));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, this.snapshotPath);
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = fs.openSync(this.logPath, 'w', FILE_MODE);
    fs.fchmodSync(this.fd, FILE_MODE);
    this.lines = 0;
  }

  close(): void {
    if (this.fd === undefined) return;
    this.compact();
    fs.closeSync(this.fd);
    this.fd = undefined;
  }
}
