/**
 * The commander program of `nodenet-configurator`: every flag with its `--help` text and default
 * (DEFAULTS in options.ts, which turns the raw values into ConfiguratorOptions).
 */
import { Command, Option } from 'commander';
import { NODENET_VERSION } from '@nodenet/api';
import { LOG_LEVELS } from '@nodenet/kube';
import { DEFAULTS } from './options.js';
import { withUnderlayOptions } from './underlay-flags.js';
import { ETCD_OBJECT_LIMIT } from '../build/index.js';

export function buildProgram(): Command {
  const program = new Command('nodenet-configurator')
    .version(NODENET_VERSION, '--version', 'print the version and exit')
    .description(
      'Merges VRFRouteConfiguration, Layer2NetworkConfiguration, RoutingTable and BGPPeering objects into content-hashed ' +
        'NetworkConfigRevisions and rolls the desired revision out to one NodeConfig per node, a few nodes at a ' +
        'time; when too many nodes fail it marks the revision invalid and rolls them back. Run two replicas: one leads.',
    )
    .option(
      '--kubeconfig <path>',
      'kubeconfig file; default: in-cluster service account, then $KUBECONFIG / ~/.kube/config',
    );
  return withRuntimeOptions(
    withUnderlayOptions(withBuildOptions(withRolloutOptions(program))),
  ).showHelpAfterError('(run with --help for usage)');
}

/** How a revision walks the fleet: slots, failures, timeouts, soak, waves, history. */
function withRolloutOptions(program: Command): Command {
  return program
    .option(
      '--update-limit <n|p%>',
      'nodes in progress at once: a number, or a percentage of target nodes (rounded up, at least 1)',
      DEFAULTS.updateLimit,
    )
    .option(
      '--max-failures <n>',
      'failed nodes tolerated per revision; one more marks it invalid and rolls back',
      DEFAULTS.maxFailures,
    )
    .option(
      '--update-limit-ceiling <n|p%>',
      'the highest updateLimit the RolloutPolicy may set (default: --update-limit; it may only lower it)',
    )
    .option(
      '--max-failures-ceiling <n>',
      'the highest maxFailures the RolloutPolicy may set (default: --max-failures; it may only lower it)',
    )
    .option(
      '--preconfig-timeout <duration>',
      'a node whose agent has not reported on an assignment within this has failed (at least 10s). A node whose ' +
        'agent never reported anything (still starting) is listed unavailable instead, never counted',
      DEFAULTS.preconfigTimeout,
    )
    .option(
      '--config-timeout <duration>',
      'a node whose agent is working on an assignment (provisioning, confirming) with no status change seen for this long has failed (at least 10s)',
      DEFAULTS.configTimeout,
    )
    .option(
      '--not-ready-timeout <duration>',
      'a node that took a revision forward and is then NotReady (or gone, or its agent misconfigured) before finishing it ' +
        'keeps its slot and holds every forward move this long, then fails that revision (at least 30s). Default 5m: longer than a node reboot and the agent confirm window, so a node ' +
        'that comes back by itself is not failed; short enough that a change which cuts nodes off stops within ' +
        'minutes (the same as Kubernetes waits before evicting pods from an unreachable node)',
      DEFAULTS.notReadyTimeout,
    )
    .option(
      '--min-success-time <duration>',
      'a node that reported provisioned keeps its slot this long (soak) before the next node starts. Default 1m: ' +
        'a node cut off right after its agent confirmed shows NotReady only after the node lifecycle grace period ' +
        '(40-50s); a shorter soak frees the slot before the cut-off is visible and the change walks on',
      DEFAULTS.minSuccessTime,
    )
    .option(
      '--node-selector <selector>',
      'only nodes matching this label selector get configs (kubectl syntax, e.g. role=edge,zone in (a,b))',
      DEFAULTS.nodeSelector,
    )
    .option(
      '--wave-label <label>',
      "start nodes in the order of this label's value (numbers in numeric order, then text values, then unlabelled), then by name",
    )
    .option(
      '--wave-barrier',
      'waves are barriers: a wave starts only when every node of the previous waves is on the revision and soaked (with --wave-label)',
      DEFAULTS.waveBarrier,
    )
    .option(
      '--revision-history-limit <n>',
      'revisions kept (at least 1); older ones no NodeConfig references are deleted, never the invalid one equal to the inputs',
      DEFAULTS.revisionHistoryLimit,
    );
}

