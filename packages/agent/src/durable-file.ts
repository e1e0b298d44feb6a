/**
 * Writing a small state file so that a crash or power loss leaves either the old or the new
 * content, never a torn or empty file: a temp file in the same directory, fsync, rename over the
 * target, fsync of the directory (the rename itself must reach the disk).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

export async function writeFileDurably(path: string, data: string | Uint8Array, mode = 0o600): Promise<void> {
  const dir = dirname(path);
  const temp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  try {
    const handle = await open(temp, 'w', mode);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw err;
  }
  await fsyncDir(dir);
}

export async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
