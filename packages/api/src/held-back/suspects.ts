/**
 * A failed change stays rolled back (docs/rollout.md, "The model"). When a revision is invalidated,
 * the input generations it introduced (`spec.changedInputs`, the suspects) are held back from newer
 * revisions until the input changes again or a person retries the revision. A write made while the
 * change was in flight that still carries it is the same change (issue 35), held back with it. Pure; one definition for
 * the configurator's build and planner and the plugin's preview (held-back/inputs.ts: which inputs to hold
 * back, and the entry each contributes instead).
 */
import { canonicalJson } from '../config/canonical.js';
import { carriesEntryChange } from './entry-change.js';
import { findCondition } from '../status/conditions.js';
import { RETRY_ANNOTATION } from '../names/kubernetes.js';
import type { NetworkConfigRevision } from '../resources/objects.js';
import type { NetworkConfig } from '../resources/schema.js';

/** The Invalid reason of a revision invalidated only because it carries another one's suspects. */
export const CARRIES_REASON = 'CarriesRolledBackChange';

const LISTS = {
  VRFRouteConfiguration: 'vrf',
  Layer2NetworkConfiguration: 'layer2',
  RoutingTable: 'routingTable',
  BGPPeering: 'bgpPeering',
  AgentConfiguration: 'agentConfig',
} as const;

/** Each suspect kind's list in a revision's config (for suspects known by content only, BY_CONTENT). */
export const SUSPECT_LISTS: Readonly<Record<keyof typeof LISTS, keyof NetworkConfig>> = LISTS;

export interface SuspectRef {
  kind: keyof typeof LISTS;
  name: string;
  generation: number;
}

/**
 * The generation of a suspect known by its content only (a commit too large to list): it is held
 * back while the input's entry is the failed one.
 */
export const BY_CONTENT = -1;

/** `Kind/name@generation` (outcome.ts inputRef); undefined for anything else. */
export function parseRef(ref: string): SuspectRef | undefined {
  const m = /^([A-Za-z0-9]+)\/(.+)@(\d+)$/.exec(ref);
  if (!m || !((m[1] as string) in LISTS)) return undefined;
  return { kind: m[1] as keyof typeof LISTS, name: m[2] as string, generation: Number(m[3]) };
}

/** The entry a config has for an input (undefined: none). */
export function entryOf(config: NetworkConfig, ref: Pick<SuspectRef, 'kind' | 'name'>): unknown {
  // An optional list (agentConfig) is absent when empty.
  const list = (config[LISTS[ref.kind]] ?? []) as ReadonlyArray<{ name: string }>;
  return list.find((e) => e.name === ref.name);
}

export const sameEntry = (a: unknown, b: unknown): boolean =>
  canonicalJson(a ?? null) === canonicalJson(b ?? null);

/**
 * A revision whose failure holds its suspects back: invalid, not for carrying, and not retried. A
 * retry asked for (the annotation) releases them, or the build could never make the retry.
 */
export function holdsBack(r: NetworkConfigRevision, all: readonly NetworkConfigRevision[]): boolean {
  if (r.status?.isInvalid !== true) return false;
  if (findCondition(r.status.conditions, 'Invalid', 'True')?.reason === CARRIES_REASON) return false;
  if (r.metadata.annotations?.[RETRY_ANNOTATION] !== undefined) return false;
  return !all.some((x) => x.spec.retryOf === r.metadata.name);
}

/**
 * The newest valid revision older than `r` that completed; undefined: none. The floor of a
 * change's failure budget (the configurator's invalidation.ts): failures on revisions after it
 * that carry the change count together. Where a failed change rolls back to is fallbackBefore.
 */
export function revisionBefore(
  r: NetworkConfigRevision,
  all: readonly NetworkConfigRevision[],
  invalid: (x: NetworkConfigRevision) => boolean,
): NetworkConfigRevision | undefined {
  return [...all]
    .filter((x) => x.spec.number < r.spec.number && !invalid(x) && x.status?.completedAt !== undefined)
    .sort((a, b) => b.spec.number - a.spec.number)[0];
}

/**
 * A revision a failed change may roll back to (issue 35): it completed, or some node's agent ran it
 * (`status.ranAt`) and no node failed it. Before issue 35 only a completed revision was, so a change
 * that failed before its predecessor completed fell back to the revision before that one, or to the
 * empty configuration, and took from the nodes inputs the failed change never touched.
 */
export const ranWell = (x: NetworkConfigRevision): boolean =>
  x.status?.completedAt !== undefined ||
  (x.status?.ranAt !== undefined &&
    (x.status.failed ?? 0) === 0 &&
    (x.status.failedNodes ?? []).length === 0);

/**
 * What a failed change of `r` rolls back to: the newest valid revision older than `r` that ran well
 * (ranWell); undefined: none (the empty configuration: no input ever ran without the change).
 */
