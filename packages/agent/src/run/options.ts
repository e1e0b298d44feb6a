/**
 * Command-line options of `nodenet-agent`: the commander program (with the `--help` text) and the
 * pure validation that turns raw option values into an `AgentOptions` object. Bad values fail with
 * an `OptionError` naming the option and the value.
 */
import { basename, dirname, isAbsolute } from 'node:path';
import { isIPv4 } from 'node:net';
import { Command, Option } from 'commander';
import type { ConfirmSettings } from '../apply/index.js';
import { OptionError } from '../errors.js';
import { DEFAULTS } from './defaults.js';
import { NODENET_VERSION } from '@nodenet/api';
import {
  LOG_LEVELS,
  parseDuration,
  parseListenAddress,
  parseLogLevel,
  type ListenAddress,
} from '@nodenet/kube';

export interface AgentOptions {
  kubeconfig?: string;
  nodeName: string;
  stateDir: string;
  healthConfig?: string;
  frr: {
    template: string;
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

export function buildProgram(): Command {
  return new Command('nodenet-agent')
    .version(NODENET_VERSION, '--version', 'print the version and exit')
    .description(
      "Applies this node's NodeConfig to the host (netlink devices + FRR), health-checks the result, keeps a " +
        'checkpoint of the last good configuration in --state-dir, restores it on failure, and reports the ' +
        'outcome in the NodeConfig status. Runs once per node (DaemonSet, hostNetwork).',
    )
    .addOption(
      new Option(
        '--kubeconfig <file>',
        'kubeconfig to use (default: in-cluster service account, then $KUBECONFIG / ~/.kube/config)',
      ),
    )
    .addOption(
      new Option(
        '--node-name <name>',
        "this node's name; the agent watches only the NodeConfig with exactly this name",
      ).env('NODE_NAME'),
    )
    .addOption(
      new Option(
        '--state-dir <dir>',
        'directory for applied.json / pending.json checkpoints; must survive restarts (hostPath)',
      ).default(DEFAULTS.stateDir),
    )
    .addOption(
      new Option(
        '--health-config <file>',
        'YAML file with the health checks (interfaces, tcp targets, apiServer, frr/bgpSessions, startupTaints); default: API server and FRR answer',
      ),
    )
    .addOption(
      new Option(
        '--frr-template <file>',
        'base frr.conf template with {{ placeholders }} for the generated sections (required)',
      ),
    )
    .addOption(
      new Option(
        '--frr-config <file>',
        'the frr.conf the agent writes; must be named frr.conf (frr-reload.py needs the integrated config). Same as --frr-confdir <its directory>',
      ),
    )
    .addOption(
      new Option('--frr-confdir <dir>', 'FRR configuration directory holding frr.conf').default(
        DEFAULTS.frrConfdir,
      ),
    )
    .addOption(
      new Option(
        '--frr-reload-cmd <argv>',
        'reload command, split on spaces and run without a shell; the config file is appended',
      ).default(DEFAULTS.frrReloadCmd),
    )
    .addOption(
      new Option(
        '--frr-pathspace <name>',
        'FRR pathspace (-N) of the instance to manage, when FRR runs with -N',
      ),
    )
    .addOption(new Option('--frr-bindir <dir>', 'directory holding vtysh').default(DEFAULTS.frrBindir))
    .addOption(
      new Option(
        '--frr-rundir <dir>',
        'FRR run directory (default /var/run/frr, or /var/run/frr/<pathspace>)',
      ),
    )
    .addOption(new Option('--asn <number>', 'local BGP AS number (1-4294967295) (required)'))
    .addOption(
      new Option(
        '--router-id <ipv4>',
        "router id of the default BGP instance, unique in the fabric (required; e.g. the node's underlay address)",
      ),
    )
    .addOption(
      new Option(
        '--vrf-router-id <ipv4>',
        'router id of the per-VRF BGP instances; must differ from --router-id, because the VRF and default ' +
          'instances peer with each other over iBGP and refuse a peer with their own id (default: the VTEP address)',
      ),
    )
    .addOption(
      new Option(
        '--vtep-interface <dev>',
        'underlay interface the VXLAN devices use; its first IPv4 address is the VTEP address (required)',
      ),
    )
    .addOption(
      new Option(
        '--vtep-address <ipv4>',
        'VTEP address, when it is not the first IPv4 address of --vtep-interface',
      ),
    )
    .addOption(
      new Option(
        '--resync-period <duration>',
        'how often an unchanged NodeConfig is re-applied to repair drift (e.g. 30s, 5m); while resyncs find ' +
          'nothing to repair the period doubles, up to 4× this, and a repair brings it back',
      ).default(DEFAULTS.resyncPeriod),
    )
    .addOption(
      new Option(
        '--confirm-window <duration>',
        'after an apply passed its health checks, keep checking this long before reporting provisioned; a ' +
          'failed check, or an API server unreachable for --confirm-unreachable-limit, within it makes the agent ' +
          'restore the previous config on its own. The window never ends while the last API-server probe failed: ' +
          'it goes on until the API server answers (confirmed) or the outage reaches the limit (restored). ' +
          "The default outlasts the BGP hold time of FRR's traditional profile (180 s; RFC 4271 suggests 90 s): " +
          'a change that breaks a session is caught when the session dies. A 30s window covers a change that ' +
          'cuts the node off, or breaks a check, within 30 s: sessions with short hold timers (datacenter ' +
          'profile: 9 s) and a lost path to the API server. It does not cover a session whose hold timer is ' +
          'longer than the window (it dies after the change was confirmed), nor a fault that shows only later ' +
          '(under traffic, at a peer restart). 0s disables the window',
      ).default(DEFAULTS.confirmWindow),
    )
    .addOption(
      new Option(
        '--confirm-interval <duration>',
        'pause between two rounds of checks in the confirm window',
      ).default(DEFAULTS.confirmInterval),
    )
    .addOption(
      new Option(
        '--confirm-unreachable-limit <duration>',
        'within the confirm window, the API server (a completed HTTP exchange on a fresh connection) may be ' +
          'unreachable this long before the agent reverts; covers a control-plane restart. Must be shorter ' +
          'than --confirm-window (when both are non-zero)',
      ).default(DEFAULTS.confirmUnreachableLimit),
    )
    .addOption(
      new Option(
        '--heartbeat-interval <duration>',
        "while applying or confirming, refresh the NodeConfig status this often, so the configurator's " +
          '--config-timeout measures no progress rather than total time (0s: off)',
      ).default(DEFAULTS.heartbeatInterval),
    )
    .addOption(
      new Option(
        '--observe-interval <duration>',
        "read FRR's state (BGP sessions, VNIs, version) this often into the NodeConfig's status.observed; " +
          'written only on change, at most once per interval; while nothing changes the reads slow down to 4× ' +
          'this (0s: off; NodenetReady then does not check FRR)',
      ).default(DEFAULTS.observeInterval),
    )
    .addOption(
      new Option(
        '--l3vni-timeout <duration>',
        "a VRF's L3 VNI bridge and VXLAN come up only once FRR shows the VNI as the VRF's L3 VNI (else zebra " +
          'may take it for an L2 VNI); the apply fails (and restores) when FRR takes longer than this',
      ).default(DEFAULTS.l3vniTimeout),
    )
    .addOption(
      new Option('--metrics-addr <host:port>', 'listen address for /metrics').default(DEFAULTS.metricsAddr),
    )
    .addOption(
      new Option(
        '--health-addr <host:port>',
        'listen address for /healthz and /readyz (may equal --metrics-addr)',
      ).default(DEFAULTS.healthAddr),
    )
    .addOption(
      new Option(
        '--shutdown-timeout <duration>',
        'on SIGTERM, an apply under way finishes its step (in the confirm window: restores the previous ' +
          'config), the last status is written if the API server answers (at most 3 s per API step), and the ' +
          'agent exits within this deadline whatever the API server does; non-zero when something was cut ' +
          "short. Keep it below the pod's terminationGracePeriodSeconds",
      ).default(DEFAULTS.shutdownTimeout),
    )
    .addOption(new Option('--log-level <level>', 'log level').choices(LOG_LEVELS).default(DEFAULTS.logLevel))
    .addHelpText(
      'after',
      '\nTest only: NODENET_FAULT_AT=<after-pending|after-netlink|after-frr|after-health|after-applied|after-rejected>\nmakes the ' +
        'agent SIGKILL itself at that point of an apply (used by the crash-recovery tests). Never set it in production.',
    );
}

export interface RawOptions {
  kubeconfig?: string;
  nodeName?: string;
  stateDir: string;
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
  const required = (option: string, value: string | undefined): string => {
    if (value === undefined || value === '') throw new OptionError(option, value, 'is required');
    return value;
  };
  const absolute = (option: string, value: string): string => {
    if (!isAbsolute(value)) throw new OptionError(option, value, 'must be an absolute path');
    return value;
  };

  const nodeName = required('--node-name (or NODE_NAME)', raw.nodeName);
  if (!NODE_NAME.test(nodeName))
    throw new OptionError('--node-name', nodeName, 'must be a DNS subdomain (a Node name)');

  let confdir = absolute('--frr-confdir', raw.frrConfdir);
  if (raw.frrConfig !== undefined) {
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
    confdir = dirname(raw.frrConfig);
  }
  const reloadCommand = raw.frrReloadCmd.trim().split(/\s+/).filter(Boolean);
  if (reloadCommand.length === 0)
    throw new OptionError('--frr-reload-cmd', raw.frrReloadCmd, 'must not be empty');
  if (reloadCommand.some((arg) => /[\0\n]/.test(arg))) {
    throw new OptionError('--frr-reload-cmd', raw.frrReloadCmd, 'must not contain NUL or newline characters');
  }

  const asnText = required('--asn', raw.asn);
  const asn = Number(asnText);
  if (!/^\d+$/.test(asnText) || asn < 1 || asn > 4_294_967_295) {
    throw new OptionError('--asn', asnText, 'must be an integer from 1 to 4294967295');
  }
  const routerId = required('--router-id', raw.routerId);
  if (!isIPv4(routerId)) throw new OptionError('--router-id', routerId, 'must be an IPv4 address');
  if (raw.vrfRouterId !== undefined) {
    if (!isIPv4(raw.vrfRouterId))
      throw new OptionError('--vrf-router-id', raw.vrfRouterId, 'must be an IPv4 address');
    if (raw.vrfRouterId === routerId) {
      throw new OptionError('--vrf-router-id', raw.vrfRouterId, 'must differ from --router-id');
    }
  }
  if (raw.frrPathspace !== undefined && !/^[A-Za-z0-9_-]{1,32}$/.test(raw.frrPathspace))
    throw new OptionError('--frr-pathspace', raw.frrPathspace, 'must be 1-32 characters of [A-Za-z0-9_-]');

  const vtepInterface = required('--vtep-interface', raw.vtepInterface);
  if (!IFNAME.test(vtepInterface))
    throw new OptionError('--vtep-interface', vtepInterface, 'must be an interface name');
  if (raw.vtepAddress !== undefined && !isIPv4(raw.vtepAddress))
    throw new OptionError('--vtep-address', raw.vtepAddress, 'must be an IPv4 address');

  const resyncMs = parseDuration('--resync-period', raw.resyncPeriod);
  if (resyncMs < 1000) throw new OptionError('--resync-period', raw.resyncPeriod, 'must be at least 1s');
  const confirm: ConfirmSettings = {
    windowMs: parseDuration('--confirm-window', raw.confirmWindow ?? DEFAULTS.confirmWindow),
    intervalMs: parseDuration('--confirm-interval', raw.confirmInterval ?? DEFAULTS.confirmInterval),
    unreachableLimitMs: parseDuration(
      '--confirm-unreachable-limit',
      raw.confirmUnreachableLimit ?? DEFAULTS.confirmUnreachableLimit,
    ),
  };
  if (confirm.intervalMs < 100)
    throw new OptionError('--confirm-interval', raw.confirmInterval, 'must be at least 100ms');
  checkConfirmSettings(confirm, raw);
  const heartbeatMs = parseDuration(
    '--heartbeat-interval',
    raw.heartbeatInterval ?? DEFAULTS.heartbeatInterval,
  );
  const l3vniTimeoutMs = parseDuration('--l3vni-timeout', raw.l3vniTimeout ?? DEFAULTS.l3vniTimeout);
  if (l3vniTimeoutMs < 1000)
    throw new OptionError('--l3vni-timeout', raw.l3vniTimeout, 'must be at least 1s');
  if (heartbeatMs !== 0 && heartbeatMs < 1000)
    throw new OptionError('--heartbeat-interval', raw.heartbeatInterval, 'must be 0s or at least 1s');
  const observeMs = parseDuration('--observe-interval', raw.observeInterval ?? DEFAULTS.observeInterval);
  if (observeMs !== 0 && observeMs < 1000)
    throw new OptionError('--observe-interval', raw.observeInterval, 'must be 0s or at least 1s');
  if (raw.shutdownTimeout !== undefined && parseDuration('--shutdown-timeout', raw.shutdownTimeout) < 1000)
    throw new OptionError('--shutdown-timeout', raw.shutdownTimeout, 'must be at least 1s');
  const logLevel = parseLogLevel('--log-level', raw.logLevel);

  const options: AgentOptions = {
    nodeName,
    stateDir: absolute('--state-dir', raw.stateDir),
    frr: {
      template: required('--frr-template', raw.frrTemplate),
      confdir,
      reloadCommand,
      bindir: absolute('--frr-bindir', raw.frrBindir),
      asn,
      ...(raw.frrPathspace !== undefined ? { pathspace: raw.frrPathspace } : {}),
      ...(raw.frrRundir !== undefined ? { rundir: absolute('--frr-rundir', raw.frrRundir) } : {}),
      routerId,
      ...(raw.vrfRouterId !== undefined ? { vrfRouterId: raw.vrfRouterId } : {}),
    },
    vtepInterface,
    resyncMs,
    confirm,
    heartbeatMs,
    observeMs,
    l3vniTimeoutMs,
    metricsAddr: parseListenAddress('--metrics-addr', raw.metricsAddr),
    healthAddr: parseListenAddress('--health-addr', raw.healthAddr),
    logLevel,
    shutdownTimeoutMs: parseDuration('--shutdown-timeout', raw.shutdownTimeout ?? DEFAULTS.shutdownTimeout),
  };
  if (raw.kubeconfig !== undefined) options.kubeconfig = raw.kubeconfig;
  if (raw.healthConfig !== undefined) options.healthConfig = raw.healthConfig;
  if (raw.vtepAddress !== undefined) options.vtepAddress = raw.vtepAddress;
  return options;
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
