/**
 * The flags of `nodenet-agent` as a commander program: each flag once, with its `--help` text and
 * its default (defaults.ts); options.ts turns the parsed values into `AgentOptions`.
 */
import { Command, Option } from 'commander';
import { NODENET_VERSION } from '@nodenet/api';
import { LOG_LEVELS } from '@nodenet/kube';
import { DEFAULTS } from './defaults.js';

export function buildProgram(): Command {
  const program = new Command('nodenet-agent')
    .version(NODENET_VERSION, '--version', 'print the version and exit')
    .description(
      "Applies this node's NodeConfig to the host (netlink devices + FRR), health-checks the result, keeps a " +
        'checkpoint of the last good configuration in --state-dir, restores it on failure, and reports the ' +
        'outcome in the NodeConfig status. Runs once per node (DaemonSet, hostNetwork).',
    );
  // --help lists the flags in this order.
  for (const option of [...hostFlags(), ...frrFlags(), ...vtepFlags(), ...timingFlags(), ...serviceFlags()])
    program.addOption(option);
  return program.addHelpText(
    'after',
    '\nTest only: NODENET_FAULT_AT=<after-pending|after-netlink|after-frr|after-health|after-applied|after-rejected>\nmakes the ' +
      'agent SIGKILL itself at that point of an apply (used by the crash-recovery tests). Never set it in production.',
  );
}

/** The node, its state and health checks, its kubeconfig. */
function hostFlags(): Option[] {
  return [
    new Option(
      '--kubeconfig <file>',
      'kubeconfig to use (default: in-cluster service account, then $KUBECONFIG / ~/.kube/config)',
    ),
    new Option(
      '--node-name <name>',
      "this node's name; the agent watches only the NodeConfig with exactly this name",
    ).env('NODE_NAME'),
    new Option(
      '--state-dir <dir>',
      'directory for applied.json / pending.json checkpoints; must survive restarts (hostPath)',
    ).default(DEFAULTS.stateDir),
    new Option(
      '--password-namespace <ns>',
      'namespace of the BGP password Secrets the agent reads (get, by name; kept in --state-dir/passwords.json, 0600)',
    ).default(DEFAULTS.passwordNamespace),
    new Option(
      '--lease-namespace <ns>',
      "namespace of the node's liveness Lease (named after the node; create, get, update); the configurator's --agent-lease-namespace",
    )
      .default(DEFAULTS.leaseNamespace)
      .env('POD_NAMESPACE'),
    new Option(
      '--health-config <file>',
      'bootstrap health checks, YAML (interfaces, tcp targets, apiServer, frr/bgpSessions, startupTaints): used while the NodeConfig carries none (no AgentConfiguration selects the node); default: API server and FRR answer',
    ),
  ];
}

/** FRR: its files, its reload, the BGP identity. */
function frrFlags(): Option[] {
  return [
    new Option(
      '--frr-template <file>',
      "bootstrap frr.conf template with {{ placeholders }} for the generated sections: used for a NodeConfig that carries none (no AgentConfiguration selects the node); an AgentConfiguration's template replaces it through the rollout",
    ),
    new Option(
      '--frr-config <file>',
      'the frr.conf the agent writes; must be named frr.conf (frr-reload.py needs the integrated config). Same as --frr-confdir <its directory>',
    ),
    new Option('--frr-confdir <dir>', 'FRR configuration directory holding frr.conf').default(
      DEFAULTS.frrConfdir,
    ),
    new Option(
      '--frr-reload-cmd <argv>',
      'reload command, split on spaces and run without a shell; the config file is appended',
    ).default(DEFAULTS.frrReloadCmd),
    new Option(
      '--frr-pathspace <name>',
      'FRR pathspace (-N) of the instance to manage, when FRR runs with -N',
    ),
    new Option('--frr-bindir <dir>', 'directory holding vtysh').default(DEFAULTS.frrBindir),
    new Option('--frr-rundir <dir>', 'FRR run directory (default /var/run/frr, or /var/run/frr/<pathspace>)'),
    new Option('--asn <number>', 'local BGP AS number (1-4294967295) (required)'),
    new Option(
      '--router-id <ipv4>',
      "router id of the default BGP instance, unique in the fabric (required; e.g. the node's underlay address)",
    ),
    new Option(
      '--vrf-router-id <ipv4>',
      'router id of the per-VRF BGP instances; must differ from --router-id, because the VRF and default ' +
        'instances peer with each other over iBGP and refuse a peer with their own id (default: the VTEP address)',
    ),
  ];
}

