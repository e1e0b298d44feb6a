/**
 * On-disk checkpoint of the apply pipeline (apply/pipeline.ts), in the state dir (a hostPath, so it
 * outlives the container):
 *
 * - `applied.json`  the last NodeConfig spec that was applied AND passed the health checks, with its
 *                   revision hash and a checksum over the record.
 * - `pending.json`  present only while an apply is under way; finding it at start-up means the
 *                   agent died in the middle of an apply.
 * - `rejected.json` the last attempt (revision + assignment time) that failed and was rolled back,
 *                   so the agent does not apply the same bad revision again after a restart or a
 *                   resync. The configurator's retry re-assigns the node (new `assigned-at`), which
 *                   makes it a new attempt.
 *
 * Every write is atomic: a temp file in the same directory, fsync, rename over the target, fsync of
 * the directory. A crash therefore leaves either the old or the new file, plus at worst a stale temp
 * file that the next load removes.
 *
 * Corruption policy (a corrupt checkpoint must never crash-loop the agent): `load()` never throws
 * for a bad file. A file that cannot be read, is not JSON, has an unknown format version or a wrong
 * checksum is reported as a `CheckpointCorruptError` (path + reason) in `problems`, renamed aside to
 * `<name>.corrupt-<timestamp>` for inspection (the newest few are kept), and treated as follows:
 * - applied.json: as "no checkpoint" — a later restore removes everything the agent manages, which
 *   is the documented behaviour without a checkpoint, and the next good apply writes a fresh one;
 * - pending.json: as "an apply was cut off" (revision unknown) — restoring is always safe;
 * - rejected.json: as "nothing rejected" — at worst one bad revision is tried (and rolled back) again.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  canonicalJson,
  FAILURE_CAUSES,
  sha256Hex,
  type FailureCause,
  type NodeConfigSpec,
} from '@nodenet/api';
import { CheckpointCorruptError, CheckpointWriteError, describeCause } from '../errors.js';

export const CHECKPOINT_FORMAT_VERSION = 1;
export const APPLIED_FILE = 'applied.json';
export const PENDING_FILE = 'pending.json';
export const REJECTED_FILE = 'rejected.json';
const TEMP_MARKER = '.tmp-';
const CORRUPT_MARKER = '.corrupt-';

/** The last good configuration of the host. */
export interface AppliedCheckpoint {
  /** `spec.revision`, repeated for readers that only want the hash. */
  revision: string;
  spec: NodeConfigSpec;
  /** sha256 of the canonical JSON of `spec` (detects a spec edited without its revision changing). */
  specHash: string;
  savedAt: string;
  /**
   * What this agent put on the host for `spec` (issue #36): the FRR file and the netlink model. A
   * later agent binary that renders the spec differently applies the difference through the confirm
   * window (upgrade.ts) and can put this back. Absent in files of older agents.
   */
  rendered?: HostRendering;
}

/** The host side of a spec as one agent binary renders it. */
export interface HostRendering {
  frr: string;
  /** The managed devices, sorted by name (netlink/model.ts `Device`, as plain JSON). */
  netlink: unknown[];
}

/** The apply that is under way. */
export interface PendingApply {
  revision: string;
  /** specHash of the spec being applied: tells a finished-but-not-cleared apply from a cut-off one. */
  specHash: string;
  /** The configurator's `assigned-at` annotation of the attempt, when it had one. */
  assignedAt?: string;
  /** `metadata.generation` of the NodeConfig being applied, so a report after a crash answers it. */
  generation?: number;
  /** Revision of applied.json when the apply began (what a restore will bring back). */
  previousRevision?: string;
  startedAt: string;
  /**
   * Set (pending.json rewritten) when the apply passed its checks and the confirm window began: a
   * restart found after that was not the change failing its checks (reported `Interrupted`).
   */
  confirming?: boolean;
  /** sha256 of frr.conf when the apply began: which FRR file a restore may put back (HostFrr.restoreFile). */
  frrFile?: string;
}

/** An attempt that failed and was rolled back. */
export interface RejectedAttempt {
  revision: string;
  specHash: string;
  assignedAt?: string;
  message: string;
  at: string;
  /** What the report said (absent in files of older agents: `ChangeFailed`). */
  failureCause?: FailureCause;
  /** With `Interrupted`: how many times in a row this attempt was interrupted. */
  interruptions?: number;
}

export type ReadResult<T> =
  | { kind: 'missing' }
  | { kind: 'ok'; value: T }
  | { kind: 'corrupt'; error: CheckpointCorruptError; movedTo?: string };

export interface CheckpointState {
  applied?: AppliedCheckpoint;
  /** Set when pending.json exists; `revision` is undefined when the file itself was corrupt. */
  pending?: Partial<PendingApply> & { corrupt?: boolean };
  rejected?: RejectedAttempt;
  /** Every corrupt file found, with where it was moved. Empty on a healthy state dir. */
  problems: { error: CheckpointCorruptError; movedTo?: string }[];
}

