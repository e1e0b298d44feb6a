/**
 * `npm start -- --once`: the local demo plays its story to the end and every step happens; it leaves
 * no process, network namespace or temporary file behind. Run as a user would (npm start, which
 * builds first). With root, iproute2 and FRR (always in CI) the automatic choice is real agents; the
 * simulated path is run explicitly as well.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { inCI, missingPrerequisites } from '../support/privileged.js';
import { FRR_PREREQUISITES } from '@nodenet/testkit';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const STEPS = [
  /^▶ good change \(examples\/layer2-networks\.yaml\): its revision reaches all 4 nodes, at most 1 in progress at a time$/,
  /^▶ each node got the networks its labels select \(storage only on rack r2\)$/,
  /^▶ bad change \(examples\/bad-change\.yaml\): its revision fails on node-1, is marked invalid and the rollout halts$/,
  /^▶ node-1 is rolled back to the good revision$/,
  /^▶ node-2, node-3, node-4 never received the bad revision and still run the good one$/,
  /^▶ kubectl nodenet status reports the halt and what happens next$/,
];

async function playOnce(extra: string[]): Promise<{ code: number; lines: string[]; out: string }> {
  const r = await execa('npm', ['start', '--silent', '--', '--once', ...extra], {
    cwd: ROOT,
    reject: false,
    all: true,
    timeout: 8 * 60_000,
    env: { NO_COLOR: '1' },
  });
  const out = r.all ?? '';
  return { code: r.exitCode ?? -1, lines: out.split('\n'), out };
}

/** Every step printed in order, each followed by its ✔ line; nothing left behind. */
async function expectStoryAndCleanUp(run: { code: number; lines: string[]; out: string }): Promise<void> {
  const { lines, out } = run;
  const starts = lines.map((l, i) => [l, i] as const).filter(([l]) => l.startsWith('▶ '));
  expect(
    starts.map(([l]) => l),
    out,
  ).toHaveLength(STEPS.length);
  starts.forEach(([line, i], k) => {
    expect(line).toMatch(STEPS[k]!);
    const result = lines.slice(i + 1).find((l) => /^ {2}[✔✘] /.test(l));
    expect(result, `${line}\n${out}`).toMatch(/^ {2}✔ /);
  });
  expect(out).toContain('story: every step happened');
  expect(out).toContain('demo stopped; everything it created is removed');
  expect(run.code, out).toBe(0);
  expectLogsKept(out);

  const kubeconfig = /^kubeconfig: (\S+)$/m.exec(out)?.[1];
  expect(kubeconfig).toBeDefined();
  expect(existsSync(path.dirname(kubeconfig!))).toBe(false);
  const leftover = await execa('pgrep', ['-f', path.dirname(kubeconfig!)], { reject: false });
  expect(leftover.stdout).toBe('');
  const namespaces = [...out.matchAll(/^ip netns exec (\S+) /gm)].map((m) => m[1]!);
  if (namespaces.length > 0) {
    const list = (await execa('ip', ['netns', 'list'])).stdout;
    for (const ns of namespaces) expect(list).not.toContain(ns);
  }
}

/** The exit line names the log folder, which is still there with the configurator's log. */
function expectLogsKept(out: string): void {
  const logs = /; logs kept: (\S+)$/m.exec(out)?.[1];
  expect(logs, out).toBeDefined();
  expect(existsSync(path.resolve(ROOT, logs!, 'configurator.log')), out).toBe(true);
}

describe('npm start -- --once (local demo)', () => {
  it('plays the story with the automatically chosen agents, says which and why, and cleans up', async () => {
    const run = await playOnce([]);
    const realPossible = missingPrerequisites(FRR_PREREQUISITES).length === 0;
    if (inCI() && process.getuid?.() === 0)
      expect(realPossible, 'CI runs as root with FRR installed').toBe(true);
    expect(run.out).toMatch(
      realPossible
        ? /^agents: real nodenet-agent processes, one network namespace and FRR instance per node \(running as root with iproute2 and FRR installed\)$/m
        : /^agents: simulated \(real agents need root, iproute2 and FRR: missing .+\)$/m,
    );
    if (realPossible) expect(run.out).toContain('  ✔ host checked: l2.100 present, l2.200 gone');
    await expectStoryAndCleanUp(run);
  }, 480_000);

  it('plays the story with simulated agents (--agents simulated)', async () => {
    const run = await playOnce(['--agents', 'simulated']);
    expect(run.out).toMatch(/^agents: simulated \(asked for with --agents simulated\)$/m);
    await expectStoryAndCleanUp(run);
  }, 480_000);

  it('stops and cleans up on SIGINT sent to the npm process alone (as a supervisor or `kill` does)', async () => {
    const child = execa('npm', ['start', '--silent', '--', '--agents', 'simulated'], {
      cwd: ROOT,
      reject: false,
      all: true,
      timeout: 8 * 60_000,
      env: { NO_COLOR: '1' },
    });
    let out = '';
    await new Promise<void>((resolve, reject) => {
      child.all!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('Running until Ctrl-C')) resolve();
      });
      void child.then(() => reject(new Error(`demo exited before it was running:\n${out}`)));
    });
    const logDir = /^logs: (\S+) /m.exec(out)?.[1];
    expect(logDir, out).toBeDefined();
    expect(existsSync(path.resolve(ROOT, logDir!)), 'the log folder exists while the demo runs').toBe(true);
    child.kill('SIGINT'); // the npm process only, not its process group
    const stopped = await Promise.race([child, new Promise((r) => setTimeout(r, 60_000, 'timeout'))]);
    if (stopped === 'timeout') {
      // Today's bug: npm's shell got the signal and the demo kept running; stop it so nothing leaks.
      await execa('pkill', ['-INT', '-f', 'demo/main.ts --agents simulated'], { reject: false });
      throw new Error(`the demo did not stop within 60 s of SIGINT to npm:\n${out}`);
    }
    const done = await child;
    const all = done.all ?? '';
    expect(all).toContain('demo stopped; everything it created is removed');
    const kubeconfig = /^kubeconfig: (\S+)$/m.exec(all)?.[1];
    expect(kubeconfig, all).toBeDefined();
    expect(existsSync(path.dirname(kubeconfig!))).toBe(false);
    expectLogsKept(all);
    expect(path.resolve(ROOT, /; logs kept: (\S+)$/m.exec(all)![1]!)).toBe(path.resolve(ROOT, logDir!));
    const leftover = await execa('pgrep', ['-f', path.dirname(kubeconfig!)], { reject: false });
    expect(leftover.stdout).toBe('');
  }, 480_000);
});
