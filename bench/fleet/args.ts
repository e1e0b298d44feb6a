/** The fleet benchmark's command line (bench/fleet.ts has the usage). */
import { parseArgs } from 'node:util';

export const { values: args } = parseArgs({
  options: {
    nodes: { type: 'string', default: '1000' },
    limit: { type: 'string', default: '100' },
    latency: { type: 'string', default: '200' },
    coalesce: { type: 'string', default: '50' },
    'single-process': { type: 'boolean', default: false },
    'skip-fleet': { type: 'boolean', default: false },
    'skip-build': { type: 'boolean', default: false },
    'skip-blast': { type: 'boolean', default: false },
    'skip-histories': { type: 'boolean', default: false },
    'blast-nodes': { type: 'string', default: '100' },
    'blast-limit': { type: 'string', default: '10' },
    'not-ready-timeout': { type: 'string', default: '2000' },
    /** The revision build's size (scenario 2). */
    'build-nodes': { type: 'string', default: '5000' },
    'build-l2': { type: 'string', default: '2000' },
    'build-vrfs': { type: 'string', default: '500' },
    /** Write V8 CPU profiles of the devcluster and agents processes here (run this one with --cpu-prof). */
    'cpu-prof-dir': { type: 'string' },
  },
});
export const SINGLE = args['single-process'];
export const PROF = args['cpu-prof-dir'] ? ['--cpu-prof', '--cpu-prof-dir', args['cpu-prof-dir']] : [];
export const N = Number(args.nodes);
export const LIMIT = Number(args.limit);
export const LATENCY = Number(args.latency);
export const COALESCE = Number(args.coalesce);
export const TIMEOUT_S = 120;
export const CRDS = new URL('../../crds/', import.meta.url).pathname;
export const DEVCLUSTER_MAIN = new URL('../../packages/devcluster/dist/main.js', import.meta.url).pathname;
export const AGENTS_MAIN = new URL('../fleet-agents.ts', import.meta.url).pathname;
export const FLOOR_MAIN = new URL('../fleet-client-floor.ts', import.meta.url).pathname;
