#!/usr/bin/env node
/** nodenet-configurator: builds revisions from the inputs and rolls them out node by node. */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { Command, Option } from 'commander';
import { pino } from 'pino';
import { KubeClient, LeaderElector, loadKubeConfig, makeClients } from '@nodenet/kube';
import { Controller } from './controller.js';
import { parseDuration } from './duration.js';
import { serve } from './http.js';
import { Metrics } from './metrics.js';
import {
  DEFAULT_POLICY,
  parseNonNegativeInt,
  parsePositiveInt,
  parseUpdateLimit,
  type Policy,
} from './policy.js';
import { parseSelectorFlag } from './selector-flag.js';

const program = new Command()
  .name('nodenet-configurator')
  .description(
    'Merges VRFRouteConfiguration, Layer2NetworkConfiguration and RoutingTable objects into content-hashed ' +
      'NetworkConfigRevisions and rolls the desired revision out to one NodeConfig per node, a few nodes at a ' +
      'time; when too many nodes fail it marks the revision invalid and rolls them back. Run two replicas: one leads.',
  )
  .option(
    '--kubeconfig <path>',
    'kubeconfig file; default: in-cluster service account, then $KUBECONFIG / ~/.kube/config',
  )
  .option(
    '--update-limit <n|p%>',
    'nodes in progress at once: a number, or a percentage of target nodes (rounded up, at least 1)',
    '1',
  )
  .option(
    '--max-failures <n>',
    'failed nodes tolerated per revision; one more marks it invalid and rolls back',
    '0',
  )
  .option(
    '--preconfig-timeout <duration>',
    'a node whose agent has not reported on an assignment within this has failed',
    '10m',
  )
  .option(
    '--config-timeout <duration>',
    'a node whose agent is working on an assignment (provisioning, confirming) with no status change seen for this long has failed',
    '2m',
  )
  .option(
    '--not-ready-timeout <duration>',
    'a node that took the revision being rolled out and is then NotReady (or gone) keeps its slot this long, ' +
      'then counts as failed. Default 5m: longer than a node reboot and the agent confirm window, so a node ' +
      'that comes back by itself is not failed; short enough that a change which cuts nodes off stops within ' +
      'minutes (the same as Kubernetes waits before evicting pods from an unreachable node)',
    '5m',
  )
  .option(
    '--min-success-time <duration>',
    'a finished node keeps its slot this long (soak) before the next node starts',
    '0s',
  )
  .option(
    '--node-selector <selector>',
    'only nodes matching this label selector get configs (kubectl syntax, e.g. role=edge,zone in (a,b))',
    '',
  )
  .option(
    '--wave-label <label>',
    "start nodes in the order of this label's value (numbers in numeric order, then text values, then unlabelled), then by name",
  )
  .option(
    '--revision-history-limit <n>',
    'revisions kept (at least 1); older ones no NodeConfig references are deleted, never the invalid one equal to the inputs',
    '10',
  )
  .option('--leader-election-namespace <ns>', 'namespace of the leader election Lease', 'nodenet-system')
  .option('--leader-election-id <name>', 'name of the leader election Lease', 'nodenet-configurator')
  .option(
    '--leader-election-lease-duration <duration>',
    'how long others wait after the last renewal before taking over',
    '15s',
  )
  .option(
    '--leader-election-renew-deadline <duration>',
    'a leader that cannot renew within this stops acting (shorter than the lease)',
    '10s',
  )
  .option('--leader-election-retry-period <duration>', 'interval between acquire / renew attempts', '2s')
  .option('--metrics-addr <[host]:port>', 'address of the Prometheus /metrics endpoint', ':8080')
  .option('--health-addr <[host]:port>', 'address of /healthz and /readyz', ':8081')
  .option('--log-level <level>', 'pino log level: trace, debug, info, warn, error', 'info')
  .addOption(
    new Option('--coalesce-window <duration>', 'events are gathered this long into one pass').default('50ms'),
  )
  .addOption(
    new Option('--events-namespace <ns>', 'namespace for Events about cluster-scoped objects').default(
      'default',
    ),
  )
  .addOption(new Option('--identity <id>', 'leader election identity (default: hostname + random suffix)'))
  .showHelpAfterError('(run with --help for usage)');

