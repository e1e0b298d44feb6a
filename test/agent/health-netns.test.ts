/**
 * Health checks in a real network namespace: interface state read over netlink from the kernel,
 * TCP targets without a route and behind a dead neighbour.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describePrivileged } from '../support/privileged.js';

const NS = `nnag-h${process.pid % 100000}`;
const ip = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe' });
const tsx = join(process.cwd(), 'node_modules', '.bin', 'tsx');
let dir: string;

function runHealth(yaml: string): { name: string; ok: boolean; detail: string }[] {
  const file = join(dir, `h${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, yaml);
  const out = execFileSync('ip', ['netns', 'exec', NS, tsx, join(__dirname, 'run-health.ts'), file], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  return JSON.parse(out);
}

describePrivileged('agent health checks in a network namespace', { root: true, commands: ['ip'] }, () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'nodenet-hns-'));
    ip('netns', 'add', NS);
    // veth pair inside the namespace: nnup is up with its peer up, nnhalf is up but its peer is down.
    ip('-n', NS, 'link', 'add', 'nnup', 'type', 'veth', 'peer', 'name', 'nnup-p');
    ip('-n', NS, 'link', 'add', 'nnhalf', 'type', 'veth', 'peer', 'name', 'nnhalf-p');
    for (const dev of ['nnup', 'nnup-p', 'nnhalf']) ip('-n', NS, 'link', 'set', dev, 'up');
    ip('-n', NS, 'addr', 'add', '10.77.0.1/24', 'dev', 'nnup');
  });
  afterAll(() => {
    try {
      ip('netns', 'del', NS);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports interfaces by their kernel state: up, no carrier, down, missing', () => {
    const results = runHealth(
      'interfaces: [nnup, nnhalf, lo, nnnone]\napiServer: {enabled: false}\nfrr: {enabled: false}\n',
    );
    expect(results.map((r) => [r.name, r.ok])).toEqual([
      ['interface/nnup', true],
      ['interface/nnhalf', false],
      ['interface/lo', false], // a fresh namespace's loopback is down
      ['interface/nnnone', false],
    ]);
    expect(results[1]?.detail).toBe('operstate lowerlayerdown (UP,no-carrier)');
    expect(results[2]?.detail).toBe('operstate down (down,no-carrier)');
  });

  it('fails a TCP target without a route, and one behind a neighbour that never answers', () => {
    const results = runHealth(
      [
        'apiServer: {enabled: false}',
        'frr: {enabled: false}',
        'tcp:',
        '  retries: 1',
        '  retryDelayMs: 10',
        '  targets:',
        '    - {host: 203.0.113.1, port: 179, name: noroute}',
        '    - {host: 10.77.0.2, port: 179, name: silent, timeoutMs: 300}',
      ].join('\n'),
    );
    expect(results).toEqual([
      { name: 'tcp/noroute', ok: false, detail: 'ENETUNREACH after 2 attempt(s)' },
      { name: 'tcp/silent', ok: false, detail: 'no answer within 300 ms after 2 attempt(s)' },
    ]);
  });
});
