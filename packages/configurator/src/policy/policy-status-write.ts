/**
 * The write of the RolloutPolicy status (fleet-policy.ts decides it): paced like the revisions'
 * status writes, fed back into the informer; a failed write is counted, never thrown.
 */
import type { Clients, Informer } from '@nodenet/kube';
import type { NetworkConfigRevision, RolloutPolicy } from '@nodenet/api';
import type { Logger } from 'pino';
import { rolloutPolicyStatus } from './fleet-policy.js';
import type { Plan } from '../rollout/index.js';
import type { WritePace } from '../pace/write-pace.js';

export interface PolicyStatusContext {
  clients: Pick<Clients, 'rolloutPolicy'>;
  informers: { revision: Informer<NetworkConfigRevision>; rolloutPolicy: Informer<RolloutPolicy> };
  pace: WritePace;
  log: Logger;
}

/** Where the rollout stands, on the RolloutPolicy `default`; 1 on a failed write. */
export async function writeRolloutPolicyStatus(
  ctx: PolicyStatusContext,
  rp: RolloutPolicy,
  pass: { plan: Plan; problems: string[]; now: number },
): Promise<number> {
  const status = rolloutPolicyStatus(rp, { ...pass, revisions: ctx.informers.revision.list() });
  const key = `RolloutPolicy ${rp.metadata.name}`;
  if (!status || !ctx.pace.status.dueOne(key, rp.status, status, performance.now())) return 0;
  try {
    ctx.informers.rolloutPolicy.mutated(await ctx.clients.rolloutPolicy.updateStatus({ ...rp, status }));
    return 0;
  } catch (err) {
    ctx.log.warn(
      { err: err instanceof Error ? err.message : String(err) },
      'could not write RolloutPolicy status; will look again',
    );
    return 1;
  }
}
