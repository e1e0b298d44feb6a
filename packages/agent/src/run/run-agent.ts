/**
 * The running `nodenet-agent`: wires the real parts together — kube client and NodeConfig watch, netlink and FRR
 * drivers, health checks, checkpoint store, status reporter, metrics and probe endpoints — and runs
 * the loop until stopped. main.ts parses the flags (options.ts) and calls it.
 */
import { lookup } from 'node:dns/promises';
import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import type { RequestOptions } from 'node:https';
import { join } from 'node:path';
import pino from 'pino';
import {
  EventRecorder,
  isNotFound,
  KubeClient,
  loadKubeConfig,
  makeClients,
  serveEndpoints,
  shutdownWithin,
} from '@nodenet/kube';
import { AgentLease } from '../status/lease.js';
import { AgentLoop, nodeConfigStatusWriter, removeStartupTaints } from './agent-loop.js';
import { AgentError, describeCause } from '../errors.js';
import {
  CheckpointStore,
  DEFAULT_L3VNI_ORDER,
  FAULT_ENV,
  faultPointFromEnv,
  hostDrivers,
  killAt,
  Pipeline,
  type FaultPoint,
} from '../apply/index.js';
import {
  FrrDriver,
  resolveInstance,
  type FrrInstanceOptions,
  type PasswordLookup,
  type ResolvedInstance,
} from '../frr/index.js';
import { PasswordBook } from '../secrets/password-book.js';
import {
  DEFAULT_HEALTH_CONFIG,
  hostAddresses,
  httpApiServerProbe,
  isLoopbackAddress,
  loadHealthConfig,
  SpecHealthChecks,
  type HealthConfig,
} from '../health/index.js';
import { firstIpv4Address } from './host-address.js';
import { AgentMetrics } from '../metrics.js';
import { createNetlinkDriver } from '../netlink/index.js';
import { NodeObservation } from '../status/node-observation.js';
import { frrObservedReader } from '../observed/index.js';
import type { AgentOptions } from './options.js';
import {
  clearMisconfigured,
  problemsText,
  reportMisconfigured,
  selfCheck,
  sysfsInterfaceExists,
  type SelfCheckProblem,
} from './self-check.js';
import { API_STEP_TIMEOUT_MS } from './shutdown.js';
import { StatusReporter } from '../status/status.js';

export async function runAgent(options: AgentOptions): Promise<{ stop: () => Promise<StopResult> }> {
  const log = pino({ level: options.logLevel, base: { component: 'nodenet-agent', node: options.nodeName } });
  const faultPoint = faultPointFromEnv();
  if (faultPoint)
    log.warn(
      { [FAULT_ENV]: faultPoint },
      'TEST-ONLY fault injection is active: the agent will SIGKILL itself',
    );
  const setup = await readSetup(options);
  const host = await hostParts(options, setup);
  const agent = agentParts(options, { setup, host, log, faultPoint });
  const problems: SelfCheckProblem[] = [];
  const endpoints = await serveEndpoints(
    {
      healthz: () => agent.loop.healthz(),
      readyz: () => (problems.length ? { ok: false, detail: problemsText(problems) } : agent.loop.readyz()),
      metrics: agent.metrics.registry,
    },
    { health: options.healthAddr, metrics: options.metricsAddr },
  );
  log.info(
    {
      vtepAddress: setup.vtepAddress,
      stateDir: options.stateDir,
      resyncMs: options.resyncMs,
      confirm: options.confirm,
    },
    'agent starting',
  );

  // 1. An apply cut off by the last stop (pending.json): restore and report, before anything else.
  await agent.loop.recover();
  // 2. Only then the self-check; a misconfigured agent takes no new work.
  problems.push(...setup.problems, ...(await selfCheckAgent(options, setup, host.frrOrError)));
  const stopReporting = await startOrReport(options, { agent, problems, log });
  return {
    stop: () =>
      shutdownWithin(
        [
          {
            // An apply under way finishes its step; a confirm window ends and the host is restored.
            name: 'finish or restore the apply under way',
            run: () => {
              stopReporting();
              agent.loop.stop();
              agent.pipeline.stop();
              return agent.loop.idle();
            },
          },
          { name: 'observed-state loop', run: () => agent.observation.stop(), maxMs: API_STEP_TIMEOUT_MS },
          // The last report (e.g. invalid, Interrupted) reaches the API server if it answers.
          { name: 'last status write', run: () => agent.status.flush(), maxMs: API_STEP_TIMEOUT_MS },
          {
            name: 'close connections and endpoints',
            run: () => {
              agent.status.stop();
              host.netlink.close();
              host.client.close();
              return endpoints.close();
            },
            maxMs: API_STEP_TIMEOUT_MS,
          },
        ],
        options.shutdownTimeoutMs,
      ),
  };
}

