/**
 * Health-check configuration, read from the YAML file given with `--health-config`.
 *
 * Schema (every section is optional; unknown keys are rejected so a typo is not silently ignored):
 *
 * ```yaml
 * interfaces: [eth0, eth1]        # must be operationally up after an apply
 * tcp:
 *   timeoutMs: 3000               # per connection attempt, 1..60000 (default 3000)
 *   retries: 2                    # extra attempts after the first, 0..10 (default 2: 3 attempts)
 *   retryDelayMs: 200             # pause between attempts, 0..10000 (default 200)
 *   refusedIsReachable: true      # a TCP RST proves the path works (default true, see below)
 *   targets:
 *     - host: 10.0.0.1            # IPv4/IPv6 literal or a DNS name
 *       port: 179                 # 1..65535
 *       name: spine-1             # optional label used in check names and messages
 *       timeoutMs: 1000           # optional per-target overrides of the three settings above
 *       retries: 0
 *       refusedIsReachable: false
 * apiServer:
 *   enabled: true                 # the API server answers on a fresh connection (default true)
 *   timeoutMs: 2000               # default 2000
 *   retries: 1                    # default 1
 * frr:
 *   enabled: true                 # FRR answers (default true)
 *   bgpSessions:                  # sessions that must be Established
 *     - peer: 10.0.0.1            # neighbor address or interface name (unnumbered)
 *       vrf: default              # default "default"
 * startupTaints:                  # taint keys removed from the Node after the first success
 *   - node.nodenet.io/network-unavailable
 * ```
 *
 * Why "connection refused" counts as reachable by default: these checks guard the node's network
 * configuration (routes, VRF leaks, prefix-lists). A RST from the target proves the SYN got there and
 * the answer came back — the network works, only the service is down, and rolling the node back would
 * not fix that. Prior art (das-schiff) made the same choice. A target whose service must actually
 * accept sets `refusedIsReachable: false`.
 */
import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { parse as parseYaml } from 'yaml';
import { describeCause, HealthConfigError } from '../errors.js';

/** Kernel interface names: 1-15 bytes, no '/', ':' or whitespace (kept strict: these reach vtysh output matching). */
const IFNAME = /^[A-Za-z0-9_.-]{1,15}$/;
const HOSTNAME =
  /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const LABEL = /^[A-Za-z0-9._-]{1,63}$/;
const TAINT_KEY =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

export interface TcpTarget {
  host: string;
  port: number;
  name?: string;
  timeoutMs: number;
  retries: number;
  retryDelayMs: number;
  refusedIsReachable: boolean;
}

export interface BgpSessionCheck {
  peer: string;
  vrf: string;
}

export interface HealthConfig {
  interfaces: string[];
  tcp: TcpTarget[];
  apiServer: { enabled: boolean; timeoutMs: number; retries: number };
  frr: { enabled: boolean; bgpSessions: BgpSessionCheck[] };
  startupTaints: string[];
}

export const TCP_DEFAULTS = {
  timeoutMs: 3000,
  retries: 2,
  retryDelayMs: 200,
  refusedIsReachable: true,
} as const;
export const API_SERVER_DEFAULTS = { enabled: true, timeoutMs: 2000, retries: 1 } as const;

/** The configuration used when no file is given: API server and FRR answer, nothing else. */
export const DEFAULT_HEALTH_CONFIG: HealthConfig = parseHealthConfig({});

export async function loadHealthConfig(file: string): Promise<HealthConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    throw new HealthConfigError(file, '(file)', undefined, `cannot read: ${describeCause(cause)}`);
  }
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (cause) {
    throw new HealthConfigError(file, '(file)', undefined, `not valid YAML: ${describeCause(cause)}`);
  }
  return parseHealthConfig(data ?? {}, file);
}

/** Validates parsed YAML; errors name the field path (e.g. `tcp.targets[1].port`) and the value. */
export function parseHealthConfig(data: unknown, file?: string): HealthConfig {
  const fail = (field: string, value: unknown, problem: string): never => {
    throw new HealthConfigError(file, field, value, problem);
  };
  const root = object(data, '(root)', fail, ['interfaces', 'tcp', 'apiServer', 'frr', 'startupTaints']);

  const interfaces = list(root.interfaces, 'interfaces', fail).map((v, i) => {
    const name = `interfaces[${i}]`;
    if (typeof v !== 'string' || !IFNAME.test(v)) {
      fail(name, v, 'must be an interface name (1-15 characters, no "/" or whitespace)');
    }
    return v as string;
  });

  const tcp = parseTcpTargets(root.tcp, fail);

  const api = object(root.apiServer ?? {}, 'apiServer', fail, ['enabled', 'timeoutMs', 'retries']);
  const apiServer = {
    enabled: bool(api.enabled, 'apiServer.enabled', API_SERVER_DEFAULTS.enabled, fail),
    timeoutMs: int(
      api.timeoutMs,
      'apiServer.timeoutMs',
      { min: 1, max: 60_000, dflt: API_SERVER_DEFAULTS.timeoutMs },
      fail,
    ),
    retries: int(
      api.retries,
      'apiServer.retries',
      { min: 0, max: 10, dflt: API_SERVER_DEFAULTS.retries },
      fail,
    ),
  };

  const frr = parseFrrChecks(root.frr, fail);

  const startupTaints = list(root.startupTaints, 'startupTaints', fail).map((v, i) => {
    if (typeof v !== 'string' || !TAINT_KEY.test(v)) {
      fail(`startupTaints[${i}]`, v, 'must be a taint key ([prefix/]name, e.g. node.nodenet.io/unready)');
    }
    return v as string;
  });

  return { interfaces, tcp, apiServer, frr, startupTaints };
}

