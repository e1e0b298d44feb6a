/**
 * The outcome of each input's generation (pure): which revision carries it (kept on the input's
 * status: `revision` and `revisionGeneration`, so it survives restarts), and the `Applied`
 * condition read off that revision:
 * - True  `Applied`     the revision carrying this generation is complete;
 * - False `RollingOut`  it is rolling out (or paused), with its progress;
 * - False `WaitingForUnavailableNodes`  it is on every available node; only unavailable ones are left;
 * - False `RolledBack`  it was invalidated: names the revision and the failed nodes with their messages;
 * - False `HeldBack`    this generation is invalid (Accepted=False): the generation in force stays;
 * - False `Blocked`     valid, but no revision is built (a generation in force no longer validates);
 * - False `RevisionNotCreated` valid, but the API server refused the revision that would carry it
 *                       (the configurator retries with backoff); quotes the API's error;
 * - False `Pending`     not in a revision yet.
 */
import { findCondition, noNodeMatches, selectorOf } from '@nodenet/api';
import type { Condition, InputObject, InputStatus, NetworkConfigRevision } from '@nodenet/api';
import { WAITING_FOR_UNAVAILABLE } from '../rollout/index.js';

export type AppliedCondition = Omit<Condition, 'lastTransitionTime'>;

/** `Kind/name@generation`, as recorded in a revision's `spec.changedInputs`. */
export const inputRef = (o: InputObject): string =>
  `${o.kind}/${o.metadata.name}@${o.metadata.generation ?? 0}`;

/**
 * Whether the input's status already names a valid revision carrying its current generation (one
 * carried by an invalid revision is carried again by the next attempt, e.g. a retry).
 */
export const carried = (o: InputObject, revisions: readonly NetworkConfigRevision[]): boolean =>
  o.status?.revision !== undefined &&
  o.status.revisionGeneration === (o.metadata.generation ?? 0) &&
  revisions.find((r) => r.metadata.name === o.status?.revision)?.status?.isInvalid !== true;

/** The API's error as a condition quotes it: its first 300 characters. */
const quote = (text: string): string => (text.length > 300 ? `${text.slice(0, 299)}…` : text);

export function appliedCondition(
  o: InputObject,
  status: InputStatus,
  outcome: BuildOutcome,
  revisions: readonly NetworkConfigRevision[],
): AppliedCondition {
  const g = o.metadata.generation ?? 0;
  if (status.revisionGeneration !== g || !status.revision) return notCarriedCondition(g, status, outcome);
  const r = carrierOf(status.revision, revisions);
  if (!r)
    return {
      type: 'Applied',
      observedGeneration: g,
      status: 'False',
      reason: 'Pending',
      message: `revision ${status.revision} not found`,
    };
  return revisionConditionOf(g, r);
}

/**
 * revisionCondition by revision and generation: every input a revision carries reads the same
 * condition off it, and a build asks for each of thousands of inputs. Kept per revision object
 * and its status object (informer objects are replaced, never changed in place), so a revision
 * whose status was written again is read afresh.
 */
const conditionsByRevision = new WeakMap<
  NetworkConfigRevision,
  { status: unknown; byGeneration: Map<number, AppliedCondition> }
>();

function revisionConditionOf(g: number, r: NetworkConfigRevision): AppliedCondition {
  let known = conditionsByRevision.get(r);
  if (!known || known.status !== r.status) {
    known = { status: r.status, byGeneration: new Map() };
    conditionsByRevision.set(r, known);
  }
  let condition = known.byGeneration.get(g);
  if (!condition) {
    condition = revisionCondition(g, r);
    known.byGeneration.set(g, condition);
  }
  return condition;
}

/** What the build decided for the input's generation. */
export interface BuildOutcome {
  accepted: boolean;
  blocked: boolean;
  /** The API's error when the revision that would carry it could not be created. */
  notCreated?: string;
}

