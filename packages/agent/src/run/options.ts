/**
 * Command-line options of `nodenet-agent`: the commander program (flags.ts, with the `--help` text) and the
 * pure validation that turns raw option values into an `AgentOptions` object. Bad values fail with
 * an `OptionError` naming the option and the value.
 */
import { basename, dirname, isAbsolute } from 'node:path';
import { isIPv4 } from 'node:net';
import type { ConfirmSettings } from '../apply/index.js';
import { OptionError } from '../errors.js';
import { DEFAULTS } from './defaults.js';
import { parseDuration, parseListenAddress, parseLogLevel, type ListenAddress } from '@nodenet/kube';

export interface AgentOptions {
  kubeconfig?: string;
  nodeName: string;
  stateDir: string;
  /** Namespace of the BGP password Secrets (secrets/password-book.ts). */
  passwordNamespace: string;
  /** Namespace of the node's liveness Lease (status/lease.ts). */
  leaseNamespace: string;
  healthConfig?: string;
  frr: {
    /** The bootstrap template file (for nodes no AgentConfiguration selects); absent: none. */
    template?: string;
    confdir: string;
    reloadCommand: string[];
    pathspace?: string;
    bindir: string;
    rundir?: string;
    asn: number;
    /** Router id of the default BGP instance. */
    routerId: string;
    /** Router id of the per-VRF instances; undefined: the VTEP address. */
    vrfRouterId?: string;
  };
  vtepInterface: string;
  vtepAddress?: string;
  resyncMs: number;
  confirm: ConfirmSettings;
  heartbeatMs: number;
  /** FRR's observed state: read period and least time between writes (0: FRR not read). */
  observeMs: number;
  /** How long FRR may take to show a new L3 VNI as its VRF's before the apply fails. */
  l3vniTimeoutMs: number;
  metricsAddr: ListenAddress;
  healthAddr: ListenAddress;
  logLevel: string;
  /** SIGTERM: everything stops within this (shutdown.ts); exit 1 when something was cut short. */
  shutdownTimeoutMs: number;
}

export { buildProgram } from './flags.js';

export interface RawOptions {
  kubeconfig?: string;
  nodeName?: string;
  stateDir: string;
  passwordNamespace?: string;
  leaseNamespace?: string;
  healthConfig?: string;
  frrTemplate?: string;
  frrConfig?: string;
  frrConfdir: string;
  frrReloadCmd: string;
  frrPathspace?: string;
  frrBindir: string;
  frrRundir?: string;
  asn?: string;
  routerId?: string;
  vrfRouterId?: string;
  vtepInterface?: string;
  vtepAddress?: string;
  resyncPeriod: string;
  confirmWindow?: string;
  confirmInterval?: string;
  confirmUnreachableLimit?: string;
  heartbeatInterval?: string;
  observeInterval?: string;
  l3vniTimeout?: string;
  metricsAddr: string;
  healthAddr: string;
  logLevel: string;
  shutdownTimeout?: string;
}

const NODE_NAME = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const IFNAME = /^[A-Za-z0-9_.-]{1,15}$/;

export function resolveOptions(raw: RawOptions): AgentOptions {
  const nodeName = nodeNameOption(raw.nodeName);
  const frr = frrOptions(raw);
  const vtepInterface = required('--vtep-interface', raw.vtepInterface);
  if (!IFNAME.test(vtepInterface))
    throw new OptionError('--vtep-interface', vtepInterface, 'must be an interface name');
  if (raw.vtepAddress !== undefined && !isIPv4(raw.vtepAddress))
    throw new OptionError('--vtep-address', raw.vtepAddress, 'must be an IPv4 address');
  const durations = durationOptions(withDefaults(raw));
  const logLevel = parseLogLevel('--log-level', raw.logLevel);
  const options: AgentOptions = {
    nodeName,
    stateDir: absolute('--state-dir', raw.stateDir),
    passwordNamespace: raw.passwordNamespace || DEFAULTS.passwordNamespace,
    leaseNamespace: raw.leaseNamespace || DEFAULTS.leaseNamespace,
    frr: {
      ...(raw.frrTemplate !== undefined && raw.frrTemplate !== '' ? { template: raw.frrTemplate } : {}),
      ...frr,
      ...frrDirectories(raw),
    },
    vtepInterface,
    ...durations,
    metricsAddr: parseListenAddress('--metrics-addr', raw.metricsAddr),
    healthAddr: parseListenAddress('--health-addr', raw.healthAddr),
    logLevel,
  };
  if (raw.kubeconfig !== undefined) options.kubeconfig = raw.kubeconfig;
  if (raw.healthConfig !== undefined) options.healthConfig = raw.healthConfig;
  if (raw.vtepAddress !== undefined) options.vtepAddress = raw.vtepAddress;
  return options;
}

