/** The rollout policy: what the flags say about how fast and how carefully to roll out. */
import { OptionError, type DisruptionClass, type LabelSelector } from '@nodenet/api';

export type UpdateLimit = { kind: 'count'; count: number } | { kind: 'percent'; percent: number };

export interface Policy {
  updateLimit: UpdateLimit;
  /** Failures tolerated before a revision is marked invalid (failures > maxFailures invalidates). */
  maxFailures: number;
  /** A node whose agent has not reported on its assignment within this long has failed. */
  preconfigTimeoutMs: number;
  /** A node whose agent reported `provisioning` and nothing since for this long has failed. */
  configTimeoutMs: number;
  /**
   * A node that took the revision as a step of its rollout and is then NotReady (or gone) keeps its
   * slot this long, then counts as failed.
   */
  notReadyTimeoutMs: number;
  /** A node that finished keeps its slot this long (soak) before the next one starts. */
  minSuccessTimeMs: number;
  /** Only nodes matching this selector are targets (undefined: all nodes). */
  nodeSelector?: LabelSelector;
  /** Nodes are started in the order of this label's value (then by name). */
  waveLabel?: string;
  /** Waves are barriers: a wave starts only when every node of the previous ones is done (soak over). */
  waveBarrier?: boolean;
  /** Revisions kept (valid or invalid) when unreferenced older ones are deleted. */
  revisionHistoryLimit: number;
  /** Bound on `status.failedNodes`. */
  maxFailedNodes: number;
  /** Fleet-wide pause (RolloutPolicy `default`): no new forward moves whatever the revision. */
  paused?: boolean;
  /** How a disruptive revision rolls (RolloutPolicy `default` spec.disruptive; rollout/disruptive.ts). */
  disruptive?: DisruptivePolicy;
  /**
   * The most the RolloutPolicy `default` may loosen (issue #37): `--update-limit-ceiling`,
   * `--max-failures-ceiling`. Unset: the flag's own value (the RolloutPolicy may only tighten it).
   */
  ceilings?: { updateLimit?: UpdateLimit; maxFailures?: number };
}

/** While the desired revision is `from` or worse (or its class is not known yet): a lower limit, barriers. */
export interface DisruptivePolicy {
  from: DisruptionClass;
  updateLimit: UpdateLimit;
  waveBarrier: boolean;
}

export const DEFAULT_POLICY: Policy = {
  updateLimit: { kind: 'count', count: 1 },
  maxFailures: 0,
  preconfigTimeoutMs: 10 * 60_000,
  // Longer than the agent's confirm window (4m), so a change needs one liveness renewal at most
  // (the agent renews every --heartbeat-interval, 150s, half of this): docs/agent-status.md.
  configTimeoutMs: 5 * 60_000,
  notReadyTimeoutMs: 5 * 60_000,
  // Longer than the node lifecycle controller's grace period (40-50 s): a node cut off right after
  // its agent confirmed shows NotReady while it still soaks (docs/rollout.md "Failures").
  minSuccessTimeMs: 60_000,
  revisionHistoryLimit: 10,
  maxFailedNodes: 20,
};

/**
 * The lower bound of each timeout (flag and RolloutPolicy knob): below it a healthy node fails
 * before its agent can answer, or a reboot counts as a failure, and good revisions are invalidated.
 */
export const TIMEOUT_LOWER_BOUNDS_MS = {
  preconfigTimeoutMs: 10_000,
  configTimeoutMs: 10_000,
  notReadyTimeoutMs: 30_000,
  minSuccessTimeMs: 0,
} as const;

/**
 * The upper bound of every timeout knob (issue #37): a RolloutPolicy that waits 100000 h for a
 * report never counts a silent node as failed, and holds its slot for good.
 */
export const TIMEOUT_UPPER_BOUND_MS = 24 * 3600_000;

/** A duration no longer than TIMEOUT_UPPER_BOUND_MS, else an OptionError naming the knob and the value. */
export function atMost24h(ms: number, flag: string, text: string): number {
  if (ms > TIMEOUT_UPPER_BOUND_MS)
    throw new OptionError(flag, text, 'must be at most 24h (a longer one holds a silent node in its slot)');
  return ms;
}

