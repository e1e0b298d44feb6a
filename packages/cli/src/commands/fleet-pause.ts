/**
 * `kubectl nodenet pause` / `resume` without a revision: the fleet-wide pause, `spec.paused` of the
 * RolloutPolicy named `default` (created when missing). It holds every revision, including ones
 * created later; rollbacks still run.
 */
import { API_VERSION, ROLLOUT_POLICY_NAME, type RolloutPolicy } from '@nodenet/api';
import { isNotFound, type Clients } from '@nodenet/kube';
import type { ControlResult } from './controls.js';
import { asCliError } from '../cluster/state.js';

const WHO = `RolloutPolicy/${ROLLOUT_POLICY_NAME}`;

export async function setFleetPaused(
  clients: Clients,
  paused: boolean,
): Promise<ControlResult & { revision: string }> {
  const action = paused ? ('pause' as const) : ('resume' as const);
  const base = { revision: WHO, action };
  try {
    let current: RolloutPolicy | undefined;
    try {
      current = await clients.rolloutPolicy.get(ROLLOUT_POLICY_NAME);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if ((current?.spec.paused === true) === paused)
      return {
        ...base,
        changed: false,
        message: `the fleet is already ${paused ? 'paused' : 'not paused'} (${WHO})`,
      };
    if (current) await clients.rolloutPolicy.mergePatch(ROLLOUT_POLICY_NAME, { spec: { paused } });
    else
      await clients.rolloutPolicy.create({
        apiVersion: API_VERSION,
        kind: 'RolloutPolicy',
        metadata: { name: ROLLOUT_POLICY_NAME },
        spec: { paused },
      });
  } catch (err) {
    throw asCliError(err);
  }
  return {
    ...base,
    changed: true,
    message: paused
      ? `fleet paused (${WHO} spec.paused=true): no node starts on any revision, new ones included; nodes in ` +
        'progress finish, rollbacks still run. Continue with: kubectl nodenet resume'
      : `fleet resumed (${WHO} spec.paused=false): nodes start again under the update limit. ` +
        'Follow with: kubectl nodenet status --watch',
  };
}