/** `Applied` of a generation no revision carries yet: why not. */
function notCarriedCondition(g: number, status: InputStatus, outcome: BuildOutcome): AppliedCondition {
  const base = { type: 'Applied', observedGeneration: g, status: 'False' as const };
  const inForce = status.revision
    ? ` (generation ${status.revisionGeneration} stays in force, ${status.revision})`
    : '';
  if (!outcome.accepted)
    return { ...base, reason: 'HeldBack', message: `generation ${g} is invalid (see Accepted)${inForce}` };
  if (outcome.blocked)
    return {
      ...base,
      reason: 'Blocked',
      message: `generation ${g} is valid, but no revision is built while an input in force no longer validates${inForce}`,
    };
  if (outcome.notCreated !== undefined)
    return {
      ...base,
      reason: 'RevisionNotCreated',
      message: `generation ${g} is valid, but the revision carrying it could not be created (retrying with backoff): ${quote(outcome.notCreated)}${inForce}`,
    };
  return { ...base, reason: 'Pending', message: `generation ${g} is not in a revision yet` };
}

/**
 * The revision whose progress a carried generation reads: the one named, or, when that valid one
 * was superseded before it completed, the newest valid one (it carries this generation too).
 */
function carrierOf(
  name: string,
  revisions: readonly NetworkConfigRevision[],
): NetworkConfigRevision | undefined {
  const named = revisions.find((x) => x.metadata.name === name);
  if (!named || named.status?.isInvalid === true || named.status?.completedAt !== undefined) return named;
  let desired: NetworkConfigRevision | undefined;
  for (const x of revisions)
    if (x.status?.isInvalid !== true && (!desired || x.spec.number > desired.spec.number)) desired = x;
  return desired && desired.spec.number > named.spec.number ? desired : named;
}

/** `Applied` read off the revision carrying the generation: rolled back, complete or rolling out. */
function revisionCondition(g: number, r: NetworkConfigRevision): AppliedCondition {
  const base = { type: 'Applied', observedGeneration: g };
  const st = r.status ?? {};
  if (st.isInvalid === true) {
    const nodes = (st.failedNodes ?? []).slice(0, 5).map((f) => `${f.node}: ${f.message}`);
    const why = findCondition(st.conditions, 'Invalid', 'True')?.reason ?? 'NodesFailed';
    return {
      ...base,
      status: 'False',
      reason: 'RolledBack',
      message:
        `revision ${r.metadata.name} carrying generation ${g} was invalidated (${why}) and rolled back` +
        (nodes.length ? `: ${nodes.join('; ')}` : ''),
    };
  }
  const progress = `${st.ready ?? 0}/${st.total ?? 0} nodes ready`;
  if (st.completedAt !== undefined)
    return {
      ...base,
      status: 'True',
      reason: 'Applied',
      message: `revision ${r.metadata.name} complete (${progress})`,
    };
  if (findCondition(st.conditions, 'Progressing')?.reason === WAITING_FOR_UNAVAILABLE)
    return {
      ...base,
      status: 'False',
      reason: WAITING_FOR_UNAVAILABLE,
      message: `revision ${r.metadata.name} is on every available node (${progress}); unavailable nodes take it when their agents answer (kubectl nodenet status)`,
    };
  return {
    ...base,
    status: 'False',
    reason: 'RollingOut',
    message: `revision ${r.metadata.name} ${st.phase === 'Paused' ? 'is paused' : 'is rolling out'}: ${progress}`,
  };
}

/**
 * The `Selected` condition of an input with a `spec.nodeSelector`, against the labels of the nodes
 * the configurator manages: False `NoNodeMatches` (naming the selector) when none matches, so a typo
 * in a label does not read as applied everywhere; True `NodesMatch` once one does. Undefined for an
 * input without a selector (it selects every node): any earlier `Selected` is dropped then.
 */
export function selectedCondition(
  o: InputObject,
  nodeLabels: readonly Readonly<Record<string, string>>[],
): AppliedCondition | undefined {
  const selector = selectorOf(o.spec);
  if (selector === undefined) return undefined;
  const g = o.metadata.generation ?? 0;
  const none = noNodeMatches(o.spec, nodeLabels);
  return none !== undefined
    ? { type: 'Selected', status: 'False', reason: 'NoNodeMatches', message: none, observedGeneration: g }
    : {
        type: 'Selected',
        status: 'True',
        reason: 'NodesMatch',
        message: 'the nodeSelector matches at least one node',
        observedGeneration: g,
      };
}
