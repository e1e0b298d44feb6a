#!/usr/bin/env node
/**
 * `nodenet-agent`: wires the real parts together — kube client and NodeConfig watch, netlink and FRR
 * drivers, health checks, checkpoint store, status reporter, metrics and probe endpoints — and runs
 * the loop until SIGTERM. See options.ts for the flags (`--help`).
 */
import { lookup } from 'node:dns/promises';
import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import type { Server } from 'node:http';
import type { RequestOptions } from 'node:https';
import { join } from 'node:path';
import type { Command } from 'commander';
import pino from 'pino';
import {
  createEndpointServer,
  EventRecorder,
  KubeClient,
  listen,
  loadKubeConfig,
  makeClients,
  shutdownWithin,
  type Probe,
} from '@nodenet/kube';
import { AgentLoop, nodeConfigStatusWriter, removeStartupTaints } from './agent.js';
import { CheckpointStore } from './checkpoint.js';
import { hostDrivers } from './drivers.js';
import { AgentError, describeCause } from './errors.js';
import { FAULT_ENV, faultPointFromEnv, killAt } from './fault.js';
import { FrrDriver, resolveInstance, type FrrInstanceOptions } from './frr/index.js';
import {
  DEFAULT_HEALTH_CONFIG,
  HealthChecker,
  hostAddresses,
  httpApiServerProbe,
  isLoopbackAddress,
  loadHealthConfig,
} from './health/index.js';
import { firstIpv4Address } from './host-address.js';
import { DEFAULT_L3VNI_ORDER } from './l3vni-order.js';
import { AgentMetrics } from './metrics.js';
import { createNetlinkDriver } from './netlink/index.js';
import { NodeObservation } from './node-observation.js';
import { frrObservedReader } from './observed/index.js';
import { buildProgram, resolveOptions, type AgentOptions, type RawOptions } from './options.js';
import { Pipeline } from './pipeline.js';
import {
  clearMisconfigured,
  problemsText,
  reportMisconfigured,
  selfCheck,
  sysfsInterfaceExists,
  type SelfCheckProblem,
} from './self-check.js';
import { API_STEP_TIMEOUT_MS } from './shutdown.js';
import { StatusReporter } from './status.js';

