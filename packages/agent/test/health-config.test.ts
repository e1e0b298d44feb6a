import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HealthConfigError,
  DEFAULT_HEALTH_CONFIG,
  loadHealthConfig,
  parseHealthConfig,
} from '@nodenet/agent';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nodenet-health-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function errorOf(data: unknown): HealthConfigError {
  try {
    parseHealthConfig(data, 'health.yaml');
  } catch (err) {
    expect(err).toBeInstanceOf(HealthConfigError);
    return err as HealthConfigError;
  }
  throw new Error('expected a HealthConfigError');
}

describe('health config', () => {
  it('defaults to API server and FRR checks only', () => {
    expect(DEFAULT_HEALTH_CONFIG).toEqual({
      interfaces: [],
      tcp: [],
      apiServer: { enabled: true, timeoutMs: 2000, retries: 1 },
      frr: { enabled: true, bgpSessions: [] },
      startupTaints: [],
    });
  });

  it('loads a full YAML file, applying section defaults to targets', async () => {
    const file = join(dir, 'full.yaml');
    await writeFile(
      file,
      [
        'interfaces: [eth0, lo]',
        'tcp:',
        '  timeoutMs: 1000',
        '  retries: 1',
        '  targets:',
        '    - { host: 10.0.0.1, port: 179, name: spine-1 }',
        '    - { host: "fd00::1", port: 6443, retries: 0, refusedIsReachable: false }',
        'apiServer: { timeoutMs: 500 }',
        'frr:',
        '  bgpSessions: [{ peer: 10.0.0.1 }, { peer: eth1, vrf: vr.blue }]',
        'startupTaints: [node.nodenet.io/network-unavailable]',
      ].join('\n'),
    );
    expect(await loadHealthConfig(file)).toEqual({
      interfaces: ['eth0', 'lo'],
      tcp: [
        {
          host: '10.0.0.1',
          port: 179,
          name: 'spine-1',
          timeoutMs: 1000,
          retries: 1,
          retryDelayMs: 200,
          refusedIsReachable: true,
        },
        {
          host: 'fd00::1',
          port: 6443,
          timeoutMs: 1000,
          retries: 0,
          retryDelayMs: 200,
          refusedIsReachable: false,
        },
      ],
      apiServer: { enabled: true, timeoutMs: 500, retries: 1 },
      frr: {
        enabled: true,
        bgpSessions: [
          { peer: '10.0.0.1', vrf: 'default' },
          { peer: 'eth1', vrf: 'vr.blue' },
        ],
      },
      startupTaints: ['node.nodenet.io/network-unavailable'],
    });
  });

  it('treats an empty file as the defaults', async () => {
    const file = join(dir, 'empty.yaml');
    await writeFile(file, '');
    expect(await loadHealthConfig(file)).toEqual(DEFAULT_HEALTH_CONFIG);
  });

  it('names the field and the value of a bad port', () => {
    const err = errorOf({
      tcp: {
        targets: [
          { host: 'a', port: 1 },
          { host: 'b', port: 70000 },
        ],
      },
    });
    expect(err.field).toBe('tcp.targets[1].port');
    expect(err.message).toBe(
      'health.yaml: tcp.targets[1].port: must be an integer from 1 to 65535 (got 70000)',
    );
  });

  it('requires a port', () => {
    expect(errorOf({ tcp: { targets: [{ host: '10.0.0.1' }] } }).message).toBe(
      'health.yaml: tcp.targets[0].port: is required',
    );
  });

  it('rejects a host that is neither an address nor a DNS name', () => {
    const err = errorOf({ tcp: { targets: [{ host: 'a b;rm', port: 1 }] } });
    expect(err.field).toBe('tcp.targets[0].host');
    expect(err.value).toBe('a b;rm');
  });

  it('rejects unknown keys, naming them (catches typos such as "retry")', () => {
    expect(errorOf({ tcp: { retry: 3 } }).message).toBe(
      'health.yaml: tcp.retry: unknown field (allowed: timeoutMs, retries, retryDelayMs, refusedIsReachable, targets)',
    );
    expect(errorOf({ interface: ['eth0'] }).field).toBe('interface');
  });

  it('rejects a bad interface name', () => {
    const err = errorOf({ interfaces: ['eth0', 'much-too-long-name0'] });
    expect(err.field).toBe('interfaces[1]');
  });

  it('rejects wrong types with the field named', () => {
    expect(errorOf({ interfaces: 'eth0' }).message).toBe(
      'health.yaml: interfaces: must be a list (got "eth0")',
    );
    expect(errorOf({ apiServer: { enabled: 'yes' } }).field).toBe('apiServer.enabled');
    expect(errorOf({ tcp: { timeoutMs: 0 } }).field).toBe('tcp.timeoutMs');
    expect(errorOf([]).field).toBe('(root)');
  });

  it('rejects BGP session checks when FRR checks are disabled', () => {
    expect(errorOf({ frr: { enabled: false, bgpSessions: [{ peer: '10.0.0.1' }] } }).field).toBe(
      'frr.bgpSessions',
    );
  });

  it('rejects a bad taint key', () => {
    expect(errorOf({ startupTaints: ['bad key'] }).field).toBe('startupTaints[0]');
  });

  it('reports unreadable files and invalid YAML with the file name', async () => {
    await expect(loadHealthConfig(join(dir, 'missing.yaml'))).rejects.toThrow(
      /missing\.yaml: \(file\): cannot read: ENOENT/,
    );
    const bad = join(dir, 'bad.yaml');
    await writeFile(bad, 'tcp: [unclosed');
    await expect(loadHealthConfig(bad)).rejects.toThrow(/bad\.yaml: \(file\): not valid YAML/);
  });
});
