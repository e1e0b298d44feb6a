/** Issue 35's sabotage switches: the planner shown a view of the fleet that breaks one rule (planner-pass.ts). */
import { MOVE_ANNOTATION, type NodeConfig } from '@nodenet/api';
import type { Observations } from '@nodenet/configurator';

/**
 * Issue 35's rules broken from outside, by what the planner is shown: forgetOutages (every NotReady
 * stretch starts the not-ready timer afresh, and a node Ready at its soak's end finished: flapping
 * walks), interruptedFree (an Interrupted report is never a cut-off's: the node's outages hidden
 * from it), catchUpUncounted (catch-up moves shown as forward moves of a completed revision).
 */
export type ObservationSabotage = 'forgetOutages' | 'interruptedFree' | 'catchUpUncounted';

export function sabotagedView(
  s: string | undefined,
  observations: Observations,
  ncs: NodeConfig[],
): { observations: Observations; ncs: NodeConfig[] } {
  const interrupted = (name: string): boolean =>
    ncs.some((nc) => nc.metadata.name === name && nc.status?.failureCause === 'Interrupted');
  if (s === 'forgetOutages' || s === 'interruptedFree')
    return {
      observations: new Map(
        [...observations].map(([name, o]) =>
          s === 'forgetOutages' || interrupted(name) ? [name, { ...o, downMs: 0, readyRunMs: 0 }] : [name, o],
        ),
      ),
      ncs,
    };
  if (s === 'catchUpUncounted')
    return {
      observations,
      ncs: ncs.map((nc) =>
        nc.metadata.annotations?.[MOVE_ANNOTATION] === 'catch-up'
          ? {
              ...nc,
              metadata: {
                ...nc.metadata,
                annotations: { ...nc.metadata.annotations, [MOVE_ANNOTATION]: 'forward' },
              },
            }
          : nc,
      ),
    };
  return { observations, ncs };
}
