/**
 * Fleet benchmark (issue 4).
 * 1. 1,000 simulated nodes, --update-limit 100, 200 ms simulated apply: time from an input change to
 *    the revision's Complete condition (every node reported the new revision), next to the floor
 *    ceil(1000/100) × 200 ms, plus the configurator's API requests per node and where the time goes.
 *    devcluster (the real CLI) and the simulated agents (bench/fleet-agents.ts, one shared NodeConfig
 *    watch) each run in a process of their own, so that the figure measures the configurator rather
 *    than three programs sharing one event loop; --single-process puts all three in this process.
 *    Then the client floor (bench/fleet/floor.ts): the same NodeConfig traffic (one patch fed back and
 *    two status writes per node) made by a process that does nothing else, whose CPU per node says how
 *    much of the configurator's is its Kubernetes client.
 * 2. Revision build for 5,000 nodes, 2,000 Layer-2 networks with node selectors and 500 VRFs:
 *    validation + merge + hash, the 5,000 NodeConfig specs, and one planner pass; time and memory.
 * 3. Blast radius (issue 10): a bad revision knocks the first node that takes it off the network
 *    (it reports provisioned, then its agent is silent and its Node NotReady). Reported: how many
 *    nodes received the revision, against the update limit, and the time from the node going NotReady
 *    to the revision being invalid, against --not-ready-timeout. One process (devcluster, agents,
 *    configurator), 100 nodes, limit 10, 200 ms apply, 1 s soak, 2 s NotReady timeout by default.
 * 4. Blast radius of every history the fleet simulator plays (issue 23, bench/fleet-histories.ts):
 *    per bad change, the nodes it reached against --update-limit + --max-failures, on virtual time.
 * Run: npx tsc -b packages/devcluster && npx tsx bench/fleet.ts
 *      [--nodes 1000] [--limit 100] [--latency 200] [--coalesce 50] [--single-process] [--skip-fleet]
 *      [--skip-build] [--skip-blast] [--skip-histories] [--blast-nodes 100] [--blast-limit 10] [--not-ready-timeout 2000]
 *      [--cpu-prof-dir DIR]
 * Scenarios live in bench/fleet/ (rollout.ts, build.ts, blast.ts); their processes and watches beside them.
 */
import os from 'node:os';
import { args } from './fleet/args.js';
import { blastScenario } from './fleet/blast.js';
import { buildScenario } from './fleet/build.js';
import { blastRadiusOfHistories } from './fleet-histories.js';
import { fleetScenario } from './fleet/rollout.js';

function printTable(title: string, rows: Record<string, string>): void {
  const w = Math.max(...Object.keys(rows).map((k) => k.length));
  console.log(`\n${title}`);
  console.log(`${'-'.repeat(w)}-+-${'-'.repeat(40)}`);
  for (const [k, v] of Object.entries(rows)) console.log(`${k.padEnd(w)} | ${v}`);
}

const machine = `${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), load average ${os
  .loadavg()
  .map((x) => x.toFixed(2))
  .join(' ')} at start, node ${process.version}`;
console.log(`machine: ${machine}`);
if (!args['skip-build']) printTable('== revision build', buildScenario());
if (!args['skip-fleet']) printTable('== fleet rollout', await fleetScenario());
if (!args['skip-blast'])
  printTable('== blast radius of a revision that cuts a node off', await blastScenario());
if (!args['skip-histories'])
  printTable(
    '== blast radius of the simulated histories (bad change: nodes reached vs --update-limit + --max-failures)',
    blastRadiusOfHistories(),
  );
process.exit(0);
