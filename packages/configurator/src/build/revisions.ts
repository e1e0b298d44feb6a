/**
 * Revision building (pure): validate every input, decide each input's `Accepted` condition, and
 * decide whether the merged configuration needs a new revision. A refused input holds back only
 * itself: its generation in force stays, a new refused input contributes nothing, and unrelated
 * changes still make a revision (invariant 3, @nodenet/api held-back.ts). A configuration equal to the desired
 * revision, or to a revision marked invalid (invariant 4), produces none.
 */
import {
  API_VERSION,
  HIGHEST_NUMBER_ANNOTATION,
  RETRY_ANNOTATION,
  canonicalEqual,
  revisionName,
  type AllocationNode,
  type InputObject,
  type InputStatus,
  type Inputs,
  type NetworkConfigRevision,
  type Problem,
  shortHash,
  findCondition,
} from '@nodenet/api';
import { setConditions, rfc3339 } from '@nodenet/api';
import { budgetExcess, DEFAULT_BUDGET, describeExcess, type SizeBudget } from './budget.js';
import { fitBudget } from './fit-budget.js';
import { appliedCondition, carried, inputRef, selectedCondition } from './outcome.js';
import { withLoopbacks, withShortageConditions } from './loopback-step.js';
import { highestNumber } from '../rollout/numbers.js';
import { inputsToBuild, type HeldSuspect } from '@nodenet/api';

export interface InputStatusUpdate {
  object: InputObject;
  status: InputStatus;
  /** The Accepted condition changed to False (or its message changed): worth a Warning Event. */
  newlyRejected?: string;
  /** The Selected condition changed to False: its message, worth a Warning Event. */
  newlySelectsNoNode?: string;
}

export type RevisionDecision =
  | { action: 'blocked'; reason: string }
  | { action: 'create'; revision: NetworkConfigRevision; reason: string; retryOf?: NetworkConfigRevision }
  | { action: 'skip'; hash: string; reason: string };

export interface BuildResult {
  problems: Problem[];
  /** Input statuses once the decision is carried out (the revision created, when one is). */
  inputStatusUpdates: InputStatusUpdate[];
  /** Input statuses when the revision to create could not be created (`error`: the API's answer). */
  statusesIfNotCreated: (error: string) => InputStatusUpdate[];
  decision: RevisionDecision;
  /** Hash of the merged inputs when they are valid. */
  hash?: string;
}

const allInputs = (inputs: Inputs): InputObject[] => [
  ...inputs.vrf,
  ...inputs.layer2,
  ...inputs.routingTable,
  ...(inputs.bgpPeering ?? []),
];

export interface BuildOptions {
  budget?: SizeBudget;
  /** Larger is newer: the order in which the configurator saw each input's generation. */
  recency?: (o: InputObject) => number;
  /**
   * Labels of the nodes the configurator manages: each input with a node selector gets `Selected`
   * (outcome.ts). Absent: `Selected` is left as it is.
   */
  nodeLabels?: readonly Readonly<Record<string, string>>[];
  /** The Nodes that get loopback addresses (loopback-step.ts); without them, none are allocated. */
  nodes?: readonly AllocationNode[];
}

/** At most this many problems, and this many characters, in an `Accepted` message. */
const MAX_PROBLEMS_SHOWN = 5;
const MAX_MESSAGE = 2000;

