import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileDurably } from '@nodenet/agent';

describe('writeFileDurably', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nodenet-durable-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('creates missing directories, replaces the content and leaves no temp file behind', async () => {
    const path = join(dir, 'state', 'vrf-tables.json');
    await writeFileDurably(path, '{"tables":{"blue":100}}\n');
    await writeFileDurably(path, '{"tables":{"blue":100,"red":101}}\n');
    expect(readFileSync(path, 'utf8')).toBe('{"tables":{"blue":100,"red":101}}\n');
    expect(readdirSync(join(dir, 'state'))).toEqual(['vrf-tables.json']);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('fails, leaving the existing file as it was, when the path can not be written', async () => {
    const path = join(dir, 'state', 'vrf-tables.json');
    // A file where a directory is needed: mkdir fails with ENOTDIR.
    await expect(writeFileDurably(join(path, 'nested'), 'x')).rejects.toThrow(/ENOTDIR|EEXIST/);
    expect(readFileSync(path, 'utf8')).toBe('{"tables":{"blue":100,"red":101}}\n');
  });
});
