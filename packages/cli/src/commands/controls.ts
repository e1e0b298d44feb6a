/**
 * `pause`, `resume`, `abort`, `retry`: the rollout-control API of the configurator (a spec field or
 * an annotation on a NetworkConfigRevision) behind verbs that check the state first and say what
 * will happen. Writes use `fieldValidation=Strict`, so an API server whose CRD predates a control
 * refuses the write instead of silently dropping the field.
 */
import { findCondition, RETRY_ANNOTATION, shortHash } from '@nodenet/api';
import { KubeApiError, type Clients } from '@nodenet/kube';
import { inputsHash } from '../views/preview.js';
import { CliError, EXIT } from '../exit-codes.js';
import { plural } from '../views/format.js';
import {
  asCliError,
  isInvalid,
  newestRevision,
  revisionInForce,
  type ClusterState,
  type Revision,
} from '../cluster/state.js';

export interface ControlResult {
  revision: string;
  action: 'pause' | 'resume' | 'abort' | 'retry';
  /** False when the revision was already in the asked state and nothing was written. */
  changed: boolean;
  message: string;
}

async function patchRevision(clients: Clients, rev: Revision, patch: unknown): Promise<Revision> {
  const path = clients.revision.objectPath(rev.metadata.name);
  try {
    return await clients.client.request<Revision>('PATCH', path, {
      body: patch,
      contentType: 'application/merge-patch+json',
      query: { fieldManager: 'kubectl-nodenet', fieldValidation: 'Strict' },
    });
  } catch (err) {
    if (err instanceof KubeApiError && /unknown field/i.test(err.serverMessage))
      throw new CliError(
        `${rev.metadata.name}: the API server does not know this control (${err.serverMessage}); ` +
          'the installed NetworkConfigRevision CRD is older than this plugin: kubectl apply -f crds/',
        EXIT.refused,
      );
    throw asCliError(err);
  }
}

/** Nodes whose NodeConfig carries the revision (they would be rolled back if it became invalid). */
const nodesOn = (s: ClusterState, rev: Revision): string[] =>
  s.nodeConfigs.filter((nc) => nc.spec.revision === rev.spec.hash).map((nc) => nc.metadata.name);

export async function pause(clients: Clients, s: ClusterState, rev: Revision): Promise<ControlResult> {
  if (isInvalid(rev))
    throw new CliError(
      `${rev.metadata.name} is invalid: nothing rolls forward, and a pause never holds back a rollback`,
      EXIT.refused,
    );
  const base = { revision: rev.metadata.name, action: 'pause' as const };
  if (rev.spec.paused) return { ...base, changed: false, message: `${rev.metadata.name} is already paused` };
  await patchRevision(clients, rev, { spec: { paused: true } });
  const inFlight = nodesOn(s, rev).length;
  return {
    ...base,
    changed: true,
    message:
      `${rev.metadata.name} paused: no new node starts; nodes already handed it finish ` +
      `(${plural(inFlight, 'node')} carry it). A rollback away from an invalid revision is never held. ` +
      `Continue with: kubectl nodenet resume ${rev.metadata.name}`,
  };
}

export async function resume(clients: Clients, _s: ClusterState, rev: Revision): Promise<ControlResult> {
  const base = { revision: rev.metadata.name, action: 'resume' as const };
  if (!rev.spec.paused) return { ...base, changed: false, message: `${rev.metadata.name} is not paused` };
  await patchRevision(clients, rev, { spec: { paused: false } });
  return {
    ...base,
    changed: true,
    message: `${rev.metadata.name} resumed: nodes start again under the update limit. Follow with: kubectl nodenet status --watch`,
  };
}

