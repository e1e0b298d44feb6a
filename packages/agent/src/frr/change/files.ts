/** Atomic file replacement: temp file, fsync, rename, fsync of the directory. */
import { randomBytes } from 'node:crypto';
import { open, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export async function readIfExists(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/**
 * The mode of FRR's config files nodenet writes (frr.conf, the previous one, the check's scratch):
 * they may hold BGP passwords (issue 41), so only their owner (FRR's user; the agent as root) reads them.
 */
export const FRR_CONFIG_MODE = 0o600;

/**
 * Write `content` to `path` atomically, keeping the owner of the file it replaces, and its mode unless
 * `mode` is given (then always that mode).
 */
export async function writeAtomic(path: string, content: string, mode?: number): Promise<void> {
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const prev = await stat(path).catch(() => undefined);
  const fh = await open(tmp, 'wx', mode ?? (prev ? prev.mode & 0o7777 : 0o640));
  try {
    await fh.writeFile(content, 'utf8');
    // open() applies the umask; the mode asked for is the mode the file gets. Before the chown: the
    // agent has no CAP_FOWNER (deploy/agent.yaml), so it may change the mode only of its own file.
    if (mode !== undefined) await fh.chmod(mode);
    if (prev) await fh.chown(prev.uid, prev.gid).catch(() => undefined);
    await fh.sync();
  } catch (e) {
    await fh.close();
    await rm(tmp, { force: true });
    throw e;
  }
  await fh.close();
  await rename(tmp, path);
  const d = await open(dir, 'r');
  try {
    await d.sync();
  } finally {
    await d.close();
  }
}

/** A scratch file next to `path` (same file system), removed after `fn`. */
export async function withScratchFile<T>(
  path: string,
  content: string,
  fn: (p: string) => Promise<T>,
): Promise<T> {
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.check`);
  const fh = await open(tmp, 'wx', FRR_CONFIG_MODE);
  try {
    await fh.writeFile(content, 'utf8');
  } finally {
    await fh.close();
  }
  try {
    return await fn(tmp);
  } finally {
    await rm(tmp, { force: true });
  }
}
