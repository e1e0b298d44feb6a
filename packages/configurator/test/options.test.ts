import { describe, expect, it } from 'vitest';
import {
  buildProgram,
  DEFAULT_BUDGET,
  DEFAULT_BUILD_TIMING,
  DEFAULT_POLICY,
  resolveOptions,
  type RawOptions,
} from '@nodenet/configurator';
import { OptionError } from '@nodenet/api';

function parse(args: string[]): RawOptions {
  const program = buildProgram().exitOverride();
  program.parse(['node', 'nodenet-configurator', ...args]);
  return program.opts<RawOptions>();
}

/** The error resolving these flags throws: it must name the flag and carry the value. */
function errorOf(args: string[]): OptionError {
  try {
    resolveOptions(parse(args));
  } catch (err) {
    if (err instanceof OptionError) return err;
    throw err;
  }
  throw new Error(`expected ${args.join(' ')} to be refused`);
}

describe('configurator options', () => {
  it('applies the documented defaults', () => {
    expect(resolveOptions(parse([]))).toEqual({
      policy: DEFAULT_POLICY,
      leaderElection: {
        namespace: 'nodenet-system',
        name: 'nodenet-configurator',
        leaseDurationMs: 15_000,
        renewDeadlineMs: 10_000,
        retryPeriodMs: 2_000,
      },
      metricsAddr: { host: '0.0.0.0', port: 8080 },
      healthAddr: { host: '0.0.0.0', port: 8081 },
      logLevel: 'info',
      coalesceMs: 50,
      eventsNamespace: 'default',
      passwordNamespace: 'nodenet-bgp-passwords',
      agentLeaseNamespace: 'nodenet-system',
      shutdownTimeoutMs: 10_000,
      buildTiming: DEFAULT_BUILD_TIMING,
      budget: DEFAULT_BUDGET,
      underlay: { cidrs: [] },
    });
  });

  it('turns every flag into its typed value', () => {
    const o = resolveOptions(
      parse([
        '--kubeconfig=/k/config',
        '--update-limit=25%',
        '--max-failures=2',
        '--preconfig-timeout=1m30s',
        '--config-timeout=45s',
        '--not-ready-timeout=1h',
        '--min-success-time=250ms',
        '--node-selector=role=edge,zone in (a,b)',
        '--wave-label=wave',
        '--revision-history-limit=3',
        '--leader-election-namespace=ops',
        '--leader-election-id=cfg',
        '--leader-election-lease-duration=30s',
        '--leader-election-renew-deadline=20s',
        '--leader-election-retry-period=1s',
        '--metrics-addr=127.0.0.1:9000',
        '--health-addr=[::1]:9001',
        '--log-level=debug',
        '--coalesce-window=10ms',
        '--events-namespace=nodenet-system',
        '--password-namespace=bgp-secrets',
        '--identity=cfg-a',
        '--shutdown-timeout=5s',
        '--build-quiet-period=500ms',
        '--build-max-delay=5s',
        '--max-revision-bytes=1000000',
        '--max-frr-lines=5000',
        '--underlay-cidr=10.1.0.0/16, FD00:1::/64',
        '--allow-default-vrf-peering',
        '--allow-default-route-import',
      ]),
    );
    expect(o).toEqual({
      kubeconfig: '/k/config',
      policy: {
        ...DEFAULT_POLICY,
        updateLimit: { kind: 'percent', percent: 25 },
        maxFailures: 2,
        preconfigTimeoutMs: 90_000,
        configTimeoutMs: 45_000,
        notReadyTimeoutMs: 3_600_000,
        minSuccessTimeMs: 250,
        nodeSelector: {
          matchLabels: { role: 'edge' },
          matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }],
        },
        waveLabel: 'wave',
        revisionHistoryLimit: 3,
      },
      leaderElection: {
        namespace: 'ops',
        name: 'cfg',
        leaseDurationMs: 30_000,
        renewDeadlineMs: 20_000,
        retryPeriodMs: 1_000,
      },
      identity: 'cfg-a',
      metricsAddr: { host: '127.0.0.1', port: 9000 },
      healthAddr: { host: '::1', port: 9001 },
      logLevel: 'debug',
      coalesceMs: 10,
      eventsNamespace: 'nodenet-system',
      passwordNamespace: 'bgp-secrets',
      agentLeaseNamespace: 'nodenet-system',
      shutdownTimeoutMs: 5_000,
      buildTiming: { ...DEFAULT_BUILD_TIMING, quietMs: 500, maxDelayMs: 5000 },
      budget: { maxConfigBytes: 1_000_000, maxFrrLines: 5000 },
      underlay: { cidrs: ['10.1.0.0/16', 'fd00:1::/64'], defaultVrfPeering: true, defaultRouteImport: true },
    });
  });

  it.each([
    [['--update-limit', '0'], '--update-limit', '0'],
    [['--update-limit', '150%'], '--update-limit', '150%'],
    [['--max-failures', '-1'], '--max-failures', '-1'],
    [['--revision-history-limit', '0'], '--revision-history-limit', '0'],
    [['--preconfig-timeout', '10'], '--preconfig-timeout', '10'],
    [['--config-timeout', 'soon'], '--config-timeout', 'soon'],
    // Lower bounds (#23): a timeout of 0 fails a healthy node at once and invalidates a good revision.
    [['--preconfig-timeout', '0'], '--preconfig-timeout', '0'],
    [['--config-timeout', '9s'], '--config-timeout', '9s'],
    [['--not-ready-timeout', '29s'], '--not-ready-timeout', '29s'],
    [['--coalesce-window', '5x'], '--coalesce-window', '5x'],
    [['--node-selector', 'a=(b'], '--node-selector', 'a=(b'],
    [['--metrics-addr', 'localhost'], '--metrics-addr', 'localhost'],
    [['--health-addr', ':70000'], '--health-addr', ':70000'],
    [['--log-level', 'loud'], '--log-level', 'loud'],
    [['--leader-election-id', ''], '--leader-election-id', ''],
    [['--leader-election-renew-deadline', '15s'], '--leader-election-renew-deadline', '15s'],
    [['--leader-election-retry-period', '10s'], '--leader-election-retry-period', '10s'],
    [['--leader-election-retry-period', '0s'], '--leader-election-retry-period', '0s'],
    [['--shutdown-timeout', '0s'], '--shutdown-timeout', '0s'],
    [['--shutdown-timeout', 'later'], '--shutdown-timeout', 'later'],
    [['--build-quiet-period', 'soon'], '--build-quiet-period', 'soon'],
    [['--build-quiet-period', '5s', '--build-max-delay', '1s'], '--build-max-delay', '1s'],
    [['--build-max-delay', '1h'], '--build-max-delay', '1h'],
    [['--max-revision-bytes', '0'], '--max-revision-bytes', '0'],
    [['--max-frr-lines', 'many'], '--max-frr-lines', 'many'],
    [['--underlay-cidr', '10.1.0.1/16'], '--underlay-cidr', '10.1.0.1/16'],
    [['--underlay-cidr', '10.1.0.0/16,nope'], '--underlay-cidr', 'nope'],
  ])('refuses %j naming the flag and the value', (args, flag, value) => {
    const err = errorOf(args);
    expect(err.option).toBe(flag);
    expect(err.code).toBe('InvalidOption');
    expect(err.value).toBe(value);
    expect(err.message).toContain(flag);
    expect(err.message).toContain(JSON.stringify(value));
  });
});
