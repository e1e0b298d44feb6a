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
  revisionName,
  type AllocationNode,
  type InputObject,
  type Inputs,
  type NetworkConfig,
  type NetworkConfigRevision,
  type PasswordSource,
  type Problem,
  resolvePeeringPasswords,
  shortHash,
  type UnderlayContext,
} from '@nodenet/api';
import { rfc3339 } from '@nodenet/api';
import { budgetExcess, DEFAULT_BUDGET, describeExcess, type SizeBudget } from './budget.js';
import { fitBudget } from './fit-budget.js';
import { inputStatuses, type InputStatusUpdate } from './input-status.js';
import { carried, inputRef } from './outcome.js';
import { withLoopbacks, withShortageConditions } from './loopback-step.js';
import { highestNumber } from '../rollout/index.js';
import { allInputs, inputsToBuild } from '@nodenet/api';

export type { InputStatusUpdate } from './input-status.js';

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

export interface BuildOptions {
  budget?: SizeBudget;
  /** Larger is newer: the order in which the configurator saw each input's generation. */
  recency?: (o: InputObject) => number;
  /** Smaller was created first: breaks ties of creationTimestamp in the blame rule (creation-order.ts). */
  createdOrder?: (o: InputObject) => bigint | undefined;
  /**
   * Labels of the nodes the configurator manages: each input with a node selector gets `Selected`
   * (outcome.ts). Absent: `Selected` is left as it is.
   */
  nodeLabels?: readonly Readonly<Record<string, string>>[];
  /** The Nodes that get loopback addresses (loopback-step.ts); without them, none are allocated. */
  nodes?: readonly AllocationNode[];
  /**
   * The password Secrets as the configurator's cache knows them (hashes, never values): a peering's
   * `passwordSecretRef` resolves to a salted hash, or the peering is refused (@nodenet/api
   * bgp-password.ts). Absent: every peering with a reference is refused.
   */
  passwords?: PasswordSource;
  /** The nodes' addresses and the site's underlay settings: the peering guards (issue #37). */
  underlay?: UnderlayContext;
}

/** What both rounds of the held-back rule take from the options (createdOrder, underlay). */
const heldOptions = (opts: BuildOptions): Pick<BuildOptions, 'createdOrder' | 'underlay'> => ({
  ...(opts.createdOrder ? { createdOrder: opts.createdOrder } : {}),
  ...(opts.underlay ? { underlay: opts.underlay } : {}),
});

export function buildRevision(
  given: Inputs,
  revisions: readonly NetworkConfigRevision[],
  now: number,
  opts: BuildOptions = {},
): BuildResult {
  const { inputs, refusedFirst } = withPasswords(given, opts.passwords);
  // Claims go first to the objects of the revision in force (the validation's blame rule), a
  // refused input contributes its generation in force, and the suspects of an invalidated revision
  // are held back too (@nodenet/api held-back.ts, the rule the plugin's preview shows).
  const held = { ...heldOptions(opts), refusedFirst };
  const { inForce, suspects, effective: first } = inputsToBuild(inputs, revisions, held);
  const fitted = fitBudget(inputs, inForce?.spec.config, first, {
    ...held,
    budget: opts.budget ?? DEFAULT_BUDGET,
    recency: opts.recency ?? (() => 0),
    carried: (o) => carried(o, revisions),
    suspects,
  });
  const { problems, refused } = fitted.effective;
  const nowText = rfc3339(now);
  // The loopback allocation belongs to the config (and its hash); its shortages to the statuses.
  const allocated = fitted.built ? withLoopbacks(fitted.built, revisions, opts.nodes) : undefined;
  const blocked = fitted.effective.inputs === undefined;
  /** Input statuses once the decision says which revision carries the current generations. */
  const statuses = (
    carrier: string | undefined,
    known: readonly NetworkConfigRevision[],
    notCreated?: string,
  ): InputStatusUpdate[] =>
    withShortageConditions(
      inputStatuses(allInputs(inputs), {
        blocked,
        refused,
        carrier,
        revisions: known,
        nowText,
        suspects,
        nodeLabels: opts.nodeLabels,
        ...(notCreated !== undefined ? { notCreated } : {}),
      }),
      inputs,
      allocated?.shortages ?? [],
      nowText,
    );
  const result = (decision: RevisionDecision, carrier: string | undefined): BuildResult => ({
    problems,
    statusesIfNotCreated: (error) => statuses(undefined, revisions, error),
    inputStatusUpdates: statuses(
      carrier,
      decision.action === 'create' ? [...revisions, decision.revision] : revisions,
    ),
    ...(decision.action === 'create'
      ? { hash: decision.revision.spec.hash }
      : decision.action === 'skip'
        ? { hash: decision.hash }
        : {}),
    decision,
  });
  if (blocked || !fitted.built || !allocated) {
    const shown = problems
      .slice(0, 3)
      .map((p) => p.message)
      .join('; ');
    const reason = `${problems.length} invalid input field(s), the last revision stays in force: ${shown}${problems.length > 3 ? '; …' : ''}`;
    return result({ action: 'blocked', reason }, undefined);
  }
  // The addresses grow with the fleet, not with any input: no input to refuse, the build waits.
  const excess =
    allocated.config !== fitted.built.config
      ? budgetExcess(allocated.config, opts.budget ?? DEFAULT_BUDGET)
      : undefined;
  if (excess) {
    const reason = `with every node's loopback addresses ${describeExcess(excess)}; the last revision stays in force`;
    return result({ action: 'blocked', reason }, undefined);
  }
  const notNew = new Set([...refused.keys(), ...suspects.keys()]);
  const { decision, carrier } = decide({
    built: allocated,
    revisions,
    changed: () => changedInputs(inputs, revisions, notNew),
  });
  return result(decision, carrier);
}

