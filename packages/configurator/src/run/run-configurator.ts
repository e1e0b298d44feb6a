/**
 * `runConfigurator`: wires the real parts together — kube client, the Controller with its
 * informers, leader election, the /metrics, /healthz and /readyz endpoints — and returns a handle
 * to stop them. `main.ts` calls it with the parsed flags; tests call it in process.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { pino, type Logger } from 'pino';
import {
  KubeClient,
  LeaderElectorThread,
  loadKubeConfig,
  makeClients,
  serveEndpoints,
  shutdownWithin,
  type ShutdownResult,
} from '@nodenet/kube';
import { Controller } from '../controller.js';
import { Metrics } from './metrics.js';
import { DEFAULT_SHUTDOWN_TIMEOUT_MS, type ConfiguratorOptions } from './options.js';
import { readiness, watchLeaseNamespace } from './readiness.js';

export interface RunningConfigurator {
  controller: Controller;
  metrics: Metrics;
  elector: LeaderElectorThread;
  identity: string;
  /** Resolves once the informers have listed everything (the endpoints answer before). */
  synced: Promise<void>;
  /** Base URLs of the metrics and the health endpoints (the same when the addresses are equal). */
  urls: { metrics: string; health: string };
  /**
   * Stops acting, releases the lease (the standby takes over at once), closes the endpoints, within
   * `deadlineMs` (default: the options' shutdown timeout); see shutdown.ts.
   */
  stop(deadlineMs?: number): Promise<ShutdownResult>;
}

export async function runConfigurator(
  options: ConfiguratorOptions,
  log: Logger = pino({ level: options.logLevel, base: { component: 'nodenet-configurator' } }),
): Promise<RunningConfigurator> {
  const identity = options.identity ?? `${hostname()}_${randomBytes(4).toString('hex')}`;
  const client = new KubeClient(loadKubeConfig(options.kubeconfig));
  const clients = makeClients(client);
  const metrics = new Metrics(true);
  const le = options.leaderElection;

  const controller = new Controller({
    clients,
    policy: options.policy,
    log,
    metrics,
    identity,
    isLeader: () => elector.isLeader(),
    coalesceMs: options.coalesceMs,
    eventNamespace: options.eventsNamespace,
    passwordNamespace: options.passwordNamespace,
    agentLeaseNamespace: options.agentLeaseNamespace,
    ...(options.buildTiming ? { buildTiming: options.buildTiming } : {}),
    ...(options.budget ? { budget: options.budget } : {}),
    ...(options.underlay ? { underlay: options.underlay } : {}),
  });
  // In its own thread: a long build on this one must not starve the renewals (leader-thread.ts).
  const elector: LeaderElectorThread = new LeaderElectorThread({ ...le, identity }, options.kubeconfig, {
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
  });
  const leaseNamespace = watchLeaseNamespace(clients, le.namespace, log);
  const endpoints = await serveEndpoints(
    {
      healthz: () => ({ ok: true, detail: 'alive' }),
      readyz: () => readiness(controller.hasSynced, le.namespace, leaseNamespace.state()),
      metrics: metrics.registry,
    },
    { health: options.healthAddr, metrics: options.metricsAddr },
  );
  const urls = endpoints.urls;
  log.info({ identity, policy: options.policy, ...urls }, 'starting');
  elector.start();
  const synced = controller.start();
  return {
    synced,
    controller,
    metrics,
    elector,
    identity,
    urls,
    stop: async (deadlineMs = options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS) => {
      const result = await shutdownWithin(
        [
          { name: 'lease namespace watch', run: () => leaseNamespace.stop() },
          { name: 'controller (the pass in flight, Events)', run: () => controller.stop() },
          // Another instance may lead as soon as the Lease is released: only once this one stopped writing.
          {
            name: 'leader election (Lease release)',
            run: async () => {
              if (!(await elector.stop()))
                throw new Error('the Lease could not be released; it expires on its own');
            },
            onlyAfterCleanStop: true,
          },
          { name: 'endpoints', run: () => endpoints.close() },
        ],
        deadlineMs,
      );
      client.close();
      if (!result.complete)
        log.warn({ unfinished: result.unfinished, elapsedMs: result.elapsedMs }, 'shutdown cut short');
      return result;
    },
  };
}
