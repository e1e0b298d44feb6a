import { mkdtemp, readdir, readFile, rm, writeFile, mkdir, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CheckpointStore, specHash, CheckpointCorruptError, CheckpointWriteError } from '@nodenet/agent';
import { sampleSpec } from './fixtures.js';

let dir: string;
let store: CheckpointStore;
let tick = 0;
const now = () => new Date(Date.UTC(2025, 0, 1, 0, 0, tick++));

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nodenet-ckpt-'));
  store = new CheckpointStore(dir, { now });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('CheckpointStore', () => {
  it('reports an empty state dir as no checkpoint, no pending apply and no problems', async () => {
    expect(await store.load()).toEqual({ problems: [] });
  });

  it('creates a missing state dir', async () => {
    const nested = new CheckpointStore(join(dir, 'a', 'b'));
    await nested.saveApplied(sampleSpec());
    expect((await nested.load()).applied?.revision).toBe(sampleSpec().revision);
  });

  it('round-trips applied.json with the spec, its revision and spec hash', async () => {
    const spec = sampleSpec(3);
    await store.saveApplied(spec);
    const state = await store.load();
    expect(state.problems).toEqual([]);
    expect(state.applied?.spec).toEqual(spec);
    expect(state.applied?.revision).toBe(spec.revision);
    expect(state.applied?.specHash).toBe(specHash(spec));
    const onDisk = JSON.parse(await readFile(join(dir, 'applied.json'), 'utf8'));
    expect(onDisk.version).toBe(1);
    expect(onDisk.checksum).toMatch(/^[0-9a-f]{64}$/);
  });

  it('round-trips pending.json and removes it', async () => {
    await store.savePending({
      revision: 'r1',
      specHash: 'h1',
      assignedAt: '2025-01-01T00:00:00Z',
      startedAt: 'x',
      previousRevision: 'r0',
    });
    expect((await store.load()).pending).toEqual({
      revision: 'r1',
      specHash: 'h1',
      assignedAt: '2025-01-01T00:00:00Z',
      startedAt: 'x',
      previousRevision: 'r0',
    });
    await store.clearPending();
    expect((await store.load()).pending).toBeUndefined();
    await store.clearPending(); // removing twice is fine
  });

  it('round-trips rejected.json', async () => {
    await store.saveRejected({ revision: 'r2', specHash: 'h2', message: 'health check failed', at: 't' });
    expect((await store.load()).rejected).toEqual({
      revision: 'r2',
      specHash: 'h2',
      message: 'health check failed',
      at: 't',
    });
    await store.clearRejected();
    expect((await store.load()).rejected).toBeUndefined();
  });

  it('replaces applied.json atomically, leaving no temp files', async () => {
    await store.saveApplied(sampleSpec(1));
    await store.saveApplied(sampleSpec(2));
    expect((await store.load()).applied?.spec).toEqual(sampleSpec(2));
    expect(await readdir(dir)).toEqual(['applied.json']);
  });

  it('treats a torn applied.json as no checkpoint, names the file and the reason, and moves it aside', async () => {
    await store.saveApplied(sampleSpec());
    const full = await readFile(join(dir, 'applied.json'), 'utf8');
    await writeFile(join(dir, 'applied.json'), full.slice(0, Math.floor(full.length / 2)));
    const state = await store.load();
    expect(state.applied).toBeUndefined();
    expect(state.problems).toHaveLength(1);
    const [problem] = state.problems;
    expect(problem?.error).toBeInstanceOf(CheckpointCorruptError);
    expect(problem?.error.path).toBe(join(dir, 'applied.json'));
    expect(problem?.error.message).toMatch(/applied\.json is unusable: not valid JSON \(torn write\?\)/);
    expect(problem?.movedTo).toMatch(/applied\.json\.corrupt-2025-01-01T/);
    const entries = await readdir(dir);
    expect(entries).not.toContain('applied.json');
    expect(entries.filter((e) => e.startsWith('applied.json.corrupt-'))).toHaveLength(1);
    // The next start-up is clean: no crash loop on the same file.
    expect(await store.load()).toEqual({ problems: [] });
  });

  it('treats an empty applied.json (crash between create and write) as corrupt', async () => {
    await writeFile(join(dir, 'applied.json'), '');
    const state = await store.load();
    expect(state.problems[0]?.error.reason).toBe('file is empty (torn write?)');
  });

  it('rejects applied.json whose content does not match its checksum', async () => {
    await store.saveApplied(sampleSpec());
    const file = join(dir, 'applied.json');
    const envelope = JSON.parse(await readFile(file, 'utf8'));
    envelope.body.spec.vrf[0].vni = 4242; // bit rot or a hand edit
    await writeFile(file, JSON.stringify(envelope));
    const state = await store.load();
    expect(state.applied).toBeUndefined();
    expect(state.problems[0]?.error.reason).toMatch(
      /^checksum mismatch: file says [0-9a-f]{12}…, content hashes to/,
    );
  });

  it('rejects a checkpoint from an unknown format version', async () => {
    await writeFile(join(dir, 'applied.json'), JSON.stringify({ version: 99, checksum: 'x', body: {} }));
    const state = await store.load();
    expect(state.problems[0]?.error.reason).toBe('unknown format version 99 (this agent reads 1)');
  });

  it('rejects a well-formed record whose spec hash does not match its spec', async () => {
    // Written by hand with a valid checksum, so only the semantic check can catch it.
    const { sha256Hex, canonicalJson } = await import('@nodenet/api');
    const body = {
      revision: sampleSpec().revision,
      spec: sampleSpec(),
      specHash: 'f'.repeat(64),
      savedAt: 'x',
    };
    await writeFile(
      join(dir, 'applied.json'),
      JSON.stringify({ version: 1, checksum: sha256Hex(canonicalJson(body)), body }),
    );
    expect((await store.load()).problems[0]?.error.reason).toBe(
      'field "body.specHash" does not match the spec',
    );
  });

  it('treats a corrupt pending.json as an apply that was cut off (restoring is always safe)', async () => {
    await store.saveApplied(sampleSpec());
    await writeFile(join(dir, 'pending.json'), '{"version":1,');
    const state = await store.load();
    expect(state.applied?.revision).toBe(sampleSpec().revision);
    expect(state.pending).toEqual({ corrupt: true });
    expect(state.problems[0]?.error.path).toBe(join(dir, 'pending.json'));
  });

  it('removes temp files left by a write that was cut off and ignores them', async () => {
    await store.saveApplied(sampleSpec());
    await writeFile(join(dir, 'applied.json.tmp-123-abcd'), '{"half":');
    const state = await store.load();
    expect(state.problems).toEqual([]);
    expect(state.applied?.revision).toBe(sampleSpec().revision);
    expect(await readdir(dir)).toEqual(['applied.json']);
  });

  it('keeps only the newest corrupt copies', async () => {
    const small = new CheckpointStore(dir, { now, keepCorrupt: 2 });
    for (let i = 0; i < 4; i++) {
      await writeFile(join(dir, 'applied.json'), `garbage ${i}`);
      await small.load();
    }
    const copies = (await readdir(dir)).filter((e) => e.startsWith('applied.json.corrupt-')).sort();
    expect(copies).toHaveLength(2);
    expect(await readFile(join(dir, copies[1]!), 'utf8')).toBe('garbage 3');
  });

  it('reports an unreadable applied.json (a directory in its place) without throwing', async () => {
    await mkdir(join(dir, 'applied.json'));
    const state = await store.load();
    expect(state.applied).toBeUndefined();
    expect(state.problems[0]?.error.reason).toMatch(/^cannot read: EISDIR/);
  });

  it('throws a typed error naming the file when a write fails', async () => {
    if (process.getuid?.() === 0) {
      // root ignores directory permissions; make the target path impossible instead.
      const blocked = new CheckpointStore(join(dir, 'file-not-dir'));
      await writeFile(join(dir, 'file-not-dir'), 'x');
      const err = await blocked.saveApplied(sampleSpec()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CheckpointWriteError);
      expect((err as CheckpointWriteError).path).toBe(join(dir, 'file-not-dir', 'applied.json'));
      return;
    }
    await chmod(dir, 0o500);
    const err = await store.saveApplied(sampleSpec()).catch((e: unknown) => e);
    await chmod(dir, 0o700);
    expect(err).toBeInstanceOf(CheckpointWriteError);
    expect((err as Error).message).toMatch(/cannot write checkpoint .*applied\.json: EACCES/);
  });
});