export interface CheckpointStoreOptions {
  now?: () => Date;
  /** How many `*.corrupt-*` copies of each file to keep (older ones are deleted). Default 3. */
  keepCorrupt?: number;
}

type Validator<T> = (body: Record<string, unknown>) => T | string;

export class CheckpointStore {
  private readonly now: () => Date;
  private readonly keepCorrupt: number;

  constructor(
    readonly dir: string,
    options: CheckpointStoreOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.keepCorrupt = options.keepCorrupt ?? 3;
  }

  path(file: string): string {
    return join(this.dir, file);
  }

  /** Creates the state dir when missing and removes temp files left by a write that was cut off. */
  async init(): Promise<void> {
    try {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
    } catch (cause) {
      throw new CheckpointWriteError(this.dir, 'mkdir', { cause });
    }
    const entries = await readdir(this.dir).catch(() => [] as string[]);
    for (const entry of entries) {
      if (entry.includes(TEMP_MARKER))
        await rm(join(this.dir, entry), { force: true }).catch(() => undefined);
    }
  }

  /** Reads all three files. Never throws for a bad file; see the corruption policy above. */
  async load(): Promise<CheckpointState> {
    await this.init();
    const state: CheckpointState = { problems: [] };
    const applied = await this.readApplied();
    if (applied.kind === 'ok') state.applied = applied.value;
    if (applied.kind === 'corrupt') state.problems.push(applied);
    const pending = await this.readPending();
    if (pending.kind === 'ok') state.pending = pending.value;
    if (pending.kind === 'corrupt') {
      state.problems.push(pending);
      state.pending = { corrupt: true };
    }
    const rejected = await this.readRejected();
    if (rejected.kind === 'ok') state.rejected = rejected.value;
    if (rejected.kind === 'corrupt') state.problems.push(rejected);
    return state;
  }

  readApplied(): Promise<ReadResult<AppliedCheckpoint>> {
    return this.read(APPLIED_FILE, validateApplied);
  }

  readPending(): Promise<ReadResult<PendingApply>> {
    return this.read(PENDING_FILE, validatePending);
  }

  readRejected(): Promise<ReadResult<RejectedAttempt>> {
    return this.read(REJECTED_FILE, validateRejected);
  }

  async saveApplied(spec: NodeConfigSpec, rendered?: HostRendering): Promise<AppliedCheckpoint> {
    const record: AppliedCheckpoint = {
      revision: spec.revision,
      spec,
      specHash: specHash(spec),
      savedAt: this.now().toISOString(),
      ...(rendered ? { rendered } : {}),
    };
    await this.write(APPLIED_FILE, record);
    return record;
  }

  async savePending(pending: PendingApply): Promise<void> {
    await this.write(PENDING_FILE, pending);
  }

  async clearPending(): Promise<void> {
    await this.remove(PENDING_FILE);
  }

  async saveRejected(rejected: RejectedAttempt): Promise<void> {
    await this.write(REJECTED_FILE, rejected);
  }

  async clearRejected(): Promise<void> {
    await this.remove(REJECTED_FILE);
  }

  // ------------------------------------------------------------------ I/O