/**
 * Password references first: a peering whose Secret cannot be read is refused before validation and
 * holds back only itself (its entry in force, with its hash, stays).
 */
function withPasswords(
  given: Inputs,
  source: PasswordSource | undefined,
): { inputs: Inputs; refusedFirst: Problem[] } {
  const resolved = resolvePeeringPasswords(given.bgpPeering ?? [], source);
  const same = resolved.peerings.every((p, i) => p === given.bgpPeering?.[i]);
  return {
    inputs: same ? given : { ...given, bgpPeering: resolved.peerings },
    refusedFirst: resolved.problems,
  };
}

interface DecideInput {
  built: { config: NetworkConfig; hash: string };
  revisions: readonly NetworkConfigRevision[];
  /** The inputs the new revision carries for the first time (computed only when one is made). */
  changed: () => string[];
}

/**
 * Whether the configuration needs a new revision (invariant 4), and the revision that carries the
 * inputs' current generations.
 */
function decide({ built, revisions, changed }: DecideInput): {
  decision: RevisionDecision;
  carrier: string;
} {
  const { config, hash } = built;
  const sorted = [...revisions].sort((a, b) => b.spec.number - a.spec.number);
  const desired = sorted.find((r) => r.status?.isInvalid !== true);
  if (desired && desired.spec.hash === hash) {
    const reason = `equal to desired revision ${desired.metadata.name}`;
    return { decision: { action: 'skip', hash, reason }, carrier: desired.metadata.name };
  }
  const invalid = sorted.find((r) => r.status?.isInvalid === true && r.spec.hash === hash);
  // A new number is above every number ever used (numbers.ts), so a retry or a rebuild after
  // `kubectl delete ncr` never reuses the number of an earlier attempt.
  const number = highestNumber(revisions) + 1;
  if (invalid) {
    const name = invalid.metadata.name;
    const retriedBy = sorted.find((r) => r.spec.retryOf === name);
    if (invalid.metadata.annotations?.[RETRY_ANNOTATION] === undefined || retriedBy) {
      const reason = `equal to invalid revision ${name}; to try it again: kubectl annotate ncr ${name} ${RETRY_ANNOTATION}=now`;
      return { decision: { action: 'skip', hash, reason }, carrier: name };
    }
    const retry = newRevision({ number, config, hash, changed: changed(), retryOf: name });
    const reason = `retry of invalid revision ${name} (annotation ${RETRY_ANNOTATION})`;
    return {
      decision: { action: 'create', revision: retry, retryOf: invalid, reason },
      carrier: retry.metadata.name,
    };
  }
  const revision = newRevision({ number, config, hash, changed: changed() });
  const reason = desired
    ? `inputs changed (desired ${desired.metadata.name} has ${shortHash(desired.spec.hash)})`
    : 'first revision';
  return { decision: { action: 'create', revision, reason }, carrier: revision.metadata.name };
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
 * Bytes of `spec.changedInputs` at most: within the revision's headroom (budget.ts) beside its
 * metadata and status. Every changed input is a suspect if the revision fails (issue 35: a cap at
 * 50 rebuilt the 51st with a fresh budget); what does not fit is counted, and then suspects are
 * found by content (@nodenet/api held-back/suspects.ts).
 */
export const CHANGED_INPUTS_BYTES = 32 * 1024;

function listedChanges(changed: readonly string[]): {
  changedInputs?: string[];
  changedInputsOmitted?: number;
} {
  const listed: string[] = [];
  let bytes = 2;
  for (const ref of changed) {
    bytes += Buffer.byteLength(ref) + 3;
    if (bytes > CHANGED_INPUTS_BYTES) break;
    listed.push(ref);
  }
  const omitted = changed.length - listed.length;
  return {
    ...(listed.length ? { changedInputs: listed } : {}),
    ...(omitted > 0 ? { changedInputsOmitted: omitted } : {}),
  };
}

interface NewRevision {
  number: number;
  config: NetworkConfig;
  hash: string;
  /** `spec.changedInputs`: all of them, as long as the list stays within CHANGED_INPUTS_BYTES. */
  changed: string[];
  retryOf?: string;
}

function newRevision({ number, config, hash, changed, retryOf }: NewRevision): NetworkConfigRevision {
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
      ...listedChanges(changed),
    },
  };
}