export function buildRevision(
  inputs: Inputs,
  revisions: readonly NetworkConfigRevision[],
  now: number,
  opts: BuildOptions = {},
): BuildResult {
  // Claims go first to the objects of the revision in force (the validation's blame rule), a
  // refused input contributes its generation in force, and the suspects of an invalidated revision
  // are held back too (@nodenet/api held-back.ts, the rule the plugin's preview shows).
  const { inForce, suspects, effective: first } = inputsToBuild(inputs, revisions);
  const fitted = fitBudget(inputs, inForce?.spec.config, first, {
    budget: opts.budget ?? DEFAULT_BUDGET,
    recency: opts.recency ?? (() => 0),
    carried: (o) => carried(o, revisions),
    suspects,
  });
  const effective = fitted.effective;
  const { problems, refused } = effective;
  const notNew = new Set([...refused.keys(), ...suspects.keys()]);
  const nowText = rfc3339(now);
  // The loopback allocation belongs to the config (and its hash); its shortages to the statuses.
  const allocated = fitted.built ? withLoopbacks(fitted.built, revisions, opts.nodes) : undefined;
  const shortages = allocated?.shortages ?? [];
  /** Input statuses once the decision says which revision carries the current generations. */
  const statuses = (
    carrier: string | undefined,
    known: readonly NetworkConfigRevision[],
    notCreated?: string,
  ): InputStatusUpdate[] =>
    withShortageConditions(
      inputStatuses(
        inputs,
        effective.inputs === undefined,
        refused,
        carrier,
        known,
        nowText,
        suspects,
        opts.nodeLabels,
        notCreated,
      ),
      inputs,
      shortages,
      nowText,
    );
  const statusesIfNotCreated = (error: string): InputStatusUpdate[] => statuses(undefined, revisions, error);
  const blocked = (reason: string): BuildResult => ({
    problems,
    statusesIfNotCreated,
    inputStatusUpdates: statuses(undefined, revisions),
    decision: { action: 'blocked', reason },
  });
  if (effective.inputs === undefined || !fitted.built) {
    return blocked(
      `${problems.length} invalid input field(s), the last revision stays in force: ${problems
        .slice(0, 3)
        .map((p) => p.message)
        .join('; ')}${problems.length > 3 ? '; …' : ''}`,
    );
  }
  const { config, hash } = allocated ?? fitted.built;
  // The addresses grow with the fleet, not with any input: no input to refuse, the build waits.
  const excess =
    config !== fitted.built.config ? budgetExcess(config, opts.budget ?? DEFAULT_BUDGET) : undefined;
  if (excess)
    return blocked(
      `with every node's loopback addresses ${describeExcess(excess)}; the last revision stays in force`,
    );
  const sorted = [...revisions].sort((a, b) => b.spec.number - a.spec.number);
  const desired = sorted.find((r) => r.status?.isInvalid !== true);
  if (desired && desired.spec.hash === hash) {
    return {
      problems,
      statusesIfNotCreated,
      inputStatusUpdates: statuses(desired.metadata.name, revisions),
      hash,
      decision: { action: 'skip', hash, reason: `equal to desired revision ${desired.metadata.name}` },
    };
  }
  const invalid = sorted.find((r) => r.status?.isInvalid === true && r.spec.hash === hash);
  // A new number is above every number ever used (numbers.ts), so a retry or a rebuild after
  // `kubectl delete ncr` never reuses the number of an earlier attempt.
  const number = highestNumber(revisions) + 1;
  if (invalid) {
    const retriedBy = sorted.find((r) => r.spec.retryOf === invalid.metadata.name);
    if (invalid.metadata.annotations?.[RETRY_ANNOTATION] === undefined || retriedBy) {
      return {
        problems,
        statusesIfNotCreated,
        inputStatusUpdates: statuses(invalid.metadata.name, revisions),
        hash,
        decision: {
          action: 'skip',
          hash,
          reason: `equal to invalid revision ${invalid.metadata.name}; to try it again: kubectl annotate ncr ${invalid.metadata.name} ${RETRY_ANNOTATION}=now`,
        },
      };
    }
    const retry = newRevision(
      number,
      config,
      hash,
      changedInputs(inputs, revisions, notNew),
      invalid.metadata.name,
    );
    return {
      problems,
      statusesIfNotCreated,
      inputStatusUpdates: statuses(retry.metadata.name, [...revisions, retry]),
      hash,
      decision: {
        action: 'create',
        revision: retry,
        retryOf: invalid,
        reason: `retry of invalid revision ${invalid.metadata.name} (annotation ${RETRY_ANNOTATION})`,
      },
    };
  }
  const revision = newRevision(number, config, hash, changedInputs(inputs, revisions, notNew));
  return {
    problems,
    statusesIfNotCreated,
    inputStatusUpdates: statuses(revision.metadata.name, [...revisions, revision]),
    hash,
    decision: {
      action: 'create',
      revision,
      reason: desired
        ? `inputs changed (desired ${desired.metadata.name} has ${shortHash(desired.spec.hash)})`
        : 'first revision',
    },
  };
}

/**
 * Inputs whose current generation goes into the new revision and is in no revision yet: the
 * suspects if the new one fails. Refused inputs are not in it (held back).
 */
const changedInputs = (
  inputs: Inputs,
  revisions: readonly NetworkConfigRevision[],
  refused: ReadonlySet<string>,
): string[] =>
  allInputs(inputs)
    .filter((o) => !refused.has(`${o.kind}/${o.metadata.name}`) && !carried(o, revisions))
    .map(inputRef);

/**
 * Each input's status: `Accepted` (this generation's own problems), the revision carrying its
 * current generation (`carrier`, for those not carried yet; none while blocked), and `Applied`.
 */
