/**
 * The client floor (issue 26): what the configurator's Kubernetes traffic of a rollout costs a
 * process that does nothing else (bench/fleet-client-floor.ts), per node, to read the
 * configurator's CPU per node against. Run on the fleet scenario's cluster once its rollout is
 * over and the configurator stopped: the same NodeConfigs and simulated agents.
 */
import { once } from 'node:events';
import { FLOOR_MAIN } from './args.js';
import { forkChild } from './processes.js';

export interface ClientFloor {
  /** CPU of the floor process from its first patch to the last node's `provisioned` (ms). */
  cpuMs: number;
  nodes: number;
  /** Informer events it delivered (its own writes fed back, then the agents' status writes). */
  events: number;
}

export async function clientFloor(kubeconfigPath: string): Promise<ClientFloor> {
  const { child, next } = forkChild(FLOOR_MAIN);
  const ready = next('ready');
  child.send({ type: 'start', kubeconfigPath });
  await ready;
  const done = next<ClientFloor>('done');
  child.send({ type: 'run' });
  const { cpuMs, nodes, events } = await done;
  const exited = once(child, 'exit');
  child.send({ type: 'stop' });
  await exited;
  return { cpuMs, nodes, events };
}

export const clientFloorRow = (f: ClientFloor): string =>
  `${(f.cpuMs / f.nodes).toFixed(2)} ms (${f.cpuMs.toFixed(0)} ms for ${f.nodes} patches fed back and ` +
  `${f.events} informer events, no planning: ${((f.cpuMs / f.nodes / 0.2) * 100).toFixed(0)} % of the goal)`;
