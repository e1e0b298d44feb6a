#!/usr/bin/env node
/**
 * `nodenet-agent`: wires the real parts together — kube client and NodeConfig watch, netlink and FRR
 * drivers, health checks, checkpoint store, status reporter, metrics and probe endpoints — and runs
 * the loop until SIGTERM. See options.ts for the flags (`--help`).
 */
import { readFile } from 'node:fs/promises';
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
} from '@nodenet/kube';
import { AgentLoop, nodeConfigStatusWriter, removeStartupTaints } from './agent.js';
import { CheckpointStore } from './checkpoint.js';
import { hostDrivers } from './drivers.js';
import { AgentError, describeCause, OptionError } from './errors.js';
import { FAULT_ENV, faultPointFromEnv, killAt } from './fault.js';
import { FrrDriver, resolveInstance, type FrrInstanceOptions } from './frr/index.js';
import {
  DEFAULT_HEALTH_CONFIG,
  HealthChecker,
  httpApiServerProbe,
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
import { StatusReporter } from './status.js';

export async function runAgent(options: AgentOptions): Promise<{ stop: () => Promise<void> }> {
  const log = pino({ level: options.logLevel, base: { component: 'nodenet-agent', node: options.nodeName } });
  const faultPoint = faultPointFromEnv();
  if (faultPoint)
    log.warn(
      { [FAULT_ENV]: faultPoint },
      'TEST-ONLY fault injection is active: the agent will SIGKILL itself',
    );

  const healthConfig = options.healthConfig
    ? await loadHealthConfig(options.healthConfig)
    : DEFAULT_HEALTH_CONFIG;
  const template = await readFile(options.frr.template, 'utf8').catch((cause: unknown) => {
    throw new AgentError(
      'InvalidOption',
      `--frr-template ${options.frr.template}: cannot read: ${describeCause(cause)}`,
    );
  });
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
  if (vrfRouterId === options.frr.routerId) {
    throw new OptionError(
      '--router-id',
      options.frr.routerId,
      `equals the VTEP address ${vtepAddress}, the default router id of the VRF instances; set --vrf-router-id to another address`,
    );
  }
  let frrOrError: FrrDriver | Error;
  try {
    frrOrError = new FrrDriver({
      template,
      settings: { asn: options.frr.asn, routerId: options.frr.routerId, vrfRouterId },
      confdir: options.frr.confdir,
      bindir: options.frr.bindir,
      reloadCommand: options.frr.reloadCommand,
      ...(options.frr.pathspace ? { pathspace: options.frr.pathspace } : {}),
      ...(options.frr.rundir ? { rundir: options.frr.rundir } : {}),
    });
  } catch (err) {
    frrOrError = err instanceof Error ? err : new Error(String(err));
  }
  const problems = await selfCheck({
    renderEmpty: () => {
      if (frrOrError instanceof Error) throw frrOrError;
      return frrOrError.render({ vrf: [], routingTable: [] });
    },
    checkFrr: (text) => (frrOrError instanceof Error ? Promise.reject(frrOrError) : frrOrError.check(text)),
    vtepInterface: options.vtepInterface,
    interfaceExists: async () => vtepPresent,
  });
  if (problems.length > 0 || frrOrError instanceof Error)
    return runMisconfigured(options, clients, problems, log);
  const frr = frrOrError;
  await clearMisconfigured(clients, options.nodeName, log);

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

  const apiServerProbe = async (timeoutMs: number): Promise<void> => {
    // Credentials are applied per probe: service-account tokens rotate.
    const tls: RequestOptions = {};
    await kubeConfig.applyToHTTPSOptions(tls);
    const headers = Object.fromEntries(Object.entries(tls.headers ?? {}).map(([k, v]) => [k, String(v)]));
    return httpApiServerProbe({ server: client.server, tls, headers })(timeoutMs);
  };
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

  const servers: Server[] = [];
  const same =
    options.metricsAddr.host === options.healthAddr.host &&
    options.metricsAddr.port === options.healthAddr.port;
  const probes = { healthz: () => loop.healthz(), readyz: () => loop.readyz() };
  if (same) {
    servers.push(createEndpointServer({ ...probes, metrics: metrics.registry }));
    await listen(servers[0]!, options.metricsAddr);
  } else {
    servers.push(createEndpointServer({ metrics: metrics.registry }), createEndpointServer(probes));
    await listen(servers[0]!, options.metricsAddr);
    await listen(servers[1]!, options.healthAddr);
  }
  log.info(
    { vtepAddress, stateDir: options.stateDir, resyncMs: options.resyncMs, confirm: options.confirm },
    'agent starting',
  );
  observation.start();
  await loop.start();

  return {
    stop: async () => {
      // An apply under way finishes its step; a confirm window ends and the host is restored
      // before we exit (deploy/agent's terminationGracePeriodSeconds covers the worst case).
      loop.stop();
      pipeline.stop();
      await loop.idle();
      await observation.stop();
      // Give a pending status write a moment; never block shutdown on an unreachable API server.
      await Promise.race([status.flush(), new Promise((r) => setTimeout(r, 2000))]);
      status.stop();
      netlink.close();
      client.close();
      await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    },
  };
}

/** The FRR instance the options name (as the driver gets it above), for the observer's vtysh. */
const frrInstanceOptions = (options: AgentOptions): FrrInstanceOptions => ({
  confdir: options.frr.confdir,
  bindir: options.frr.bindir,
  reloadCommand: options.frr.reloadCommand,
  ...(options.frr.pathspace ? { pathspace: options.frr.pathspace } : {}),
  ...(options.frr.rundir ? { rundir: options.frr.rundir } : {}),
});

/**
 * A misconfigured agent (self-check.ts) applies nothing: it serves /healthz (alive) and /readyz (not
 * ready, saying why) and reports the problems on its NodeConfig and Node until it is stopped.
 */
async function runMisconfigured(
  options: AgentOptions,
  clients: ReturnType<typeof makeClients>,
  problems: SelfCheckProblem[],
  log: pino.Logger,
): Promise<{ stop: () => Promise<void> }> {
  log.error(
    { problems },
    'agent misconfigured: applying nothing; fix the configuration and restart the agent',
  );
  const probes = {
    healthz: () => ({ ok: true, detail: 'alive (misconfigured: see /readyz)' }),
    readyz: () => ({ ok: false, detail: problemsText(problems) }),
  };
  const addresses = [options.healthAddr, options.metricsAddr].filter(
    (a, i, all) => all.findIndex((b) => b.host === a.host && b.port === a.port) === i,
  );
  const servers = addresses.map(() => createEndpointServer(probes));
  for (const [i, server] of servers.entries()) await listen(server, addresses[i]!);
  const stopReporting = reportMisconfigured(clients, options.nodeName, problems, log);
  return {
    stop: async () => {
      stopReporting();
      clients.client.close();
      await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    },
  };
}

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
    if (stopping) return;
    stopping = true;
    console.error(`nodenet-agent: ${signal}, shutting down`);
    agent.stop().then(
      () => process.exit(0),
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
