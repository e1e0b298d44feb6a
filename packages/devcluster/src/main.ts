#!/usr/bin/env node
/** nodenet-devcluster: runs the Kubernetes-API-compatible dev server until SIGINT/SIGTERM. */
import { Command, InvalidArgumentError, Option } from 'commander';
import {
  AUTHORIZATION_MODES,
  DEFAULT_MAX_OBJECT_BYTES,
  startDevCluster,
  type AuthorizationMode,
  type DevClusterOptions,
} from './index.js';
import { NODENET_VERSION } from '@nodenet/api';

function parseObjectBytes(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || n > 2 ** 31)
    throw new InvalidArgumentError(
      `--max-object-bytes must be a byte count (0: no limit), got ${JSON.stringify(v)}`,
    );
  return n;
}

function parsePort(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError(`--port must be an integer 0-65535, got ${JSON.stringify(v)}`);
  return n;
}

const program = new Command()
  .name('nodenet-devcluster')
  .version(NODENET_VERSION, '--version', 'print the version and exit')
  .description(
    'A Kubernetes-API-compatible server for tests and local runs: plain HTTP on loopback, or HTTPS (a CA in the kubeconfig),\n' +
      'bearer tokens, RBAC and admission under --authorization-mode RBAC.\n' +
      'Writes a kubeconfig usable by kubectl and @kubernetes/client-node, prints one line with the URL when ready,\n' +
      'and stops cleanly on SIGINT/SIGTERM.',
  )
  .option('--port <n>', 'TCP port to listen on (0 picks a free port)', parsePort, 0)
  .option(
    '--address <ip>',
    'address to listen on; a non-loopback one (e.g. 0.0.0.0, so agents in network namespaces reach it) only with --authorization-mode RBAC',
    '127.0.0.1',
  )
  .option('--kubeconfig <path>', 'where to write the kubeconfig (default: a temporary file, removed on exit)')
  .option('--crds <dir>', 'register every CustomResourceDefinition YAML in this directory at start')
  .addOption(
    new Option(
      '--authorization-mode <mode>',
      'AlwaysAllow: no token needed, nothing refused (local runs); RBAC: bearer tokens required (the kubeconfig carries the admin token), RBAC and ValidatingAdmissionPolicies enforced',
    )
      .choices(AUTHORIZATION_MODES)
      .default('AlwaysAllow'),
  )
  .option(
    '--max-object-bytes <n>',
    "largest object stored (JSON bytes); bigger writes are refused as etcd's --max-request-bytes refuses them (0: no limit)",
    parseObjectBytes,
    DEFAULT_MAX_OBJECT_BYTES,
  )
  .option(
    '--data-dir <dir>',
    'persist objects in this directory so they survive a restart (default: memory only)',
  )
  .addHelpText(
    'after',
    '\nExample:\n  nodenet-devcluster --port 6443 --kubeconfig ./kubeconfig --crds crds/\n  kubectl --kubeconfig ./kubeconfig get crds',
  )
  .parse();

const opts = program.opts<{
  port: number;
  address: string;
  kubeconfig?: string;
  crds?: string;
  dataDir?: string;
  authorizationMode: AuthorizationMode;
  maxObjectBytes: number;
}>();
const options: DevClusterOptions = {
  port: opts.port,
  address: opts.address,
  authorizationMode: opts.authorizationMode,
  maxObjectBytes: opts.maxObjectBytes,
};
if (opts.kubeconfig) options.kubeconfigPath = opts.kubeconfig;
if (opts.crds) options.crdsDir = opts.crds;
if (opts.dataDir) options.dataDir = opts.dataDir;

try {
  const dc = await startDevCluster(options);
  console.log(`nodenet-devcluster listening on ${dc.url} (kubeconfig: ${dc.kubeconfigPath})`);
  // A line to paste, so kubectl in another shell talks to this server.
  console.log(`export KUBECONFIG=${dc.kubeconfigPath}`);
  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    dc.stop().then(
      () => process.exit(0),
      (e: unknown) => {
        console.error(`nodenet-devcluster: error while stopping after ${signal}:`, e);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
} catch (e) {
  console.error(`nodenet-devcluster: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
}
