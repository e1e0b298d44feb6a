/**
 * The BGP passwords this node renders (issue 41). A NodeConfig names each password by Secret, key
 * and the salted hash of the value the revision was built with (@nodenet/api bgp-password.ts); the
 * agent reads the Secret itself (RBAC: `get` on Secrets of the one password namespace) and renders
 * the value only when it hashes to the revision's hash. So a node renders the password of the
 * revision it is on, not whatever the Secret says now: a rotation reaches a node only with the
 * revision that carries it, and a rollback goes back to the old password although the Secret
 * already holds the new one.
 *
 * That needs the old value after the Secret changed: the book keeps the values of the last two
 * distinct specs it prepared (the one on the host and the one being applied, or the one restored)
 * in `passwords.json` under the state dir, mode 0600, written durably; a restore, a restart during
 * the confirm window and drift repair render from it without the API server.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  isBgpPassword,
  PASSWORD_SALT_KEY,
  PASSWORD_SALT_SECRET,
  passwordDigest,
  passwordHash,
  type NodeConfigSpec,
} from '@nodenet/api';
import { writeFileDurably } from '../durable-file.js';

export const PASSWORDS_FILE = 'passwords.json';

/** A password cannot be read for a revision: the Secret is missing, or holds another value now. */
export class PasswordUnavailableError extends Error {
  override readonly name = 'PasswordUnavailableError';
  constructor(
    /** `namespace/name` of the Secret. */
    readonly secret: string,
    readonly key: string,
    readonly reason: string,
  ) {
    super(`BGP password Secret ${secret} key ${key}: ${reason}`);
  }
}

/** How the book reads a Secret's data (base64 values by key); undefined when it does not exist. */
export type SecretReader = (name: string) => Promise<Record<string, string> | undefined>;

interface BookFile {
  /** Hash → value, for the specs in `specs`. */
  values: Record<string, string>;
  /** The hash sets of the last two specs prepared, newest last. */
  specs: string[][];
}

const hashesOf = (spec: Pick<NodeConfigSpec, 'bgpPeering'>): string[] =>
  [...new Set((spec.bgpPeering ?? []).flatMap((p) => (p.password ? [p.password.hash] : [])))].sort();

export class PasswordBook {
  private book: BookFile = { values: {}, specs: [] };
  private loaded = false;

  constructor(
    private readonly stateDir: string,
    /** The namespace the Secrets are read in (for messages; the reader reads there). */
    private readonly namespace: string,
    private readonly read: SecretReader,
  ) {}

  /** The value read for a hash (the renderer's lookup); synchronous, from memory. */
  readonly lookup = (hash: string): string | undefined => this.book.values[hash];

  /**
   * Makes every password of `spec` available to `lookup`: from the book, or read from its Secret and
   * checked against the revision's hash. Throws PasswordUnavailableError naming the Secret (never a
   * value) when one cannot be had; the host is not touched before this succeeds.
   */
  async prepare(spec: Pick<NodeConfigSpec, 'bgpPeering'>): Promise<void> {
    await this.load();
    const wanted = hashesOf(spec);
    const missing = (spec.bgpPeering ?? []).flatMap((p) =>
      p.password && this.book.values[p.password.hash] === undefined ? [p.password] : [],
    );
    const values = { ...this.book.values };
    if (missing.length > 0) {
      const salt = await this.salt();
      for (const ref of missing) values[ref.hash] = await this.readOne(ref, salt);
    }
    const last = this.book.specs[this.book.specs.length - 1];
    const specs =
      last !== undefined && last.join() === wanted.join()
        ? this.book.specs
        : [...this.book.specs, wanted].slice(-2);
    const keep = new Set(specs.flat());
    const next: BookFile = {
      values: Object.fromEntries(Object.entries(values).filter(([h]) => keep.has(h))),
      specs,
    };
    if (JSON.stringify(next) === JSON.stringify(this.book)) return;
    await writeFileDurably(join(this.stateDir, PASSWORDS_FILE), JSON.stringify(next), 0o600);
    this.book = next;
  }

  private async load(): Promise<void> {
    if (this.loaded) return;
    try {
      const parsed = JSON.parse(await readFile(join(this.stateDir, PASSWORDS_FILE), 'utf8')) as BookFile;
      if (parsed && typeof parsed.values === 'object' && Array.isArray(parsed.specs)) this.book = parsed;
    } catch {
      // Absent or unreadable: the Secrets are read again (a rollback then needs the old value there).
    }
    this.loaded = true;
  }

  private async salt(): Promise<Buffer> {
    const data = await this.read(PASSWORD_SALT_SECRET);
    const salt = data?.[PASSWORD_SALT_KEY];
    if (salt === undefined || salt === '')
      throw new PasswordUnavailableError(
        `${this.namespace}/${PASSWORD_SALT_SECRET}`,
        PASSWORD_SALT_KEY,
        'the cluster salt is missing',
      );
    return Buffer.from(salt, 'base64');
  }

  private async readOne(ref: { secret: string; key: string; hash: string }, salt: Buffer): Promise<string> {
    const where = `${this.namespace}/${ref.secret}`;
    const data = await this.read(ref.secret);
    if (data === undefined) throw new PasswordUnavailableError(where, ref.key, 'the Secret does not exist');
    const encoded = data[ref.key];
    if (encoded === undefined)
      throw new PasswordUnavailableError(where, ref.key, 'the Secret has no such key');
    const value = Buffer.from(encoded, 'base64').toString('latin1');
    if (passwordHash(salt, passwordDigest(Buffer.from(encoded, 'base64'))) !== ref.hash)
      throw new PasswordUnavailableError(
        where,
        ref.key,
        'the value changed since this revision was built (a newer revision carries it)',
      );
    if (!isBgpPassword(value))
      throw new PasswordUnavailableError(where, ref.key, 'the value is not a TCP-MD5 password FRR takes');
    return value;
  }
}