export async function runAgent(options: AgentOptions): Promise<{ stop: () => Promise<StopResult> }> {
  const log = pino({ level: options.logLevel, base: { component: 'nodenet-agent', node: options.nodeName } });
  const faultPoint = faultPointFromEnv();
  if (faultPoint)
    log.warn(
      { [FAULT_ENV]: faultPoint },
      'TEST-ONLY fault injection is active: the agent will SIGKILL itself',
    );
  // Problems of the agent's own set-up are collected, not thrown: the recovery of a cut-off apply
  // (pending.json) below must run first, whatever else is wrong (issue #24 item 2).
  const setupProblems: SelfCheckProblem[] = [];
  const healthConfig = options.healthConfig
    ? await loadHealthConfig(options.healthConfig).catch((err: unknown) => {
        setupProblems.push({ check: 'health-config', message: describeCause(err) });
        return DEFAULT_HEALTH_CONFIG;
      })
    : DEFAULT_HEALTH_CONFIG;
  const template = await readFile(options.frr.template, 'utf8').catch(
    (cause: unknown) =>
      new AgentError(
        'InvalidOption',
        `--frr-template ${options.frr.template}: cannot read: ${describeCause(cause)}`,
      ),
  );
  // The VTEP interface is part of the self-check below: a missing one is reported, not thrown.
  const vtepPresent =
    options.vtepAddress !== undefined || (await sysfsInterfaceExists(options.vtepInterface));
  const vtepAddress =
    options.vtepAddress ?? (vtepPresent ? await firstIpv4Address(options.vtepInterface) : '0.0.0.0');

  const kubeConfig = loadKubeConfig(options.kubeconfig);
  const client = new KubeClient(kubeConfig);
  const clients = makeClients(client);

  // The VRF instances peer with the default instance over iBGP, so their router ids must differ.
  const vrfRouterId = options.frr.vrfRouterId ?? vtepAddress;
  if (vrfRouterId === options.frr.routerId)
    setupProblems.push({
      check: 'router-id',
      message: `--router-id ${options.frr.routerId}: equals the VTEP address ${vtepAddress}, the default router id of the VRF instances; set --vrf-router-id to another address`,
    });
  const frrOrError = frrDriverOrError(options, template, vrfRouterId);

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
  const frr = frrOrError instanceof Error ? unusableFrr(frrOrError) : frrOrError;
  const health = new HealthChecker(healthConfig, {
    apiServer: apiServerProbe,
    frr: (sessions) => frr.status({ sessions }),
  });

  const metrics = new AgentMetrics({ processMetrics: true });
  const status = new StatusReporter({
    write: nodeConfigStatusWriter(clients, options.nodeName),
    onWriteError: (err, attempt, retryInMs) => {
      metrics.statusWriteFailures.inc();
      log.warn({ err: describeCause(err), attempt, retryInMs }, 'NodeConfig status write failed; retrying');
    },
    onWritten: (s) =>
      log.info({ configStatus: s.configStatus, message: s.message }, 'NodeConfig status written'),
  });
  const observation = new NodeObservation({
    clients,
    nodeName: options.nodeName,
    read: frrObservedReader(resolveInstance(frrInstanceOptions(options))),
    intervalMs: options.observeMs,
    logger: log,
  });
  const pipeline = new Pipeline({
    drivers: hostDrivers(netlink, frr, { ...DEFAULT_L3VNI_ORDER, timeoutMs: options.l3vniTimeoutMs }),
    checkpoints,
    health,
    status: observation.tap(status),
    metrics,
    logger: log,
    fault: killAt(faultPoint, (point) => log.warn({ point }, 'TEST-ONLY fault point reached: SIGKILL')),
    onFirstHealthy: () => removeStartupTaints(clients, options.nodeName, healthConfig.startupTaints, log),
    confirm: options.confirm,
    apiServer: () => apiServerProbe(healthConfig.apiServer.timeoutMs),
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

  const problems: SelfCheckProblem[] = [];
  const probes = {
    healthz: () => loop.healthz(),
    readyz: () => (problems.length ? { ok: false, detail: problemsText(problems) } : loop.readyz()),
  };
  const servers = await serveEndpoints(options, probes, metrics);
  log.info(
    { vtepAddress, stateDir: options.stateDir, resyncMs: options.resyncMs, confirm: options.confirm },
    'agent starting',
  );

  // 1. An apply cut off by the last stop (pending.json): restore and report, before anything else.
  await loop.recover();
  // 2. Only then the self-check; a misconfigured agent takes no new work.
  problems.push(
    ...setupProblems,
    ...(await selfCheck({
      renderEmpty: () => {
        if (frrOrError instanceof Error) throw frrOrError;
        return frrOrError.render({ vrf: [], routingTable: [] });
      },
      checkFrr: (text) => (frrOrError instanceof Error ? Promise.reject(frrOrError) : frrOrError.check(text)),
      vtepInterface: options.vtepInterface,
      interfaceExists: async () => vtepPresent,
    })),
  );
  let stopReporting = (): void => undefined;
  if (problems.length > 0) {
    log.error(
      { problems },
      'agent misconfigured: applying nothing; fix the configuration and restart the agent',
    );
    // The recovery's report first (bounded), then the misconfiguration (which keeps the others).
    await Promise.race([status.flush(), sleepMs(API_STEP_TIMEOUT_MS)]);
    status.stop();
    stopReporting = reportMisconfigured(clients, options.nodeName, problems, log);
  } else {
    await clearMisconfigured(clients, options.nodeName, log);
    observation.start();
    await loop.start();
  }

  return {
    stop: () =>
      shutdownWithin(
        [
          {
            // An apply under way finishes its step; a confirm window ends and the host is restored.
            name: 'finish or restore the apply under way',
            run: () => {
              stopReporting();
              loop.stop();
              pipeline.stop();
              return loop.idle();
            },
          },
          { name: 'observed-state loop', run: () => observation.stop(), maxMs: API_STEP_TIMEOUT_MS },
          // The last report (e.g. invalid, Interrupted) reaches the API server if it answers.
          { name: 'last status write', run: () => status.flush(), maxMs: API_STEP_TIMEOUT_MS },
          {
            name: 'close connections and endpoints',
            run: () => {
              status.stop();
              netlink.close();
              client.close();
              return Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
            },
            maxMs: API_STEP_TIMEOUT_MS,
          },
        ],
        options.shutdownTimeoutMs,
      ),
  };
}

type StopResult = Awaited<ReturnType<typeof shutdownWithin>>;

const sleepMs = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms).unref());