/** A duration no shorter than `min` (ms), else an OptionError naming the flag or knob and the value. */
export function atLeast(ms: number, min: number, flag: string, text: string): number {
  if (ms < min)
    throw new OptionError(flag, text, `must be at least ${min / 1000}s (a shorter one fails healthy nodes)`);
  return ms;
}

/** `3` or `25%`. */
export function parseUpdateLimit(value: string, flag = '--update-limit'): UpdateLimit {
  const text = value.trim();
  const pct = /^(\d+(?:\.\d+)?)%$/.exec(text);
  if (pct) {
    const percent = Number(pct[1]);
    if (!(percent > 0 && percent <= 100))
      throw new OptionError(flag, value, 'percentage must be in (0, 100]');
    return { kind: 'percent', percent };
  }
  if (/^\d+$/.test(text) && Number(text) >= 1) return { kind: 'count', count: Number(text) };
  throw new OptionError(flag, value, 'must be a positive integer or a percentage like 25%');
}

/**
 * Whether `limit` allows more nodes at once than `ceiling`: by their numbers when both are counts or
 * both percentages, else for `targets` nodes (undefined: not known, so not compared).
 */
export function aboveCeiling(limit: UpdateLimit, ceiling: UpdateLimit, targets?: number): boolean {
  if (limit.kind === 'count' && ceiling.kind === 'count') return limit.count > ceiling.count;
  if (limit.kind === 'percent' && ceiling.kind === 'percent') return limit.percent > ceiling.percent;
  return targets !== undefined && updateLimitFor(limit, targets) > updateLimitFor(ceiling, targets);
}

export const updateLimitText = (l: UpdateLimit): string =>
  l.kind === 'count' ? String(l.count) : `${l.percent}%`;

/** Slots for `targets` nodes: a count as is, a percentage rounded up; never less than 1. */
export function updateLimitFor(limit: UpdateLimit, targets: number): number {
  const n = limit.kind === 'count' ? limit.count : Math.ceil((limit.percent * targets) / 100 - 1e-9);
  return Math.max(1, n);
}

export function parseNonNegativeInt(value: string, flag: string): number {
  if (!/^\d+$/.test(value.trim())) throw new OptionError(flag, value, 'must be a non-negative integer');
  return Number(value.trim());
}

export function parsePositiveInt(value: string, flag: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value.trim()) < 1)
    throw new OptionError(flag, value, 'must be a positive integer (at least 1)');
  return Number(value.trim());
}

/** --update-limit-ceiling and --max-failures-ceiling: what the RolloutPolicy may loosen to. */
export function knobCeilings(raw: {
  updateLimit: string;
  maxFailures: string;
  updateLimitCeiling?: string;
  maxFailuresCeiling?: string;
}): Pick<Policy, 'ceilings'> {
  const updateLimit =
    raw.updateLimitCeiling !== undefined
      ? parseUpdateLimit(raw.updateLimitCeiling, '--update-limit-ceiling')
      : undefined;
  const maxFailures =
    raw.maxFailuresCeiling !== undefined
      ? parseNonNegativeInt(raw.maxFailuresCeiling, '--max-failures-ceiling')
      : undefined;
  if (updateLimit && aboveCeiling(parseUpdateLimit(raw.updateLimit), updateLimit))
    throw new OptionError(
      '--update-limit-ceiling',
      raw.updateLimitCeiling,
      'must not be below --update-limit',
    );
  if (maxFailures !== undefined && parseNonNegativeInt(raw.maxFailures, '--max-failures') > maxFailures)
    throw new OptionError(
      '--max-failures-ceiling',
      raw.maxFailuresCeiling,
      'must not be below --max-failures',
    );
  if (updateLimit === undefined && maxFailures === undefined) return {};
  return {
    ceilings: {
      ...(updateLimit ? { updateLimit } : {}),
      ...(maxFailures !== undefined ? { maxFailures } : {}),
    },
  };
}
