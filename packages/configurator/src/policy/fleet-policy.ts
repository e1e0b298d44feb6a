/**
 * The fleet-wide RolloutPolicy (the object named `default`), pure: the policy a pass runs with
 * (the flags, overridden by the knobs set in its spec, so they change without a restart) and the
 * status that tells where the rollout stands.
 */
import {
  DISRUPTION_CLASSES,
  OptionError,
  ROLLOUT_POLICY_NAME,
  type DisruptiveRollout,
  canonicalJson,
  type NetworkConfigRevision,
  type RolloutPolicy,
  type RolloutPolicyStatus,
} from '@nodenet/api';
import { setConditions, rfc3339 } from '@nodenet/api';
import { parseDuration } from '@nodenet/kube';
import {
  TIMEOUT_LOWER_BOUNDS_MS,
  aboveCeiling,
  atLeast,
  atMost24h,
  parseUpdateLimit,
  updateLimitText,
  type DisruptivePolicy,
  type Policy,
} from './policy.js';
import type { Plan } from '../rollout/index.js';

export interface EffectivePolicy {
  policy: Policy;
  /** Knobs that could not be read: the flag's value stays in force for each. */
  problems: string[];
}

export const findRolloutPolicy = (list: readonly RolloutPolicy[]): RolloutPolicy | undefined =>
  list.find((p) => p.metadata.name === ROLLOUT_POLICY_NAME);

/**
 * The flags, with every knob the RolloutPolicy sets in their place; `updateLimit` and `maxFailures`
 * no higher than the site's ceilings (Policy.ceilings; a percentage against a count is compared for
 * `targets` nodes when known). A knob above its ceiling is refused like an unreadable one: the
 * flag's value stays and the RolloutPolicy reads Valid=False naming the field and the value.
 */
export function effectivePolicy(
  flags: Policy,
  rp: RolloutPolicy | undefined,
  targets?: number,
): EffectivePolicy {
  const policy: Policy = { ...flags };
  const problems: string[] = [];
  const spec = rp?.spec ?? {};
  const read = (field: string, fn: () => void): void => {
    try {
      fn();
    } catch (err) {
      problems.push(err instanceof Error ? err.message : `spec.${field}: ${String(err)}`);
    }
  };
  if (spec.paused === true) policy.paused = true;
  if (spec.updateLimit !== undefined)
    read('updateLimit', () => {
      const limit = parseUpdateLimit(spec.updateLimit as string, 'spec.updateLimit');
      const ceiling = flags.ceilings?.updateLimit ?? flags.updateLimit;
      if (aboveCeiling(limit, ceiling, targets))
        throw new OptionError(
          'spec.updateLimit',
          spec.updateLimit,
          overCeiling('update-limit', updateLimitText(ceiling)),
        );
      policy.updateLimit = limit;
    });
  const maxFailures = spec.maxFailures;
  if (maxFailures !== undefined)
    read('maxFailures', () => {
      const ceiling = flags.ceilings?.maxFailures ?? flags.maxFailures;
      if (maxFailures > ceiling)
        throw new OptionError(
          'spec.maxFailures',
          String(maxFailures),
          overCeiling('max-failures', String(ceiling)),
        );
      policy.maxFailures = maxFailures;
    });
  const durations = [
    ['preconfigTimeout', 'preconfigTimeoutMs'],
    ['configTimeout', 'configTimeoutMs'],
    ['notReadyTimeout', 'notReadyTimeoutMs'],
    ['minSuccessTime', 'minSuccessTimeMs'],
  ] as const;
  for (const [field, key] of durations) {
    const v = spec[field];
    if (v !== undefined)
      read(
        field,
        () =>
          (policy[key] = atMost24h(
            atLeast(parseDuration(`spec.${field}`, v), TIMEOUT_LOWER_BOUNDS_MS[key], `spec.${field}`, v),
            `spec.${field}`,
            v,
          )),
      );
  }
  if (spec.waveLabel) policy.waveLabel = spec.waveLabel;
  if (spec.waveBarrier !== undefined) policy.waveBarrier = spec.waveBarrier;
  const d = spec.disruptive;
  if (d) read('disruptive', () => (policy.disruptive = disruptivePolicy(d)));
  return { policy, problems };
}

/** spec.disruptive with its defaults: session-reset and worse, one node at a time, waves as barriers. */
function disruptivePolicy(d: DisruptiveRollout): DisruptivePolicy {
  const from = d.from ?? 'session-reset';
  if (!(DISRUPTION_CLASSES as readonly string[]).includes(from))
    throw new OptionError('spec.disruptive.from', from, `must be one of ${DISRUPTION_CLASSES.join(', ')}`);
  return {
    from,
    updateLimit: parseUpdateLimit(d.updateLimit ?? '1', 'spec.disruptive.updateLimit'),
    waveBarrier: d.waveBarrier ?? true,
  };
}

const overCeiling = (flag: string, ceiling: string): string =>
  `must be at most ${ceiling}, the site's ceiling (--${flag}-ceiling, or --${flag} when that is unset); the flag's value stays`;

/** What a pass knows when it writes the RolloutPolicy status. */
export interface PolicyPass {
  plan: Plan;
  revisions: readonly NetworkConfigRevision[];
  /** The knobs whose values were refused (the flag values are kept for them). */
  problems: readonly string[];
  now: number;
}

/** The RolloutPolicy status after a pass; undefined when it would not change. */
export function rolloutPolicyStatus(
  rp: RolloutPolicy,
  { plan: p, revisions, problems, now }: PolicyPass,
): RolloutPolicyStatus | undefined {
  const old = rp.status ?? {};
  const d = p.desired;
  const desired = d ? revisions.find((r) => r.metadata.name === d.name) : undefined;
  const planned = d ? p.statusUpdates.find((u) => u.revision === d.name)?.status : undefined;
  const st = planned ?? desired?.status;
  const paused = rp.spec.paused === true;
  const next: RolloutPolicyStatus = {
    // The empty config (number 0, the last-resort fallback) is no revision object.
    ...(d && d.number > 0 ? { desiredRevision: d.name, desiredNumber: d.number } : {}),
    ...(st?.phase ? { phase: st.phase } : {}),
    total: st?.total ?? 0,
    ready: st?.ready ?? 0,
    ongoing: st?.ongoing ?? 0,
    failed: st?.failed ?? 0,
    ...(rp.metadata.generation !== undefined ? { observedGeneration: rp.metadata.generation } : {}),
    conditions: setConditions(
      old.conditions,
      [
        paused
          ? {
              type: 'Paused',
              status: 'True',
              reason: 'Paused',
              message: 'no new forward moves on any revision; rollbacks still run',
            }
          : { type: 'Paused', status: 'False', reason: 'NotPaused', message: 'not paused' },
        problems.length
          ? {
              type: 'Valid',
              status: 'False',
              reason: 'InvalidKnob',
              message: `flag values kept for: ${problems.join('; ')}`,
            }
          : { type: 'Valid', status: 'True', reason: 'Valid', message: 'every knob set is in force' },
      ],
      rfc3339(now),
    ),
  };
  return canonicalJson(next) === canonicalJson(old) ? undefined : next;
}