export function fallbackBefore(
  r: NetworkConfigRevision,
  all: readonly NetworkConfigRevision[],
  invalid: (x: NetworkConfigRevision) => boolean,
): NetworkConfigRevision | undefined {
  return [...all]
    .filter((x) => x.spec.number < r.spec.number && !invalid(x) && ranWell(x))
    .sort((a, b) => b.spec.number - a.spec.number)[0];
}

/**
 * The suspects of invalid revision `bad`: the input generations changed since its fallback (the
 * newest revision that ran well, fallbackBefore) that `bad` carries (its own changedInputs and those
 * of the revisions between, newest generation per input), whose entry in `bad` differs from the
 * fallback's. A change that came in through a superseded revision is as suspect as the newest one;
 * a change some node ran well before the failing one is not (a rollback takes back only the
 * failed change).
 */
export function effectiveSuspects(
  bad: NetworkConfigRevision,
  all: readonly NetworkConfigRevision[],
  invalid: (x: NetworkConfigRevision) => boolean,
): SuspectRef[] {
  const prev = fallbackBefore(bad, all, invalid);
  const since = [...all]
    .filter((x) => x.spec.number <= bad.spec.number && x.spec.number > (prev?.spec.number ?? 0))
    .sort((a, b) => b.spec.number - a.spec.number);
  const newest = new Map<string, SuspectRef>();
  for (const x of since)
    for (const s of (x.spec.changedInputs ?? []).map(parseRef))
      if (s !== undefined && !newest.has(`${s.kind}/${s.name}`)) newest.set(`${s.kind}/${s.name}`, s);
  // A commit too large to list (changedInputsOmitted): every entry that differs is a suspect, by content.
  if (since.some((x) => (x.spec.changedInputsOmitted ?? 0) > 0))
    for (const kind of Object.keys(LISTS) as Array<keyof typeof LISTS>)
      for (const e of (bad.spec.config[LISTS[kind]] ?? []) as ReadonlyArray<{ name: string }>)
        if (!newest.has(`${kind}/${e.name}`))
          newest.set(`${kind}/${e.name}`, { kind, name: e.name, generation: BY_CONTENT });
  return [...newest.values()].filter(
    (s) => !sameEntry(entryOf(bad.spec.config, s), prev ? entryOf(prev.spec.config, s) : undefined),
  );
}

export interface HeldSuspect {
  /** The invalid revision that holds it back. */
  revision: NetworkConfigRevision;
  /** The config whose entry it contributes instead (the fallback, fallbackBefore; none: nothing). */
  fallback: NetworkConfig | undefined;
}

/**
 * For the build: inputs (`Kind/name`) whose current generation is a suspect of an invalid revision
 * that holds it back. An input whose generation changed since is released, unless the revision's
 * status lists that generation as a follow-up (written while the change was in flight, before the
 * invalidation: held-back/follow-ups.ts) and its entry still carries the change.
 */
export function heldSuspects(
  current: ReadonlyMap<string, number>,
  revisions: readonly NetworkConfigRevision[],
  /** The entry the input's current generation merges to (for suspects held by content or as a follow-up). */
  currentEntry: (s: SuspectRef) => unknown = () => undefined,
): Map<string, HeldSuspect> {
  const out = new Map<string, HeldSuspect>();
  const invalid = (x: NetworkConfigRevision): boolean => x.status?.isInvalid === true;
  const newestFirst = [...revisions].sort((a, b) => b.spec.number - a.spec.number);
  for (const bad of newestFirst) {
    if (!holdsBack(bad, revisions)) continue;
    const fallback = fallbackBefore(bad, revisions, invalid)?.spec.config;
    for (const s of effectiveSuspects(bad, revisions, invalid)) {
      const key = `${s.kind}/${s.name}`;
      const generation = current.get(key);
      if (out.has(key) || generation === undefined) continue;
      const held =
        s.generation === BY_CONTENT
          ? sameEntry(currentEntry(s), entryOf(bad.spec.config, s))
          : generation === s.generation ||
            (isFollowUp(bad, key, generation) &&
              carriesEntryChange(
                currentEntry(s),
                entryOf(bad.spec.config, s),
                fallback ? entryOf(fallback, s) : undefined,
              ));
      if (held) out.set(key, { revision: bad, fallback });
    }
  }
  return out;
}

/**
 * Whether `generation` of input `key` was written before `bad` was invalidated, after its suspect's
 * own generation (its status's followUpGenerations; any, when some were omitted from the list).
 */
function isFollowUp(bad: NetworkConfigRevision, key: string, generation: number): boolean {
  if ((bad.status?.followUpGenerationsOmitted ?? 0) > 0) return true;
  return (bad.status?.followUpGenerations ?? []).includes(`${key}@${generation}`);
}
