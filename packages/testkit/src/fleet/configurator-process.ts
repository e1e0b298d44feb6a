/**
 * The configurator binary as a child process, with test timings. Free of vitest: the demo
 * (`npm start`) uses it through the agent host support too.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CONFIGURATOR_MAIN = fileURLToPath(
  new URL('../../../configurator/dist/main.js', import.meta.url),
);

/**
 * The configurator binary (build it first) with test timings: leader election in `default` with a
 * 3 s lease, endpoints on free loopback ports, warnings only. `args` come last, so they win.
 */
export function spawnConfigurator(
  kubeconfigPath: string,
  args: string[] = [],
  options: SpawnOptions = { stdio: ['ignore', 'ignore', 'inherit'] },
): ChildProcess {
  const defaults = [
    ...['--kubeconfig', kubeconfigPath, '--leader-election-namespace', 'default'],
    ...['--leader-election-lease-duration', '3s', '--leader-election-renew-deadline', '2s'],
    ...['--leader-election-retry-period', '500ms', '--metrics-addr', '127.0.0.1:0'],
    ...['--health-addr', '127.0.0.1:0', '--log-level', 'warn'],
    // Where the simulated agents renew their liveness Leases (agent-liveness.ts).
    ...['--agent-lease-namespace', 'default'],
    // No soak (the default is 1m, docs/rollout.md): these suites test other rules; the soak has its own.
    ...['--min-success-time', '0s'],
  ];
  return spawn(process.execPath, [CONFIGURATOR_MAIN, ...defaults, ...args], options);
}