function inputStatuses(
  inputs: Inputs,
  blocked: boolean,
  byObject: ReadonlyMap<string, Problem[]>,
  carrier: string | undefined,
  revisions: readonly NetworkConfigRevision[],
  nowText: string,
  suspects: ReadonlyMap<string, HeldSuspect>,
  nodeLabels: readonly Readonly<Record<string, string>>[] | undefined,
  notCreated?: string,
): InputStatusUpdate[] {
  const out: InputStatusUpdate[] = [];
  for (const obj of allInputs(inputs)) {
    const mine = byObject.get(`${obj.kind}/${obj.metadata.name}`) ?? [];
    const generation = obj.metadata.generation;
    const accepted =
      mine.length === 0
        ? {
            type: 'Accepted',
            status: 'True' as const,
            reason: blocked ? 'ValidButBlocked' : 'Valid',
            message: blocked
              ? 'valid, but no new revision while an input in force no longer validates'
              : 'valid',
          }
        : {
            type: 'Accepted',
            status: 'False' as const,
            reason: 'Invalid',
            message: bounded(
              mine
                .slice(0, MAX_PROBLEMS_SHOWN)
                .map((p) => p.message)
                .join('; ') +
                (mine.length > MAX_PROBLEMS_SHOWN ? `; and ${mine.length - MAX_PROBLEMS_SHOWN} more` : ''),
            ),
          };
    const old = obj.status ?? {};
    const suspect = suspects.get(`${obj.kind}/${obj.metadata.name}`);
    const reference = suspect
      ? // Held back: it reads off the revision it broke (Applied=False, RolledBack).
        { revision: suspect.revision.metadata.name, revisionGeneration: generation ?? 0 }
      : carrier !== undefined && mine.length === 0 && !carried(obj, revisions)
        ? { revision: carrier, revisionGeneration: generation ?? 0 }
        : {
            ...(old.revision !== undefined ? { revision: old.revision } : {}),
            ...(old.revisionGeneration !== undefined ? { revisionGeneration: old.revisionGeneration } : {}),
          };
    const withRef: InputStatus = { ...old, ...reference };
    const outcome = appliedCondition(
      obj,
      withRef,
      { accepted: mine.length === 0, blocked, ...(notCreated !== undefined ? { notCreated } : {}) },
      revisions,
    );
    const applied = suspect
      ? {
          ...outcome,
          message: `${outcome.message}; held back from newer revisions until this input changes or revision ${suspect.revision.metadata.name} is retried`,
        }
      : outcome;
    const selected = nodeLabels && selectedCondition(obj, nodeLabels);
    const next: InputStatus = {
      ...withRef,
      conditions: setConditions(
        // Selected only while the input has a node selector (and the nodes are known).
        nodeLabels && !selected ? old.conditions?.filter((c) => c.type !== 'Selected') : old.conditions,
        [
          { ...accepted, ...(generation !== undefined ? { observedGeneration: generation } : {}) },
          applied,
          ...(selected ? [selected] : []),
        ],
        nowText,
      ),
      ...(generation !== undefined ? { observedGeneration: generation } : {}),
    };
    if (!canonicalEqual(next, old)) {
      const prevAccepted = findCondition(old.conditions, 'Accepted');
      const newlyRejected =
        accepted.status === 'False' &&
        (prevAccepted?.status !== 'False' || prevAccepted.message !== accepted.message)
          ? accepted.message
          : undefined;
      const newlySelectsNoNode =
        selected?.status === 'False' && findCondition(old.conditions, 'Selected')?.status !== 'False'
          ? selected.message
          : undefined;
      out.push({
        object: obj,
        status: next,
        ...(newlyRejected ? { newlyRejected } : {}),
        ...(newlySelectsNoNode ? { newlySelectsNoNode } : {}),
      });
    }
  }
  return out;
}

const bounded = (text: string): string =>
  text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE - 1)}…` : text;

function newRevision(
  number: number,
  config: NetworkConfigRevision['spec']['config'],
  hash: string,
  changed: string[],
  retryOf?: string,
): NetworkConfigRevision {
  return {
    apiVersion: API_VERSION,
    kind: 'NetworkConfigRevision',
    metadata: {
      name: revisionName(number, hash),
      annotations: { [HIGHEST_NUMBER_ANNOTATION]: String(number) },
    },
    spec: {
      config,
      hash,
      number,
      ...(retryOf ? { retryOf } : {}),
      ...(changed.length ? { changedInputs: changed.slice(0, 50) } : {}),
    },
  };
}