export async function abort(clients: Clients, s: ClusterState, rev: Revision): Promise<ControlResult> {
  if (isInvalid(rev))
    throw new CliError(`${rev.metadata.name} is already invalid; nothing to abort`, EXIT.refused);
  const inForce = revisionInForce(s);
  if (inForce && inForce.spec.number > rev.spec.number)
    throw new CliError(
      `${rev.metadata.name} is superseded by ${inForce.metadata.name}; abort that one instead`,
      EXIT.refused,
    );
  if (findCondition(rev.status?.conditions, 'Complete')?.status === 'True')
    throw new CliError(
      `${rev.metadata.name} is complete: every node runs it, and abort stops a rollout, it does not undo one ` +
        '(rollbacks are not held to the update limit, so it would change every node at once). To undo it, ' +
        'revert the input change with kubectl apply: the revert rolls out gradually as a new revision',
      EXIT.refused,
    );
  const previous = [...s.revisions].reverse().find((r) => r.spec.number < rev.spec.number && !isInvalid(r));
  const written = await patchRevision(clients, rev, { spec: { aborted: true } });
  if ((written.spec as { aborted?: boolean }).aborted !== true)
    throw new CliError(
      `${rev.metadata.name}: the API server did not keep spec.aborted; the installed CRD is older than this plugin: kubectl apply -f crds/`,
      EXIT.refused,
    );
  const nodes = nodesOn(s, rev);
  return {
    revision: rev.metadata.name,
    action: 'abort',
    changed: true,
    message:
      `${rev.metadata.name} aborted: the configurator marks it invalid (reason Aborted) and ` +
      (previous
        ? `rolls the ${plural(nodes.length, 'node')} that took it back to ${previous.metadata.name}.`
        : `no earlier valid revision exists, so its ${plural(nodes.length, 'node')} keep what they have.`) +
      ` It is not rolled out again unless you run: kubectl nodenet retry ${rev.metadata.name}`,
  };
}

export async function retry(
  clients: Clients,
  s: ClusterState,
  rev: Revision,
  now: Date,
): Promise<ControlResult> {
  if (!isInvalid(rev))
    throw new CliError(
      `${rev.metadata.name} is not invalid; only an invalid revision can be retried`,
      EXIT.refused,
    );
  // The configurator retries a revision once: a second request is never acted on.
  const retriedBy = s.revisions.find((r) => r.spec.retryOf === rev.metadata.name);
  if (retriedBy)
    throw new CliError(
      `${rev.metadata.name} was already retried as ${retriedBy.metadata.name} (number ${retriedBy.spec.number}); ` +
        (isInvalid(retriedBy)
          ? `that attempt failed too: kubectl nodenet retry ${retriedBy.spec.number}`
          : `follow it with: kubectl nodenet status ${retriedBy.spec.number}`),
      EXIT.refused,
    );
  // As the configurator's build sees the inputs once the retry is asked for: refused inputs held
  // back, the retried revision's suspects released (@nodenet/api inputsToBuild).
  const produced = inputsHash(s, rev);
  if (produced !== undefined && produced !== rev.spec.hash)
    throw new CliError(
      `the current inputs no longer produce ${rev.metadata.name}'s configuration (they produce ${shortHash(produced)}), ` +
        'so there is nothing to retry: the configurator would refuse it (RetryRequested=False, InputsChanged). ' +
        'See what the inputs would change with: kubectl nodenet diff',
      EXIT.refused,
    );
  const asked = rev.metadata.annotations?.[RETRY_ANNOTATION];
  if (asked !== undefined)
    throw new CliError(
      `a retry of ${rev.metadata.name} was already requested (${RETRY_ANNOTATION}=${asked}); ` +
        'if that attempt failed too, retry the newer invalid revision: kubectl nodenet retry',
      EXIT.refused,
    );
  await patchRevision(clients, rev, { metadata: { annotations: { [RETRY_ANNOTATION]: now.toISOString() } } });
  return {
    revision: rev.metadata.name,
    action: 'retry',
    changed: true,
    message:
      `retry of ${rev.metadata.name} requested: the configurator builds a new revision with the same ` +
      `configuration and a new number; ${rev.metadata.name} stays for inspection and names its retry. ` +
      'Follow with: kubectl nodenet status --watch',
  };
}

/** Default target of pause/resume/abort: the newest revision; of retry: the newest invalid one. */
export const newestInvalid = (s: ClusterState): Revision | undefined =>
  [...s.revisions].reverse().find(isInvalid);
export { newestRevision };