/** The flags with a default, as given or else their default (a caller may pass raw values without commander's defaults). */
type WithDefaults = RawOptions & { -readonly [K in keyof typeof DEFAULTS]: string };

function withDefaults(raw: RawOptions): WithDefaults {
  const out: WithDefaults = { ...DEFAULTS, ...raw };
  for (const key of Object.keys(DEFAULTS) as (keyof typeof DEFAULTS)[]) out[key] = raw[key] ?? DEFAULTS[key];
  return out;
}

const required = (option: string, value: string | undefined): string => {
  if (value === undefined || value === '') throw new OptionError(option, value, 'is required');
  return value;
};

const absolute = (option: string, value: string): string => {
  if (!isAbsolute(value)) throw new OptionError(option, value, 'must be an absolute path');
  return value;
};

function nodeNameOption(value: string | undefined): string {
  const nodeName = required('--node-name (or NODE_NAME)', value);
  if (!NODE_NAME.test(nodeName))
    throw new OptionError('--node-name', nodeName, 'must be a DNS subdomain (a Node name)');
  return nodeName;
}

/** FRR's configuration directory, reload command and BGP identity (the template and directories come after). */
function frrOptions(raw: RawOptions): Omit<AgentOptions['frr'], 'template' | 'bindir' | 'rundir'> {
  const confdir = frrConfdir(raw);
  const reloadCommand = raw.frrReloadCmd.trim().split(/\s+/).filter(Boolean);
  if (reloadCommand.length === 0)
    throw new OptionError('--frr-reload-cmd', raw.frrReloadCmd, 'must not be empty');
  if (reloadCommand.some((arg) => /[\0\n]/.test(arg))) {
    throw new OptionError('--frr-reload-cmd', raw.frrReloadCmd, 'must not contain NUL or newline characters');
  }
  const identity = bgpIdentity(raw);
  if (raw.frrPathspace !== undefined && !/^[A-Za-z0-9_-]{1,32}$/.test(raw.frrPathspace))
    throw new OptionError('--frr-pathspace', raw.frrPathspace, 'must be 1-32 characters of [A-Za-z0-9_-]');
  return {
    confdir,
    reloadCommand,
    asn: identity.asn,
    ...(raw.frrPathspace !== undefined ? { pathspace: raw.frrPathspace } : {}),
    routerId: identity.routerId,
    ...(identity.vrfRouterId !== undefined ? { vrfRouterId: identity.vrfRouterId } : {}),
  };
}

/** --frr-confdir, or the directory of --frr-config (named frr.conf, agreeing with an explicit --frr-confdir). */
function frrConfdir(raw: RawOptions): string {
  const confdir = absolute('--frr-confdir', raw.frrConfdir);
  if (raw.frrConfig === undefined) return confdir;
  absolute('--frr-config', raw.frrConfig);
  if (basename(raw.frrConfig) !== 'frr.conf') {
    throw new OptionError(
      '--frr-config',
      raw.frrConfig,
      'must be named frr.conf (frr-reload.py reloads the integrated config only)',
    );
  }
  if (raw.frrConfdir !== DEFAULTS.frrConfdir && dirname(raw.frrConfig) !== raw.frrConfdir) {
    throw new OptionError('--frr-config', raw.frrConfig, `contradicts --frr-confdir ${raw.frrConfdir}`);
  }
  return dirname(raw.frrConfig);
}

