/**
 * Revision building (pure): validate every input, decide each input's `Accepted` condition, and
 * decide whether the merged configuration needs a new revision. An input set with any problem
 * produces no revision at all (invariant 3); a configuration equal to the desired revision, or to a
 * revision marked invalid (invariant 4), produces none either.
 */
import {
  API_VERSION,
  HIGHEST_NUMBER_ANNOTATION,
  RETRY_ANNOTATION,
  buildConfig,
  canonicalJson,
  inForceKeys,
  revisionName,
  validateInputs,
  type InputObject,
  type InputStatus,
  type Inputs,
  type NetworkConfigRevision,
  type Problem,
} from '@nodenet/api';
import { setConditions, rfc3339 } from './conditions.js';
import { highestNumber } from './rollout/numbers.js';

export interface InputStatusUpdate {
  object: InputObject;
  status: InputStatus;
  /** The Accepted condition changed to False (or its message changed): worth a Warning Event. */
  newlyRejected?: string;
}

export type RevisionDecision =
  | { action: 'blocked'; reason: string }
  | { action: 'create'; revision: NetworkConfigRevision; reason: string; retryOf?: NetworkConfigRevision }
  | { action: 'skip'; hash: string; reason: string };

export interface BuildResult {
  problems: Problem[];
  inputStatusUpdates: InputStatusUpdate[];
  decision: RevisionDecision;
  /** Hash of the merged inputs when they are valid. */
  hash?: string;
}

const allInputs = (inputs: Inputs): InputObject[] => [
  ...inputs.vrf,
  ...inputs.layer2,
  ...inputs.routingTable,
];

export function buildRevision(
  inputs: Inputs,
  revisions: readonly NetworkConfigRevision[],
  now: number,
): BuildResult {
  // Claims go first to the objects of the revision in force (the validation's blame rule).
  const inForce = [...revisions]
    .sort((a, b) => b.spec.number - a.spec.number)
    .find((r) => r.status?.isInvalid !== true);
  const problems = validateInputs(inputs, inForce ? { inForce: inForceKeys(inForce.spec.config) } : {});
  const byObject = new Map<string, Problem[]>();
  for (const p of problems) {
    const k = `${p.kind}/${p.name}`;
    byObject.set(k, [...(byObject.get(k) ?? []), p]);
  }
  const nowText = rfc3339(now);
  const inputStatusUpdates: InputStatusUpdate[] = [];
  for (const obj of allInputs(inputs)) {
    const mine = byObject.get(`${obj.kind}/${obj.metadata.name}`) ?? [];
    const generation = obj.metadata.generation;
    const accepted =
      mine.length === 0
        ? {
            type: 'Accepted',
            status: 'True' as const,
            reason: problems.length ? 'ValidButBlocked' : 'Valid',
            message: problems.length
              ? `valid, but no new revision while ${problems.length} problem(s) remain in other inputs`
              : 'valid',
          }
        : {
            type: 'Accepted',
            status: 'False' as const,
            reason: 'Invalid',
            message: mine.map((p) => p.message).join('; '),
          };
    const old = obj.status ?? {};
    const next: InputStatus = {
      ...old,
      conditions: setConditions(
        old.conditions,
        [{ ...accepted, ...(generation !== undefined ? { observedGeneration: generation } : {}) }],
        nowText,
      ),
      ...(generation !== undefined ? { observedGeneration: generation } : {}),
    };
    if (canonicalJson(next) !== canonicalJson(old)) {
      const prevAccepted = old.conditions?.find((c) => c.type === 'Accepted');
      const newlyRejected =
        accepted.status === 'False' &&
        (prevAccepted?.status !== 'False' || prevAccepted.message !== accepted.message)
          ? accepted.message
          : undefined;
      inputStatusUpdates.push({ object: obj, status: next, ...(newlyRejected ? { newlyRejected } : {}) });
    }
  }
  if (problems.length > 0) {
    return {
      problems,
      inputStatusUpdates,
      decision: {
        action: 'blocked',
        reason: `${problems.length} invalid input field(s), the last revision stays in force: ${problems
          .slice(0, 3)
          .map((p) => p.message)
          .join('; ')}${problems.length > 3 ? '; …' : ''}`,
      },
    };
  }
  const { config, hash } = buildConfig(inputs);
  const sorted = [...revisions].sort((a, b) => b.spec.number - a.spec.number);
  const desired = sorted.find((r) => r.status?.isInvalid !== true);
  if (desired && desired.spec.hash === hash) {
    return {
      problems,
      inputStatusUpdates,
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
        inputStatusUpdates,
        hash,
        decision: {
          action: 'skip',
          hash,
          reason: `equal to invalid revision ${invalid.metadata.name}; to try it again: kubectl annotate ncr ${invalid.metadata.name} ${RETRY_ANNOTATION}=now`,
        },
      };
    }
    const retry = newRevision(number, config, hash, invalid.metadata.name);
    return {
      problems,
      inputStatusUpdates,
      hash,
      decision: {
        action: 'create',
        revision: retry,
        retryOf: invalid,
        reason: `retry of invalid revision ${invalid.metadata.name} (annotation ${RETRY_ANNOTATION})`,
      },
    };
  }
  const revision = newRevision(number, config, hash);
  return {
    problems,
    inputStatusUpdates,
    hash,
    decision: {
      action: 'create',
      revision,
      reason: desired
        ? `inputs changed (desired ${desired.metadata.name} has ${desired.spec.hash.slice(0, 10)})`
        : 'first revision',
    },
  };
}

function newRevision(
  number: number,
  config: NetworkConfigRevision['spec']['config'],
  hash: string,
  retryOf?: string,
): NetworkConfigRevision {
  return {
    apiVersion: API_VERSION,
    kind: 'NetworkConfigRevision',
    metadata: {
      name: revisionName(number, hash),
      annotations: { [HIGHEST_NUMBER_ANNOTATION]: String(number) },
    },
    spec: { config, hash, number, ...(retryOf ? { retryOf } : {}) },
  };
}