interface Flags {
  kubeconfig?: string;
  updateLimit: string;
  maxFailures: string;
  preconfigTimeout: string;
  configTimeout: string;
  notReadyTimeout: string;
  minSuccessTime: string;
  nodeSelector: string;
  waveLabel?: string;
  revisionHistoryLimit: string;
  leaderElectionNamespace: string;
  leaderElectionId: string;
  leaderElectionLeaseDuration: string;
  leaderElectionRenewDeadline: string;
  leaderElectionRetryPeriod: string;
  metricsAddr: string;
  healthAddr: string;
  logLevel: string;
  coalesceWindow: string;
  eventsNamespace: string;
  identity?: string;
}

export function policyFromFlags(f: Flags): Policy {
  const selector = parseSelectorFlag(f.nodeSelector);
  return {
    ...DEFAULT_POLICY,
    updateLimit: parseUpdateLimit(f.updateLimit),
    maxFailures: parseNonNegativeInt(f.maxFailures, '--max-failures'),
    preconfigTimeoutMs: parseDuration(f.preconfigTimeout, '--preconfig-timeout'),
    configTimeoutMs: parseDuration(f.configTimeout, '--config-timeout'),
    notReadyTimeoutMs: parseDuration(f.notReadyTimeout, '--not-ready-timeout'),
    minSuccessTimeMs: parseDuration(f.minSuccessTime, '--min-success-time'),
    revisionHistoryLimit: parsePositiveInt(f.revisionHistoryLimit, '--revision-history-limit'),
    ...(selector ? { nodeSelector: selector } : {}),
    ...(f.waveLabel ? { waveLabel: f.waveLabel } : {}),
  };
}

async function main(): Promise<void> {
  program.parse();
  const f = program.opts<Flags>();
  const parsed = (() => {
    try {
      return {
        policy: policyFromFlags(f),
        timing: {
          lease: parseDuration(f.leaderElectionLeaseDuration, '--leader-election-lease-duration'),
          renew: parseDuration(f.leaderElectionRenewDeadline, '--leader-election-renew-deadline'),
          retry: parseDuration(f.leaderElectionRetryPeriod, '--leader-election-retry-period'),
          coalesce: parseDuration(f.coalesceWindow, '--coalesce-window'),
        },
      };
    } catch (err) {
      console.error(`error: ${(err as Error).message}`);
      process.exit(2);
    }
  })();
  const { policy, timing } = parsed;
  const log = pino({ name: 'nodenet-configurator', level: f.logLevel });
  const identity = f.identity ?? `${hostname()}_${randomBytes(4).toString('hex')}`;
  const client = new KubeClient(loadKubeConfig(f.kubeconfig));
  const clients = makeClients(client);
  const metrics = new Metrics(true);

  const controller = new Controller({
    clients,
    policy,
    log,
    metrics,
    identity,
    isLeader: () => elector.isLeader(),
    coalesceMs: timing.coalesce,
    eventNamespace: f.eventsNamespace,
  });
  const elector: LeaderElector = new LeaderElector(
    clients.lease,
    {
      namespace: f.leaderElectionNamespace,
      name: f.leaderElectionId,
      identity,
      leaseDurationMs: timing.lease,
      renewDeadlineMs: timing.renew,
      retryPeriodMs: timing.retry,
    },
    {
      onStartedLeading: () => {
        log.info({ identity }, 'became leader');
        controller.leadershipChanged(true);
      },
      onStoppedLeading: (reason) => {
        log.warn({ identity, cause: reason }, 'stopped leading');
        controller.leadershipChanged(false);
      },
      onNewLeader: (holder) => log.info({ leader: holder }, 'leader observed'),
      onError: (err) => log.warn({ err: String(err) }, 'leader election request failed'),
    },
  );
  const endpoints = {
    healthz: () => true,
    readyz: () => controller.hasSynced,
    metrics: async () => ({
      contentType: metrics.registry.contentType,
      body: await metrics.registry.metrics(),
    }),
  };
  const servers =
    f.metricsAddr === f.healthAddr
      ? [await serve(f.metricsAddr, '--metrics-addr', endpoints)]
      : [
          await serve(f.metricsAddr, '--metrics-addr', { metrics: endpoints.metrics }),
          await serve(f.healthAddr, '--health-addr', {
            healthz: endpoints.healthz,
            readyz: endpoints.readyz,
          }),
        ];
  log.info(
    { identity, policy, metrics: servers[0]?.url, health: servers[servers.length - 1]?.url },
    'starting',
  );
  elector.start();
  void controller.start();

  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    await controller.stop();
    await elector.stop(); // releases the lease: the standby takes over at once
    await Promise.all(servers.map((s) => s.close()));
    client.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