function bgpIdentity(raw: RawOptions): { asn: number; routerId: string; vrfRouterId?: string } {
  const asnText = required('--asn', raw.asn);
  const asn = Number(asnText);
  if (!/^\d+$/.test(asnText) || asn < 1 || asn > 4_294_967_295) {
    throw new OptionError('--asn', asnText, 'must be an integer from 1 to 4294967295');
  }
  const routerId = required('--router-id', raw.routerId);
  if (!isIPv4(routerId)) throw new OptionError('--router-id', routerId, 'must be an IPv4 address');
  if (raw.vrfRouterId === undefined) return { asn, routerId };
  if (!isIPv4(raw.vrfRouterId))
    throw new OptionError('--vrf-router-id', raw.vrfRouterId, 'must be an IPv4 address');
  if (raw.vrfRouterId === routerId) {
    throw new OptionError('--vrf-router-id', raw.vrfRouterId, 'must differ from --router-id');
  }
  return { asn, routerId, vrfRouterId: raw.vrfRouterId };
}

function frrDirectories(raw: RawOptions): Pick<AgentOptions['frr'], 'bindir' | 'rundir'> {
  return {
    bindir: absolute('--frr-bindir', raw.frrBindir),
    ...(raw.frrRundir !== undefined ? { rundir: absolute('--frr-rundir', raw.frrRundir) } : {}),
  };
}

type DurationOptions = Pick<
  AgentOptions,
  'resyncMs' | 'confirm' | 'heartbeatMs' | 'observeMs' | 'l3vniTimeoutMs' | 'shutdownTimeoutMs'
>;

/** The periods, windows and timeouts, each with its lower bound. */
function durationOptions(raw: WithDefaults): DurationOptions {
  const resyncMs = atLeast('--resync-period', raw.resyncPeriod, { min: 1000, text: '1s' });
  const confirm: ConfirmSettings = {
    windowMs: parseDuration('--confirm-window', raw.confirmWindow),
    intervalMs: parseDuration('--confirm-interval', raw.confirmInterval),
    unreachableLimitMs: parseDuration('--confirm-unreachable-limit', raw.confirmUnreachableLimit),
  };
  if (confirm.intervalMs < 100)
    throw new OptionError('--confirm-interval', raw.confirmInterval, 'must be at least 100ms');
  checkConfirmSettings(confirm, raw);
  const heartbeatMs = parseDuration('--heartbeat-interval', raw.heartbeatInterval);
  const l3vniTimeoutMs = atLeast('--l3vni-timeout', raw.l3vniTimeout, { min: 1000, text: '1s' });
  offOrAtLeastOneSecond('--heartbeat-interval', raw.heartbeatInterval, heartbeatMs);
  const observeMs = parseDuration('--observe-interval', raw.observeInterval);
  offOrAtLeastOneSecond('--observe-interval', raw.observeInterval, observeMs);
  const shutdownTimeoutMs = atLeast('--shutdown-timeout', raw.shutdownTimeout, { min: 1000, text: '1s' });
  return { resyncMs, confirm, heartbeatMs, observeMs, l3vniTimeoutMs, shutdownTimeoutMs };
}

function atLeast(option: string, text: string, min: { min: number; text: string }): number {
  const ms = parseDuration(option, text);
  if (ms < min.min) throw new OptionError(option, text, `must be at least ${min.text}`);
  return ms;
}

/** 0s (off) or at least 1s. */
function offOrAtLeastOneSecond(option: string, text: string, ms: number): void {
  if (ms !== 0 && ms < 1000) throw new OptionError(option, text, 'must be 0s or at least 1s');
}

/** The confirm options together: a node cut off from the window's start is judged within it. */
export function checkConfirmSettings(
  confirm: ConfirmSettings,
  raw: Pick<RawOptions, 'confirmWindow' | 'confirmUnreachableLimit'>,
): void {
  const { windowMs, unreachableLimitMs } = confirm;
  if (windowMs > 0 && unreachableLimitMs > 0 && unreachableLimitMs >= windowMs) {
    throw new OptionError(
      '--confirm-unreachable-limit',
      raw.confirmUnreachableLimit ?? DEFAULTS.confirmUnreachableLimit,
      `must be shorter than --confirm-window ${raw.confirmWindow ?? DEFAULTS.confirmWindow}: an API server unreachable from ` +
        'the start of the window must be judged (reverted) within the window, not only after it ended; ' +
        'lengthen --confirm-window or shorten --confirm-unreachable-limit',
    );
  }
}
