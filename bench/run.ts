/**
 * `npm run bench [name...]`: runs the benchmarks one after another, each in its own process so one
 * benchmark's heap and event loop do not colour the next. With no names, runs them all. Benchmarks
 * that need root or network namespaces say so and are skipped when not root.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
// The benchmarks proper; other files in bench/ are modules they load (child processes, fixtures).
// A name with arguments runs a benchmark file with them (its file, then its arguments).
const withArgs: Record<string, string[]> = {
  // The issue-26 row "configurator CPU per node ≤ 0.2 ms at 5,000": the fleet rollout alone at 5,000
  // nodes (limit 500), with its client floor; the 1,000-node `fleet` run gives the wall-time figure.
  'fleet-5000': [
    'fleet',
    '--nodes',
    '5000',
    '--limit',
    '500',
    '--skip-build',
    '--skip-blast',
    '--skip-histories',
  ],
  // Issue 40: what each node costs at 65,000 nodes (devcluster, the configurator binary, agents with
  // the real agent's write pattern), the revision build and the planner at that size. Not in the
  // default run: on a 2-core machine it takes hours (see bench/fleet-scale.ts); by name only.
  'fleet-65000': ['fleet-scale', '--nodes', '65000'],
};
/** Benchmarks run by name only (`npm run bench <name>`), too long for the default run. */
const BY_NAME_ONLY = ['fleet-65000'];
const available = [
  'devcluster',
  'fleet',
  'fleet-5000',
  'fleet-unchanged',
  'configurator-budget',
  'netlink',
  'frr-render',
  'host-plan',
  'frr-budget',
  'frr-vm',
  'agent-apply',
  'agent-idle',
  'dashboard',
];
const NEEDS_ROOT = new Set(['netlink', 'frr-budget', 'frr-vm', 'agent-apply', 'agent-idle']);

const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !available.includes(w) && !BY_NAME_ONLY.includes(w));
if (unknown.length > 0) {
  console.error(
    `unknown benchmark(s): ${unknown.join(', ')}; available: ${[...available, ...BY_NAME_ONLY].join(', ')}`,
  );
  process.exit(2);
}

let failed = 0;
for (const name of wanted.length > 0 ? wanted : available) {
  if (NEEDS_ROOT.has(name) && process.getuid?.() !== 0) {
    console.log(`\n== ${name}: skipped (needs root for network namespaces)`);
    continue;
  }
  console.log(`\n== ${name}`);
  const [file, ...args] = withArgs[name] ?? [name];
  const r = spawnSync(process.execPath, ['--import', 'tsx', `${dir}${file}.ts`, ...args], {
    stdio: 'inherit',
  });
  if (r.status !== 0) {
    failed++;
    console.error(`== ${name} failed (exit ${r.status ?? r.signal})`);
  }
}
process.exit(failed > 0 ? 1 : 0);