/** What the agent's own set-up gives, read before anything is touched. */
interface Setup {
  /**
   * Problems of the agent's own set-up, collected rather than thrown: the recovery of a cut-off
   * apply (pending.json) must run first, whatever else is wrong (issue #24 item 2).
   */
  problems: SelfCheckProblem[];
  healthConfig: HealthConfig;
  /** The bootstrap template (`--frr-template`), why it cannot be read, or none. */
  template: string | Error | undefined;
  vtepPresent: boolean;
  vtepAddress: string;
}

async function readSetup(options: AgentOptions): Promise<Setup> {
  const problems: SelfCheckProblem[] = [];
  const healthConfig = options.healthConfig
    ? await loadHealthConfig(options.healthConfig).catch((err: unknown) => {
        problems.push({ check: 'health-config', message: describeCause(err) });
        return DEFAULT_HEALTH_CONFIG;
      })
    : DEFAULT_HEALTH_CONFIG;
  const file = options.frr.template;
  const template =
    file === undefined
      ? undefined
      : await readFile(file, 'utf8').catch(
          (cause: unknown) =>
            new AgentError('InvalidOption', `--frr-template ${file}: cannot read: ${describeCause(cause)}`),
        );
  // The VTEP interface is part of the self-check: a missing one is reported, not thrown.
  const vtepPresent =
    options.vtepAddress !== undefined || (await sysfsInterfaceExists(options.vtepInterface));
  const vtepAddress =
    options.vtepAddress ?? (vtepPresent ? await firstIpv4Address(options.vtepInterface) : '0.0.0.0');
  return { problems, healthConfig, template, vtepPresent, vtepAddress };
}

