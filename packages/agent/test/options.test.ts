import { describe, expect, it } from 'vitest';
import { OptionError, DEFAULT_CONFIRM, buildProgram, resolveOptions, type RawOptions } from '@nodenet/agent';

function parse(args: string[], env: Record<string, string> = {}): RawOptions {
  const saved = process.env.NODE_NAME;
  if (env.NODE_NAME) process.env.NODE_NAME = env.NODE_NAME;
  else delete process.env.NODE_NAME;
  try {
    const program = buildProgram().exitOverride();
    program.parse(['node', 'nodenet-agent', ...args]);
    return program.opts<RawOptions>();
  } finally {
    if (saved === undefined) delete process.env.NODE_NAME;
    else process.env.NODE_NAME = saved;
  }
}

const minimal = [
  '--node-name',
  'node-1',
  '--asn',
  '65001',
  '--router-id',
  '10.0.0.9',
  '--frr-template',
  '/etc/nodenet/frr.tmpl',
  '--vtep-interface',
  'eth0',
];

function errorOf(args: string[]): OptionError {
  try {
    resolveOptions(parse(args));
  } catch (err) {
    expect(err).toBeInstanceOf(OptionError);
    return err as OptionError;
  }
  throw new Error('expected an OptionError');
}

describe('agent options', () => {
  it('applies the documented defaults', () => {
    expect(resolveOptions(parse(minimal))).toEqual({
      nodeName: 'node-1',
      stateDir: '/var/lib/nodenet',
      passwordNamespace: 'nodenet-bgp-passwords',
      leaseNamespace: 'nodenet-system',
      frr: {
        template: '/etc/nodenet/frr.tmpl',
        confdir: '/etc/frr',
        reloadCommand: ['/usr/lib/frr/frr-reload.py'],
        bindir: '/usr/bin',
        asn: 65001,
        routerId: '10.0.0.9',
      },
      vtepInterface: 'eth0',
      resyncMs: 60_000,
      shutdownTimeoutMs: 280_000,
      confirm: DEFAULT_CONFIRM,
      heartbeatMs: 150_000,
      observeMs: 10_000,
      l3vniTimeoutMs: 30_000,
      metricsAddr: { host: '0.0.0.0', port: 9462 },
      healthAddr: { host: '0.0.0.0', port: 9463 },
      logLevel: 'info',
    });
  });

  it('takes the node name from NODE_NAME', () => {
    const args = minimal.slice(2);
    expect(resolveOptions(parse(args, { NODE_NAME: 'node-7' })).nodeName).toBe('node-7');
  });

  it('parses every FRR option', () => {
    const options = resolveOptions(
      parse([
        ...minimal,
        '--frr-config',
        '/run/n1/frr/frr.conf',
        '--frr-reload-cmd',
        'python3 /usr/lib/frr/frr-reload.py',
        '--frr-pathspace',
        'n1',
        '--frr-bindir',
        '/opt/frr/bin',
        '--frr-rundir',
        '/run/n1/frr',
        '--router-id',
        '10.0.0.1',
        '--vtep-address',
        '10.0.0.1',
        '--resync-period',
        '1m30s',
        '--metrics-addr',
        '127.0.0.1:0',
        '--health-addr',
        '127.0.0.1:0',
        '--log-level',
        'debug',
        '--state-dir',
        '/tmp/state',
        '--health-config',
        '/etc/nodenet/health.yaml',
        '--kubeconfig',
        '/tmp/kc',
      ]),
    );
    expect(options.frr).toEqual({
      template: '/etc/nodenet/frr.tmpl',
      confdir: '/run/n1/frr',
      reloadCommand: ['python3', '/usr/lib/frr/frr-reload.py'],
      pathspace: 'n1',
      bindir: '/opt/frr/bin',
      rundir: '/run/n1/frr',
      asn: 65001,
      routerId: '10.0.0.1',
    });
    expect(options).toMatchObject({
      vtepAddress: '10.0.0.1',
      resyncMs: 90_000,
      logLevel: 'debug',
      stateDir: '/tmp/state',
      healthConfig: '/etc/nodenet/health.yaml',
      kubeconfig: '/tmp/kc',
    });
  });

  it('names the option and value of every bad input', () => {
    expect(errorOf(minimal.slice(2)).message).toBe('--node-name (or NODE_NAME): is required (got undefined)');
    expect(errorOf(['--node-name', 'Node_1', ...minimal.slice(2)]).option).toBe('--node-name');
    expect(errorOf([...minimal, '--asn', '0']).message).toBe(
      '--asn: must be an integer from 1 to 4294967295 (got "0")',
    );
    expect(errorOf([...minimal, '--asn', '65001x']).option).toBe('--asn');
    expect(errorOf([...minimal, '--router-id', '10.0.0']).option).toBe('--router-id');
    expect(errorOf(minimal.filter((a) => a !== '--router-id' && a !== '10.0.0.9')).message).toBe(
      '--router-id: is required (got undefined)',
    );
    expect(errorOf([...minimal, '--vrf-router-id', '10.0.0.9']).message).toBe(
      '--vrf-router-id: must differ from --router-id (got "10.0.0.9")',
    );
    expect(errorOf([...minimal, '--vrf-router-id', '10.0.0.300']).option).toBe('--vrf-router-id');
    expect(errorOf([...minimal, '--vtep-interface', 'eth0; reboot']).option).toBe('--vtep-interface');
    expect(errorOf([...minimal, '--frr-config', '/etc/frr/other.conf']).message).toMatch(
      /^--frr-config: must be named frr\.conf/,
    );
    expect(errorOf([...minimal, '--frr-confdir', 'relative']).message).toBe(
      '--frr-confdir: must be an absolute path (got "relative")',
    );
    expect(errorOf([...minimal, '--frr-pathspace', 'a/b']).option).toBe('--frr-pathspace');
    expect(errorOf([...minimal, '--resync-period', '500ms']).message).toBe(
      '--resync-period: must be at least 1s (got "500ms")',
    );
    expect(errorOf([...minimal, '--metrics-addr', 'localhost']).option).toBe('--metrics-addr');
  });

  it('--help explains every option and the test-only fault hook', () => {
    let help = '';
    const program = buildProgram()
      .exitOverride()
      .configureOutput({ writeOut: (text) => void (help += text) });
    expect(() => program.parse(['node', 'nodenet-agent', '--help'])).toThrow();
    for (const flag of [
      '--kubeconfig',
      '--node-name',
      '--state-dir',
      '--health-config',
      '--frr-template',
      '--frr-config',
      '--frr-reload-cmd',
      '--frr-pathspace',
      '--frr-bindir',
      '--frr-confdir',
      '--frr-rundir',
      '--asn',
      '--router-id',
      '--vrf-router-id',
      '--vtep-interface',
      '--resync-period',
      '--confirm-window',
      '--confirm-interval',
      '--confirm-unreachable-limit',
      '--heartbeat-interval',
      '--metrics-addr',
      '--health-addr',
      '--log-level',
    ]) {
      expect(help).toContain(flag);
    }
    expect(help).toContain('(env: NODE_NAME)');
    expect(help).toContain(
      'Test only: NODENET_FAULT_AT=<after-pending|after-netlink|after-frr|after-health|after-applied|after-rejected>',
    );
    expect(help.replace(/\s+/g, ' ')).toMatch(/outlasts the BGP hold time .*180 s/);
  });

  it('parses the confirm window and heartbeat, naming a bad value', () => {
    const o = resolveOptions(
      parse([
        ...minimal,
        '--confirm-window',
        '20s',
        '--confirm-interval',
        '500ms',
        '--confirm-unreachable-limit',
        '6s',
        '--heartbeat-interval',
        '0s',
      ]),
    );
    expect(o.confirm).toEqual({ windowMs: 20_000, intervalMs: 500, unreachableLimitMs: 6000 });
    expect(o.heartbeatMs).toBe(0);
    expect(() => resolveOptions(parse([...minimal, '--confirm-window', 'soon']))).toThrow(
      /^--confirm-window: must be a duration .*\(got "soon"\)/,
    );
    expect(() => resolveOptions(parse([...minimal, '--heartbeat-interval', '10ms']))).toThrow(
      /^--heartbeat-interval: must be 0s or at least 1s/,
    );
  });

  it('checks the confirm options together: the unreachable limit must be shorter than the window', () => {
    const with_ = (window: string, limit: string) =>
      resolveOptions(parse([...minimal, '--confirm-window', window, '--confirm-unreachable-limit', limit]));
    // The case: a 4 s window with a 6 s limit confirmed a node cut off for the whole window.
    expect(() => with_('4s', '6s')).toThrow(
      '--confirm-unreachable-limit: must be shorter than --confirm-window 4s: an API server unreachable from the start of the window must be judged (reverted) within the window, not only after it ended; lengthen --confirm-window or shorten --confirm-unreachable-limit (got "6s")',
    );
    expect(() => with_('30s', '30s')).toThrow(
      /^--confirm-unreachable-limit: must be shorter than --confirm-window 30s/,
    );
    // The default limit (30s) with a 30s window, as --help used to recommend, is refused too.
    expect(() => resolveOptions(parse([...minimal, '--confirm-window', '30s']))).toThrow(
      /^--confirm-unreachable-limit: must be shorter than --confirm-window 30s: .*\(got "30s"\)$/,
    );
    expect(with_('8s', '6s').confirm).toMatchObject({ windowMs: 8000, unreachableLimitMs: 6000 });
    // Either one 0: nothing to compare (no window; or any failed probe fails the window at once).
    expect(with_('0s', '30s').confirm.windowMs).toBe(0);
    expect(with_('10s', '0s').confirm.unreachableLimitMs).toBe(0);
  });

  it('--help says what a 30 s window covers and what it does not', () => {
    const help = buildProgram().helpInformation().replace(/\s+/g, ' ');
    expect(help).toMatch(
      /A 30s window covers a change that cuts the node off, or breaks a check, within 30 s/,
    );
    expect(help).toMatch(/It does not cover a session whose hold timer is longer than the window/);
    expect(help).toMatch(/never ends while the last API-server probe failed/);
  });

  it('parses the observe interval (0s turns observation off), naming a bad value', () => {
    expect(resolveOptions(parse([...minimal, '--observe-interval', '3s'])).observeMs).toBe(3000);
    expect(resolveOptions(parse([...minimal, '--observe-interval', '0s'])).observeMs).toBe(0);
    expect(() => resolveOptions(parse([...minimal, '--observe-interval', '200ms']))).toThrow(
      /^--observe-interval: must be 0s or at least 1s/,
    );
  });

  it('takes the L3 VNI wait bound as a duration of at least 1s', () => {
    expect(resolveOptions(parse([...minimal, '--l3vni-timeout', '2m'])).l3vniTimeoutMs).toBe(120_000);
    expect(() => resolveOptions(parse([...minimal, '--l3vni-timeout', '100ms']))).toThrow(
      /^--l3vni-timeout: must be at least 1s/,
    );
  });
});