/** `tcp`: the defaults it sets and the targets, each target's settings falling back to them. */
function parseTcpTargets(raw: unknown, fail: Fail): TcpTarget[] {
  const tcpRaw = object(raw ?? {}, 'tcp', fail, [
    'timeoutMs',
    'retries',
    'retryDelayMs',
    'refusedIsReachable',
    'targets',
  ]);
  const tcpDefaults = {
    timeoutMs: int(
      tcpRaw.timeoutMs,
      'tcp.timeoutMs',
      { min: 1, max: 60_000, dflt: TCP_DEFAULTS.timeoutMs },
      fail,
    ),
    retries: int(tcpRaw.retries, 'tcp.retries', { min: 0, max: 10, dflt: TCP_DEFAULTS.retries }, fail),
    retryDelayMs: int(
      tcpRaw.retryDelayMs,
      'tcp.retryDelayMs',
      { min: 0, max: 10_000, dflt: TCP_DEFAULTS.retryDelayMs },
      fail,
    ),
    refusedIsReachable: bool(
      tcpRaw.refusedIsReachable,
      'tcp.refusedIsReachable',
      TCP_DEFAULTS.refusedIsReachable,
      fail,
    ),
  };
  const tcp = list(tcpRaw.targets, 'tcp.targets', fail).map((raw, i): TcpTarget => {
    const at = `tcp.targets[${i}]`;
    const t = object(raw, at, fail, [
      'host',
      'port',
      'name',
      'timeoutMs',
      'retries',
      'retryDelayMs',
      'refusedIsReachable',
    ]);
    if (typeof t.host !== 'string' || !(isIP(t.host) || HOSTNAME.test(t.host))) {
      fail(`${at}.host`, t.host, 'must be an IP address or a DNS name');
    }
    if (t.port === undefined) fail(`${at}.port`, undefined, 'is required');
    const target: TcpTarget = {
      host: t.host,
      port: int(t.port, `${at}.port`, { min: 1, max: 65_535, dflt: 0 }, fail),
      timeoutMs: int(
        t.timeoutMs,
        `${at}.timeoutMs`,
        { min: 1, max: 60_000, dflt: tcpDefaults.timeoutMs },
        fail,
      ),
      retries: int(t.retries, `${at}.retries`, { min: 0, max: 10, dflt: tcpDefaults.retries }, fail),
      retryDelayMs: int(
        t.retryDelayMs,
        `${at}.retryDelayMs`,
        { min: 0, max: 10_000, dflt: tcpDefaults.retryDelayMs },
        fail,
      ),
      refusedIsReachable: bool(
        t.refusedIsReachable,
        `${at}.refusedIsReachable`,
        tcpDefaults.refusedIsReachable,
        fail,
      ),
    };
    if (t.name !== undefined) {
      if (typeof t.name !== 'string' || !LABEL.test(t.name))
        fail(`${at}.name`, t.name, 'must match [A-Za-z0-9._-]{1,63}');
      target.name = t.name;
    }
    return target;
  });
  return tcp;
}

/** `frr`: whether FRR is checked, and which BGP sessions must be established. */
function parseFrrChecks(raw: unknown, fail: Fail): HealthConfig['frr'] {
  const frrRaw = object(raw ?? {}, 'frr', fail, ['enabled', 'bgpSessions']);
  const bgpSessions = list(frrRaw.bgpSessions, 'frr.bgpSessions', fail).map((raw, i): BgpSessionCheck => {
    const at = `frr.bgpSessions[${i}]`;
    const s = object(raw, at, fail, ['peer', 'vrf']);
    if (typeof s.peer !== 'string' || !(isIP(s.peer) || IFNAME.test(s.peer))) {
      fail(`${at}.peer`, s.peer, 'must be an IP address or an interface name');
    }
    const vrf = s.vrf ?? 'default';
    if (typeof vrf !== 'string' || !IFNAME.test(vrf)) fail(`${at}.vrf`, vrf, 'must be a VRF name');
    return { peer: s.peer, vrf: vrf };
  });
  const frrEnabled = bool(frrRaw.enabled, 'frr.enabled', true, fail);
  if (!frrEnabled && bgpSessions.length > 0) {
    fail('frr.bgpSessions', bgpSessions.length, 'cannot be checked with frr.enabled: false');
  }
  return { enabled: frrEnabled, bgpSessions };
}

type Fail = (field: string, value: unknown, problem: string) => never;

function object(value: unknown, field: string, fail: Fail, keys: string[]): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return fail(field, value, 'must be a mapping');
  for (const key of Object.keys(value)) {
    if (!keys.includes(key)) {
      fail(
        field === '(root)' ? key : `${field}.${key}`,
        undefined,
        `unknown field (allowed: ${keys.join(', ')})`,
      );
    }
  }
  return value as Record<string, unknown>;
}

function list(value: unknown, field: string, fail: Fail): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return fail(field, value, 'must be a list');
  return value;
}

function int(
  value: unknown,
  field: string,
  range: { min: number; max: number; dflt: number },
  fail: Fail,
): number {
  const { min, max, dflt } = range;
  if (value === undefined) return dflt;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    return fail(field, value, `must be an integer from ${min} to ${max}`);
  }
  return value;
}

function bool(value: unknown, field: string, dflt: boolean, fail: Fail): boolean {
  if (value === undefined) return dflt;
  if (typeof value !== 'boolean') return fail(field, value, 'must be true or false');
  return value;
}
