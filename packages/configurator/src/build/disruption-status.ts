/**
 * A revision's disruption summary (issue 39): how disruptive it is to the hosts, worked out once by
 * the agent's own host plan (`@nodenet/agent/host-plan`, the plugin's `diff --host`) against the
 * revision a failure of it would roll back to (fallbackBefore: the newest valid one before it that
 * ran well, completed or `provisioned` on some node and failed by none; issue 35), over the Nodes
 * then. Not the newest completed one: while a change is still rolling out when the next is built,
 * its hosts run it, and a summary against the revision before it counted that change's steps in
 * the next one's too. It is written into `status.disruption` with a merge patch of just that field (the
 * planner's status writes keep it: rollout/revision-status.ts). `kubectl nodenet status` shows it.
 *
 * The agents' FRR template is theirs, not the cluster's: the plan renders nodenet's sections only,
 * which is every line nodenet changes. Nodes added later are not counted: the summary is what the
 * revision does, not a count of its rollout.
 */
import {
  DISRUPTION_CLASSES,
  fallbackBefore,
  type NetworkConfigRevision,
  type NodeConfigSpec,
  type RevisionDisruption,
} from '@nodenet/api';
import { fleetHostPlan, PREVIEW_SETTINGS, sectionsTemplate } from '@nodenet/agent/host-plan';
import type { Informer, ResourceClient } from '@nodenet/kube';
import { LoopbackStandIns } from './loopback-classes.js';
import type { Logger } from 'pino';

export interface DisruptionInput {
  revision: NetworkConfigRevision;
  revisions: readonly NetworkConfigRevision[];
  nodes: readonly { name: string; labels: Record<string, string> }[];
  /** A node's spec of a revision (the controller's memoized `nodeConfigSpec`). */
  specOf: (
    r: NetworkConfigRevision,
    node: { name: string; labels: Record<string, string> },
  ) => NodeConfigSpec;
}

/** The summary (pure). */
export function revisionDisruption(input: DisruptionInput): RevisionDisruption {
  const from = fallbackBefore(input.revision, input.revisions, (x) => x.status?.isInvalid === true);
  const standIns = new LoopbackStandIns();
  const plan = fleetHostPlan({
    template: sectionsTemplate(),
    settings: PREVIEW_SETTINGS,
    nodes: input.nodes.map((n) => ({
      node: n.name,
      ...standIns.pair(from && input.specOf(from, n), input.specOf(input.revision, n)),
    })),
  });
  const nodes: RevisionDisruption['nodes'] = {};
  for (const c of ['unchanged', ...DISRUPTION_CLASSES, 'refused'] as const)
    if (plan.counts[c] > 0) nodes[c] = plan.counts[c];
  return { worst: plan.disruption, ...(from ? { from: from.metadata.name } : {}), nodes };
}

export interface DisruptionStatusContext {
  client: ResourceClient<NetworkConfigRevision>;
  informer: Informer<NetworkConfigRevision>;
  log: Logger;
}

/**
 * Writes the summary of the newest revision when it has none; returns the number of failed writes
 * (the next pass tries again). One revision per pass at most, and each once: bounded.
 */
export async function writeRevisionDisruption(
  ctx: DisruptionStatusContext,
  input: Omit<DisruptionInput, 'revision' | 'revisions'>,
): Promise<number> {
  const revisions = ctx.informer.list();
  const newest = revisions.reduce<NetworkConfigRevision | undefined>(
    (a, r) => (a === undefined || r.spec.number > a.spec.number ? r : a),
    undefined,
  );
  if (!newest || newest.status?.disruption !== undefined || input.nodes.length === 0) return 0;
  let disruption: RevisionDisruption;
  try {
    disruption = revisionDisruption({ ...input, revision: newest, revisions });
  } catch (err) {
    // A template error cannot happen with the built-in one; anything else is a bug to see, not to retry.
    ctx.log.error(
      { revision: newest.metadata.name, err: String(err) },
      'could not work out the revision disruption',
    );
    return 0;
  }
  try {
    ctx.informer.mutated(await ctx.client.patchStatus(newest.metadata.name, { status: { disruption } }));
    ctx.log.info({ revision: newest.metadata.name, disruption }, 'revision disruption');
    return 0;
  } catch (err) {
    ctx.log.warn(
      { revision: newest.metadata.name, err: err instanceof Error ? err.message : String(err) },
      'could not write the revision disruption; will look again',
    );
    return 1;
  }
}
