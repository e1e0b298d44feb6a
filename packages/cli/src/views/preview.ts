/**
 * The TO side of `diff` without a TO revision: the configuration the configurator would build from
 * the current inputs, by the same held-back rule it applies (@nodenet/api `inputsToBuild`: a refused
 * input keeps its entry in force, a suspect of an invalid revision its entry from before), and what
 * is held back and why (pure). The size budget (configurator fit-budget.ts) is not previewed.
 */
import {
  RETRY_ANNOTATION,
  buildConfig,
  configWithLoopbacks,
  findCondition,
  inputsToBuild,
  fallbackBefore,
  type Inputs,
  type InputsToBuild,
  type NetworkConfigRevision,
  type Problem,
  type UnderlayContext,
} from '@nodenet/api';
import type { DiffSide } from './diff.js';
import { isInvalid, revisionInForce, type ClusterState, type Revision } from '../cluster/state.js';

/** An input the build leaves out (or keeps at an earlier entry), and why. */
export interface HeldBackInput {
  /** `Kind/name`. */
  input: string;
  reason: 'refused' | 'suspect';
  /** For people: why, and what the build uses instead. */
  message: string;
}

export type Preview =
  { problems: Problem[] } | { side: DiffSide; notes: string[]; heldBack: HeldBackInput[] };

/**
 * `underlay`: the Nodes' addresses and the site's settings, as the configurator hands them to
 * validation (the peering guards): without them a peering the configurator refuses would preview.
 */
export function previewOf(
  inputs: Inputs,
  label: string,
  s: ClusterState,
  { from, underlay }: { from: Revision | undefined; underlay?: UnderlayContext },
): Preview {
  const plan = inputsToBuild(inputs, s.revisions, underlay ? { underlay } : {});
  if (plan.effective.inputs === undefined) return { problems: plan.effective.problems };
  const built = withAddresses(plan.effective.inputs, s);
  const notes: string[] = [];
  const known = revisionWithHash(s, built.hash);
  if (known && isInvalid(known))
    notes.push(
      `The current inputs equal invalid revision ${known.metadata.name}: they are not rolled out until you run kubectl nodenet retry ${known.metadata.name}.`,
    );
  else if (known && known !== from)
    notes.push(
      `The current inputs equal revision ${known.metadata.name} (number ${known.spec.number}${known === revisionInForce(s) ? ', the one in force' : ''}).`,
    );
  return {
    side: { label, config: built.config, hash: built.hash },
    notes,
    heldBack: heldBackOf(plan, s.revisions),
  };
}

/**
 * The revision a configuration is: several can have its hash (a retry has the content of the
 * revision it retries; a later change back makes an equal one), so by number, never by hash alone:
 * the one in force when it has the hash, else the newest with it (an older one is superseded or
 * invalid and retried since).
 */
function revisionWithHash(s: ClusterState, hash: string): Revision | undefined {
  const inForce = revisionInForce(s);
  if (inForce?.spec.hash === hash) return inForce;
  let newest: Revision | undefined;
  for (const r of s.revisions)
    if (r.spec.hash === hash && (!newest || r.spec.number > newest.spec.number)) newest = r;
  return newest;
}

/**
 * The merged inputs with the loopback addresses the configurator would give (configWithLoopbacks,
 * the configurator's own step), from the newest revision and every Node. A configurator run with
 * --node-selector allocates for its nodes only; the preview can not know that flag.
 */
function withAddresses(
  inputs: Inputs,
  s: Pick<ClusterState, 'revisions' | 'nodes'> | undefined,
): ReturnType<typeof configWithLoopbacks> {
  const nodes = (s?.nodes ?? []).map((n) => ({ name: n.metadata.name, labels: n.metadata.labels ?? {} }));
  return configWithLoopbacks(buildConfig(inputs), s?.revisions ?? [], nodes);
}

function heldBackOf(plan: InputsToBuild, revisions: readonly Revision[]): HeldBackInput[] {
  const inForce = plan.inForce?.metadata.name;
  const refused = [...plan.effective.refused].map(([input, problems]) => ({
    input,
    reason: 'refused' as const,
    message:
      `refused: ${problems[0]?.message ?? 'invalid'}` +
      (problems.length > 1 ? ` (and ${problems.length - 1} more)` : '') +
      (plan.effective.held.has(input)
        ? `; its entry in ${inForce ?? 'force'} stays`
        : '; it is in no revision yet, so it adds nothing'),
  }));
  const suspects = [...plan.suspects]
    .filter(([input]) => !plan.effective.refused.has(input))
    .map(([input, { revision }]) => {
      const earlier = fallbackBefore(revision, revisions, isInvalid)?.metadata.name;
      const stays =
        earlier !== undefined && plan.effective.held.has(input)
          ? `it stays as in ${earlier}`
          : 'it adds nothing';
      return {
        input,
        reason: 'suspect' as const,
        message:
          `its change broke ${revision.metadata.name} (${invalidWhy(revision)}); ${stays} until the input ` +
          `changes again or: kubectl nodenet retry ${revision.metadata.name}`,
      };
    });
  return [...refused, ...suspects].sort((a, b) => (a.input < b.input ? -1 : a.input > b.input ? 1 : 0));
}

const invalidWhy = (r: NetworkConfigRevision): string =>
  (findCondition(r.status?.conditions, 'Invalid', 'True')?.message ?? 'invalid').split('\n')[0] as string;

/**
 * Hash of the configuration the configurator builds from these inputs, by the held-back rule, or
 * undefined when it builds nothing (a held-back entry no longer validates). `retrying`: as the
 * build sees it once that revision's retry is asked for (its suspects are released then).
 */
export function inputsHash(s: ClusterState, retrying?: Revision): string | undefined {
  const revisions = retrying
    ? s.revisions.map((r) =>
        r === retrying
          ? {
              ...r,
              metadata: {
                ...r.metadata,
                annotations: { ...r.metadata.annotations, [RETRY_ANNOTATION]: 'now' },
              },
            }
          : r,
      )
    : s.revisions;
  const effective = inputsToBuild(s.inputs, revisions).effective.inputs;
  return effective === undefined ? undefined : withAddresses(effective, s).hash;
}

export function renderProblems(problems: Problem[]): string {
  return (
    `The current inputs have ${problems.length} problem(s); no new revision is built until they are fixed:\n` +
    problems.map((p) => `  ${p.kind}/${p.name}: ${p.message}\n`).join('')
  );
}

export function renderHeldBack(held: readonly HeldBackInput[]): string {
  if (held.length === 0) return '';
  return (
    `\nHeld back (${held.length}; the preview above is what the configurator builds without them):\n` +
    held.map((h) => `  ${h.input}: ${h.message}\n`).join('')
  );
}