/** The host and API-server side: kube client, checkpoint store, netlink and FRR drivers, health checks. */
async function hostParts(options: AgentOptions, setup: Setup) {
  const kubeConfig = loadKubeConfig(options.kubeconfig);
  const client = new KubeClient(kubeConfig);
  const clients = makeClients(client);
  const { vtepAddress } = setup;

  // The VRF instances peer with the default instance over iBGP, so their router ids must differ.
  const vrfRouterId = options.frr.vrfRouterId ?? vtepAddress;
  if (vrfRouterId === options.frr.routerId)
    setup.problems.push({
      check: 'router-id',
      message: `--router-id ${options.frr.routerId}: equals the VTEP address ${vtepAddress}, the default router id of the VRF instances; set --vrf-router-id to another address`,
    });
  // BGP passwords: read from their Secrets by name, kept in the state dir (secrets/password-book.ts).
  const passwords = new PasswordBook(options.stateDir, options.passwordNamespace, async (name) => {
    try {
      return (await clients.secret.get(name, options.passwordNamespace)).data ?? {};
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  });
  const frrOrError = frrDriverOrError(options, setup.template, vrfRouterId, passwords.lookup);

  const checkpoints = new CheckpointStore(options.stateDir);
  const netlink = createNetlinkDriver({
    settings: { vtepAddress, vtepInterface: options.vtepInterface },
    tableStatePath: join(options.stateDir, 'vrf-tables.json'),
    // Upgrade path: devices an older agent made for the applied checkpoint are adopted (marked) once.
    adoptable: async () => {
      const applied = await checkpoints.readApplied();
      return applied.kind === 'ok' ? applied.value.spec : undefined;
    },
  });

  const serverIsLocal = await serverOnThisHost(client.server);
  const apiServerProbe = async (timeoutMs: number): Promise<void> => {
    // Credentials are applied per probe: service-account tokens rotate.
    const tls: RequestOptions = {};
    await kubeConfig.applyToHTTPSOptions(tls);
    const headers = Object.fromEntries(Object.entries(tls.headers ?? {}).map(([k, v]) => [k, String(v)]));
    return httpApiServerProbe({ server: client.server, tls, headers, serverIsLocal })(timeoutMs);
  };
  const frr =
    frrOrError instanceof Error
      ? unusableFrr(frrOrError, resolveInstance(frrInstanceOptions(options)))
      : frrOrError;
  const health = new SpecHealthChecks(setup.healthConfig, {
    apiServer: apiServerProbe,
    frr: (sessions) => frr.status({ sessions }),
  });
  return { client, clients, checkpoints, netlink, frr, frrOrError, health, apiServerProbe, passwords };
}

type HostParts = Awaited<ReturnType<typeof hostParts>>;

/** The agent's own parts over the host's: metrics, status reporter, observation, pipeline, loop. */
function agentParts(
  options: AgentOptions,
  parts: { setup: Setup; host: HostParts; log: pino.Logger; faultPoint: FaultPoint | undefined },
) {
  const { host, log, faultPoint } = parts;
  const { clients } = host;
  const metrics = new AgentMetrics({ processMetrics: true });
  const status = new StatusReporter({
    write: nodeConfigStatusWriter(clients, options.nodeName),
    onWriteError: (err, attempt, retryInMs) => {
      metrics.statusWriteFailures.inc();
      log.warn({ err: describeCause(err), attempt, retryInMs }, 'NodeConfig status write failed; retrying');
    },
    onWritten: (s) =>
      log.info({ configStatus: s.configStatus, message: s.message }, 'NodeConfig status written'),
    liveness: new AgentLease({
      clients,
      nodeName: options.nodeName,
      namespace: options.leaseNamespace,
      durationSeconds: Math.max(1, Math.round((2 * options.heartbeatMs) / 1000)),
      onError: (err) =>
        log.warn({ err: describeCause(err) }, 'liveness Lease renewal failed; next beat retries'),
    }),
  });
  const observation = new NodeObservation({
    clients,
    nodeName: options.nodeName,
    read: frrObservedReader(resolveInstance(frrInstanceOptions(options))),
    intervalMs: options.observeMs,
    logger: log,
  });
  const pipeline = new Pipeline({
    drivers: hostDrivers(
      host.netlink,
      host.frr,
      { ...DEFAULT_L3VNI_ORDER, timeoutMs: options.l3vniTimeoutMs },
      host.passwords,
    ),
    checkpoints: host.checkpoints,
    health: host.health,
    status: observation.tap(status),
    metrics,
    logger: log,
    fault: killAt(faultPoint, (point) => log.warn({ point }, 'TEST-ONLY fault point reached: SIGKILL')),
    onFirstHealthy: () =>
      removeStartupTaints(clients, options.nodeName, host.health.config.startupTaints, log),
    confirm: options.confirm,
    apiServer: () => host.apiServerProbe(host.health.config.apiServer.timeoutMs),
    heartbeatMs: options.heartbeatMs,
  });
  const loop = new AgentLoop({
    nodeName: options.nodeName,
    clients,
    pipeline,
    status,
    metrics,
    logger: log,
    resyncMs: options.resyncMs,
    onOutcome: (outcome, nc) => observation.outcome(outcome, nc),
    events: new EventRecorder(clients.event, {
      component: 'nodenet-agent',
      instance: options.nodeName,
      namespace: 'default',
      onError: (err) => log.debug({ err: describeCause(err) }, 'event not recorded'),
    }),
  });
  return { clients, metrics, status, observation, pipeline, loop };
}

/** The start-up self-check: the FRR template through `vtysh -C`, and the VTEP interface. */
function selfCheckAgent(
  options: AgentOptions,
  setup: Setup,
  frrOrError: FrrDriver | Error,
): Promise<SelfCheckProblem[]> {
  return selfCheck({
    // Without a bootstrap template there is none to check before a NodeConfig brings one.
    renderEmpty: () => {
      if (frrOrError instanceof Error) throw frrOrError;
      return frrOrError.template ? frrOrError.render({ vrf: [], routingTable: [] }) : undefined;
    },
    checkFrr: (text) => (frrOrError instanceof Error ? Promise.reject(frrOrError) : frrOrError.check(text)),
    vtepInterface: options.vtepInterface,
    interfaceExists: () => Promise.resolve(setup.vtepPresent),
  });
}

/**
 * Without problems: clears an earlier misconfiguration and starts the loop. With problems: applies
 * nothing and keeps saying why. Returns the function that stops that reporting.
 */
async function startOrReport(
  options: AgentOptions,
  run: { agent: ReturnType<typeof agentParts>; problems: SelfCheckProblem[]; log: pino.Logger },
): Promise<() => void> {
  const { agent, problems, log } = run;
  if (problems.length === 0) {
    await clearMisconfigured(agent.clients, options.nodeName, log);
    agent.observation.start();
    await agent.loop.start();
    return () => undefined;
  }
  log.error(
    { problems },
    'agent misconfigured: applying nothing; fix the configuration and restart the agent',
  );
  // The recovery's report first (bounded), then the misconfiguration (which keeps the others).
  await Promise.race([agent.status.flush(), sleepMs(API_STEP_TIMEOUT_MS)]);
  agent.status.stop();
  return reportMisconfigured(agent.clients, options.nodeName, problems, { log });
}

type StopResult = Awaited<ReturnType<typeof shutdownWithin>>;

const sleepMs = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms).unref());