  private async read<T>(file: string, validate: Validator<T>): Promise<ReadResult<T>> {
    const path = this.path(file);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
      return this.quarantine(file, `cannot read: ${describeCause(cause)}`, cause);
    }
    const parsed = decode(text);
    if (typeof parsed === 'string') return this.quarantine(file, parsed);
    const value = validate(parsed.body);
    if (typeof value === 'string') return this.quarantine(file, value);
    return { kind: 'ok', value };
  }

  /** Reports a corrupt file and renames it aside so the next start-up does not trip over it again. */
  private async quarantine(file: string, reason: string, cause?: unknown): Promise<ReadResult<never>> {
    const error = new CheckpointCorruptError(this.path(file), reason, { cause });
    const stamp = this.now().toISOString().replace(/[:.]/g, '-');
    const target = this.path(`${file}${CORRUPT_MARKER}${stamp}`);
    try {
      await rename(this.path(file), target);
      await this.fsyncDir();
      await this.pruneCorrupt(file);
      return { kind: 'corrupt', error, movedTo: target };
    } catch {
      // Could not move it (read-only dir, it is a directory...): still report it and carry on.
      return { kind: 'corrupt', error };
    }
  }

  private async pruneCorrupt(file: string): Promise<void> {
    const prefix = `${file}${CORRUPT_MARKER}`;
    const copies = (await readdir(this.dir)).filter((e) => e.startsWith(prefix)).sort();
    for (const old of copies.slice(0, Math.max(0, copies.length - this.keepCorrupt))) {
      await rm(join(this.dir, old), { force: true, recursive: true });
    }
  }

  private async write(file: string, body: object): Promise<void> {
    const path = this.path(file);
    const temp = `${path}${TEMP_MARKER}${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      const handle = await open(temp, 'w', 0o600);
      try {
        await handle.writeFile(encode(body));
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, path);
      await this.fsyncDir();
    } catch (cause) {
      await rm(temp, { force: true }).catch(() => undefined);
      throw new CheckpointWriteError(path, 'write', { cause });
    }
  }

  private async remove(file: string): Promise<void> {
    const path = this.path(file);
    try {
      await rm(path, { force: true });
      await this.fsyncDir();
    } catch (cause) {
      throw new CheckpointWriteError(path, 'remove', { cause });
    }
  }

  /** Makes a rename or unlink durable: the directory entry itself must reach the disk. */
  private async fsyncDir(): Promise<void> {
    const handle = await open(this.dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
}

/** sha256 of the canonical JSON of a spec; equal specs have equal hashes whatever their key order. */
export const specHash = (spec: NodeConfigSpec): string => sha256Hex(canonicalJson(spec));

// ------------------------------------------------------------------ file format

/** File layout: `{ version, checksum, body }`; checksum = sha256 of the canonical JSON of body. */
function encode(body: object): string {
  const envelope = { version: CHECKPOINT_FORMAT_VERSION, checksum: sha256Hex(canonicalJson(body)), body };
  return `${JSON.stringify(envelope, null, 2)}\n`;
}

function decode(text: string): { body: Record<string, unknown> } | string {
  if (text.length === 0) return 'file is empty (torn write?)';
  let envelope: unknown;
  try {
    envelope = JSON.parse(text);
  } catch (cause) {
    return `not valid JSON (torn write?): ${describeCause(cause)}`;
  }
  if (!isRecord(envelope)) return 'not a JSON object';
  if (envelope.version !== CHECKPOINT_FORMAT_VERSION) {
    return `unknown format version ${JSON.stringify(envelope.version)} (this agent reads ${CHECKPOINT_FORMAT_VERSION})`;
  }
  if (!isRecord(envelope.body)) return 'field "body" is missing or not an object';
  if (typeof envelope.checksum !== 'string') return 'field "checksum" is missing';
  const actual = sha256Hex(canonicalJson(envelope.body));
  if (actual !== envelope.checksum) {
    return `checksum mismatch: file says ${envelope.checksum.slice(0, 12)}…, content hashes to ${actual.slice(0, 12)}…`;
  }
  return { body: envelope.body };
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const HASH = /^[0-9a-f]{64}$/;

function validateApplied(body: Record<string, unknown>): AppliedCheckpoint | string {
  const spec = body.spec;
  if (!isRecord(spec)) return 'field "body.spec" is missing';
  if (typeof spec.revision !== 'string' || !HASH.test(spec.revision))
    return 'field "body.spec.revision" is not a hash';
  for (const list of ['vrf', 'layer2', 'routingTable'] as const) {
    if (!Array.isArray(spec[list])) return `field "body.spec.${list}" is not a list`;
  }
  if (body.revision !== spec.revision) return 'field "body.revision" does not match "body.spec.revision"';
  const typed = spec as unknown as NodeConfigSpec;
  if (body.specHash !== specHash(typed)) return 'field "body.specHash" does not match the spec';
  if (typeof body.savedAt !== 'string') return 'field "body.savedAt" is missing';
  const r = body.rendered;
  const rendered =
    isRecord(r) && typeof r.frr === 'string' && Array.isArray(r.netlink)
      ? { rendered: { frr: r.frr, netlink: r.netlink as unknown[] } }
      : {};
  return {
    revision: spec.revision,
    spec: typed,
    specHash: body.specHash,
    savedAt: body.savedAt,
    ...rendered,
  };
}

function validatePending(body: Record<string, unknown>): PendingApply | string {
  if (typeof body.revision !== 'string') return 'field "body.revision" is missing';
  if (typeof body.specHash !== 'string') return 'field "body.specHash" is missing';
  if (typeof body.startedAt !== 'string') return 'field "body.startedAt" is missing';
  const out: PendingApply = { revision: body.revision, specHash: body.specHash, startedAt: body.startedAt };
  if (typeof body.assignedAt === 'string') out.assignedAt = body.assignedAt;
  if (typeof body.previousRevision === 'string') out.previousRevision = body.previousRevision;
  if (typeof body.generation === 'number') out.generation = body.generation;
  if (body.confirming === true) out.confirming = true;
  if (typeof body.frrFile === 'string') out.frrFile = body.frrFile;
  return out;
}

function validateRejected(body: Record<string, unknown>): RejectedAttempt | string {
  if (typeof body.revision !== 'string') return 'field "body.revision" is missing';
  if (typeof body.specHash !== 'string') return 'field "body.specHash" is missing';
  if (typeof body.message !== 'string') return 'field "body.message" is missing';
  if (typeof body.at !== 'string') return 'field "body.at" is missing';
  const out: RejectedAttempt = {
    revision: body.revision,
    specHash: body.specHash,
    message: body.message,
    at: body.at,
  };
  if (typeof body.assignedAt === 'string') out.assignedAt = body.assignedAt;
  if ((FAILURE_CAUSES as readonly unknown[]).includes(body.failureCause))
    out.failureCause = body.failureCause as FailureCause;
  if (typeof body.interruptions === 'number') out.interruptions = body.interruptions;
  return out;
}