/** The VXLAN underlay. */
function vtepFlags(): Option[] {
  return [
    new Option(
      '--vtep-interface <dev>',
      'underlay interface the VXLAN devices use; its first IPv4 address is the VTEP address (required)',
    ),
    new Option(
      '--vtep-address <ipv4>',
      'VTEP address, when it is not the first IPv4 address of --vtep-interface',
    ),
  ];
}

/** Periods, windows and timeouts (durations). */
function timingFlags(): Option[] {
  return [
    new Option(
      '--resync-period <duration>',
      'how often an unchanged NodeConfig is re-applied to repair drift (e.g. 30s, 5m); while resyncs find ' +
        'nothing to repair the period doubles, up to 4× this, and a repair brings it back',
    ).default(DEFAULTS.resyncPeriod),
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
    new Option(
      '--confirm-interval <duration>',
      'pause between two rounds of checks in the confirm window',
    ).default(DEFAULTS.confirmInterval),
    new Option(
      '--confirm-unreachable-limit <duration>',
      'within the confirm window, the API server (a completed HTTP exchange on a fresh connection) may be ' +
        'unreachable this long before the agent reverts; covers a control-plane restart. Must be shorter ' +
        'than --confirm-window (when both are non-zero)',
    ).default(DEFAULTS.confirmUnreachableLimit),
    new Option(
      '--heartbeat-interval <duration>',
      "while applying or confirming, renew the node's liveness Lease this often (the first beat writes a " +
        "held Applying report instead), so the configurator's --config-timeout measures silence rather than " +
        "total time; keep it at most half the configurator's --config-timeout (0s: off)",
    ).default(DEFAULTS.heartbeatInterval),
    new Option(
      '--observe-interval <duration>',
      "read FRR's state (BGP sessions, VNIs, version) this often into the NodeConfig's status.observed; " +
        'written only on change, at most once per interval; while nothing changes the reads slow down to 4× ' +
        'this (0s: off; NodenetReady then does not check FRR)',
    ).default(DEFAULTS.observeInterval),
    new Option(
      '--l3vni-timeout <duration>',
      "a VRF's L3 VNI bridge and VXLAN come up only once FRR shows the VNI as the VRF's L3 VNI (else zebra " +
        'may take it for an L2 VNI); the apply fails (and restores) when FRR takes longer than this',
    ).default(DEFAULTS.l3vniTimeout),
  ];
}

/** Listen addresses, shutdown, logging. */
function serviceFlags(): Option[] {
  return [
    new Option('--metrics-addr <host:port>', 'listen address for /metrics').default(DEFAULTS.metricsAddr),
    new Option(
      '--health-addr <host:port>',
      'listen address for /healthz and /readyz (may equal --metrics-addr)',
    ).default(DEFAULTS.healthAddr),
    new Option(
      '--shutdown-timeout <duration>',
      'on SIGTERM, an apply under way finishes its step (in the confirm window: restores the previous ' +
        'config), the last status is written if the API server answers (at most 3 s per API step), and the ' +
        'agent exits within this deadline whatever the API server does; non-zero when something was cut ' +
        "short. Keep it below the pod's terminationGracePeriodSeconds",
    ).default(DEFAULTS.shutdownTimeout),
    new Option('--log-level <level>', 'log level').choices(LOG_LEVELS).default(DEFAULTS.logLevel),
  ];
}