/** The FRR driver, or why it cannot be built (a bad template is reported by the self-check). */
function frrDriverOrError(
  options: AgentOptions,
  template: string | Error,
  vrfRouterId: string,
): FrrDriver | Error {
  if (template instanceof Error) return template;
  try {
    return new FrrDriver({
      template,
      settings: { asn: options.frr.asn, routerId: options.frr.routerId, vrfRouterId },
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

/** Without a usable FRR driver, every FRR step fails with why (a restore then says RestoreFailed). */
function unusableFrr(error: Error): FrrDriver {
  const fail = (): Promise<never> => Promise.reject(error);
  return { apply: fail, sync: fail, removeAll: fail, status: fail } as unknown as FrrDriver;
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

/** /metrics, /healthz and /readyz, on one or two addresses. */
async function serveEndpoints(
  options: AgentOptions,
  probes: { healthz: () => Probe; readyz: () => Probe },
  metrics: AgentMetrics,
): Promise<Server[]> {
  const servers: Server[] = [];
  const same =
    options.metricsAddr.host === options.healthAddr.host &&
    options.metricsAddr.port === options.healthAddr.port;
  if (same) {
    servers.push(createEndpointServer({ ...probes, metrics: metrics.registry }));
    await listen(servers[0]!, options.metricsAddr);
  } else {
    servers.push(createEndpointServer({ metrics: metrics.registry }), createEndpointServer(probes));
    await listen(servers[0]!, options.metricsAddr);
    await listen(servers[1]!, options.healthAddr);
  }
  return servers;
}

/** The FRR instance the options name (as the driver gets it above), for the observer's vtysh. */
const frrInstanceOptions = (options: AgentOptions): FrrInstanceOptions => ({
  confdir: options.frr.confdir,
  bindir: options.frr.bindir,
  reloadCommand: options.frr.reloadCommand,
  ...(options.frr.pathspace ? { pathspace: options.frr.pathspace } : {}),
  ...(options.frr.rundir ? { rundir: options.frr.rundir } : {}),
});

async function main(argv: string[]): Promise<void> {
  const program: Command = buildProgram();
  program.parse(argv);
  let options: AgentOptions;
  try {
    options = resolveOptions(program.opts<RawOptions>());
  } catch (err) {
    program.error(`error: ${describeCause(err)}`, { exitCode: 2 });
  }
  const agent = await runAgent(options);
  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) {
      console.error(`nodenet-agent: ${signal} again, exiting at once`);
      process.exit(1);
    }
    stopping = true;
    console.error(`nodenet-agent: ${signal}, shutting down (deadline ${options.shutdownTimeoutMs} ms)`);
    // A backstop in case something outside the bounded steps keeps the process busy.
    setTimeout(() => process.exit(1), options.shutdownTimeoutMs + 2_000).unref();
    agent.stop().then(
      (result) => {
        if (result.complete) process.exit(0);
        console.error(
          `nodenet-agent: shutdown cut short after ${result.elapsedMs} ms: ${result.unfinished.join('; ')}`,
        );
        process.exit(1);
      },
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

// Run only as the entry point, so tests can import runAgent.
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  main(process.argv).catch((err: unknown) => {
    console.error(`nodenet-agent: ${describeCause(err)}`);
    process.exit(1);
  });
}