/** When a revision is built, and the size budget it must fit. */
function withBuildOptions(program: Command): Command {
  return program
    .option(
      '--build-quiet-period <duration>',
      'a revision is built once the inputs have been quiet this long, so objects applied together ' +
        '(one kubectl apply -f of a file or a folder) make one revision',
      DEFAULTS.buildQuietPeriod,
    )
    .option(
      '--build-max-delay <duration>',
      'longest wait for a quiet period after the first unbuilt change: a steady trickle of changes still builds',
      DEFAULTS.buildMaxDelay,
    )
    .option(
      '--max-revision-bytes <n>',
      `largest revision configuration (JSON bytes); the newest input that would cross it is refused. ` +
        `Default: the API server's object limit (etcd --max-request-bytes, ${ETCD_OBJECT_LIMIT}) less room for metadata and status`,
      DEFAULTS.maxRevisionBytes,
    )
    .option(
      '--max-frr-lines <n>',
      'most FRR lines a node may render; the newest input that would cross it is refused. Default: what ' +
        "frr-reload.py applies well within the agent's 60 s FRR step timeout (docs/rollout.md)",
      DEFAULTS.maxFrrLines,
    );
}

/** The process: leader election, endpoints, logging, events, shutdown. */
function withRuntimeOptions(program: Command): Command {
  return program
    .option(
      '--leader-election-namespace <ns>',
      'namespace of the leader election Lease',
      DEFAULTS.leaderElectionNamespace,
    )
    .option('--leader-election-id <name>', 'name of the leader election Lease', DEFAULTS.leaderElectionId)
    .option(
      '--leader-election-lease-duration <duration>',
      'how long others wait after the last renewal before taking over',
      DEFAULTS.leaderElectionLeaseDuration,
    )
    .option(
      '--leader-election-renew-deadline <duration>',
      'a leader that cannot renew within this stops acting (shorter than the lease)',
      DEFAULTS.leaderElectionRenewDeadline,
    )
    .option(
      '--leader-election-retry-period <duration>',
      'interval between acquire / renew attempts',
      DEFAULTS.leaderElectionRetryPeriod,
    )
    .option(
      '--metrics-addr <[host]:port>',
      'address of the Prometheus /metrics endpoint',
      DEFAULTS.metricsAddr,
    )
    .option('--health-addr <[host]:port>', 'address of /healthz and /readyz', DEFAULTS.healthAddr)
    .option('--log-level <level>', `log level: ${LOG_LEVELS.join(', ')}`, DEFAULTS.logLevel)
    .addOption(
      new Option(
        '--coalesce-window <duration>',
        'events are gathered into one pass: it starts once they have been quiet for 5 ms, at most this long after the first',
      ).default(DEFAULTS.coalesceWindow),
    )
    .addOption(
      new Option(
        '--password-namespace <ns>',
        "the one namespace of BGP password Secrets (the agents'); a peering naming another is refused",
      ).default(DEFAULTS.passwordNamespace),
    )
    .addOption(
      new Option(
        '--agent-lease-namespace <ns>',
        "namespace of the agents' liveness Leases (the agents' --lease-namespace); a renewal seen keeps a working node from --config-timeout",
      ).default(DEFAULTS.agentLeaseNamespace),
    )
    .addOption(
      new Option('--events-namespace <ns>', 'namespace for Events about cluster-scoped objects').default(
        DEFAULTS.eventsNamespace,
      ),
    )
    .addOption(new Option('--identity <id>', 'leader election identity (default: hostname + random suffix)'))
    .addOption(
      new Option(
        '--shutdown-timeout <duration>',
        'on SIGTERM: stop acting, release the leader Lease and close the endpoints within this time, whatever the API ' +
          "server does; exit 1 if anything had to be cut short (keep it below the pod's terminationGracePeriodSeconds)",
      ).default(DEFAULTS.shutdownTimeout),
    );
}

/** The option values as commander returns them (strings, defaults filled in). */