/** The FRR driver, or why it cannot be built (a bad template is reported by the self-check). */
function frrDriverOrError(
  options: AgentOptions,
  template: string | Error | undefined,
  vrfRouterId: string,
  passwords: PasswordLookup,
): FrrDriver | Error {
  if (template instanceof Error) return template;
  try {
    return new FrrDriver({
      ...(template !== undefined ? { template } : {}),
      settings: { asn: options.frr.asn, routerId: options.frr.routerId, vrfRouterId, passwords },
      confdir: options.frr.confdir,
      bindir: options.frr.bindir,
      reloadCommand: options.frr.reloadCommand,
      ...(options.frr.pathspace ? { pathspace: options.frr.pathspace } : {}),
      ...(options.frr.rundir ? { rundir: options.frr.rundir } : {}),
    });
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

/**
 * Without a usable FRR driver, every FRR step fails with why; its files can still be read, so a
 * restore can tell that an interrupted change never wrote frr.conf (apply/restore.ts).
 */
function unusableFrr(error: Error, instance: ResolvedInstance): FrrDriver {
  const fail = (): Promise<never> => Promise.reject(error);
  const steps = { apply: fail, applySpec: fail, sync: fail, syncSpec: fail, removeAll: fail, restore: fail };
  return { instance, ...steps, status: fail } as unknown as FrrDriver;
}

/** Whether the API server's address is one of this host's at start-up (a control-plane node). */
async function serverOnThisHost(server: string): Promise<boolean> {
  const host = new URL(server).hostname.replace(/^\[|\]$/g, '');
  const address = isIP(host)
    ? host
    : await lookup(host).then(
        (r) => r.address,
        () => undefined,
      );
  return address !== undefined && (isLoopbackAddress(address) || hostAddresses().has(address));
}

/** The FRR instance the options name (as the driver gets it above), for the observer's vtysh. */
const frrInstanceOptions = (options: AgentOptions): FrrInstanceOptions => ({
  confdir: options.frr.confdir,
  bindir: options.frr.bindir,
  reloadCommand: options.frr.reloadCommand,
  ...(options.frr.pathspace ? { pathspace: options.frr.pathspace } : {}),
  ...(options.frr.rundir ? { rundir: options.frr.rundir } : {}),
});
