/**
 * Keeping a revision within the size budget (pure, budget.ts): when the valid inputs would build a
 * configuration over a limit, the changes not in a revision yet are taken first come, first served
 * (in the order in which the configurator saw their generations, `recency`): the one that would
 * cross the limit is refused (`Accepted=False`, the message names the figure and the limit) and held
 * back like any refused input (@nodenet/api held-back.ts), its generation in force stays; a later change that
 * still fits rolls out (invariant 3). A generation already carried by a revision is never refused
 * for size.
 */
import {
  allInputs,
  buildConfig,
  effectiveInputs,
  mergeInputs,
  type EffectiveInputs,
  type HeldSuspect,
  type InputObject,
  type Inputs,
  type NetworkConfig,
  type UnderlayContext,
  type Problem,
} from '@nodenet/api';
import {
  budgetExcess,
  describeExcess,
  frrLines,
  templateLines,
  type BudgetExcess,
  type SizeBudget,
} from './budget.js';

export interface Fitted {
  effective: EffectiveInputs;
  /** The configuration built from `effective.inputs` (absent when blocked). */
  built?: { config: NetworkConfig; hash: string };
  /** Set when the configuration is still over a limit with nothing left to refuse. */
  excess?: BudgetExcess;
}

export interface FitOptions {
  budget: SizeBudget;
  /** Larger is newer; ties go to the name that sorts last. */
  recency: (o: InputObject) => number;
  /** Whether the input's current generation is in a valid revision already. */
  carried: (o: InputObject) => boolean;
  /** Suspects held back (@nodenet/api held-back.ts), kept held back in every round. */
  suspects?: ReadonlyMap<string, HeldSuspect>;
  /** Creation order within a second, for the blame rule (creation-order.ts). */
  createdOrder?: (o: InputObject) => bigint | undefined;
  /** Inputs refused before the build (a password Secret that cannot be read), kept refused in every round. */
  refusedFirst?: readonly Problem[];
  /** The nodes' addresses and the site's underlay settings, for validation (issue #37). */
  underlay?: UnderlayContext;
}

const entryOf = (o: InputObject): unknown => {
  const one = mergeInputs({
    vrf: o.kind === 'VRFRouteConfiguration' ? [o] : [],
    layer2: o.kind === 'Layer2NetworkConfiguration' ? [o] : [],
    routingTable: o.kind === 'RoutingTable' ? [o] : [],
    bgpPeering: o.kind === 'BGPPeering' ? [o] : [],
    agentConfiguration: o.kind === 'AgentConfiguration' ? [o] : [],
  });
  return one.vrf[0] ?? one.layer2[0] ?? one.routingTable[0] ?? one.bgpPeering?.[0] ?? one.agentConfig?.[0];
};
const keyOf = (o: InputObject): string => `${o.kind}/${o.metadata.name}`;
const jsonBytes = (v: unknown): number => Buffer.byteLength(JSON.stringify(v) ?? '');

/** What an input adds to the measured figure, roughly (its in-force entry is what stays instead). */
function contribution(
  o: InputObject,
  what: BudgetExcess['what'],
  inForce: NetworkConfig | undefined,
): number {
  if (what === 'revision size') {
    const entries =
      o.kind === 'VRFRouteConfiguration'
        ? inForce?.vrf
        : o.kind === 'Layer2NetworkConfiguration'
          ? inForce?.layer2
          : o.kind === 'BGPPeering'
            ? inForce?.bgpPeering
            : o.kind === 'AgentConfiguration'
              ? inForce?.agentConfig
              : inForce?.routingTable;
    const old = entries?.find((e) => e.name === o.metadata.name);
    // The entry this input merges to, plus a separator.
    return jsonBytes(entryOf(o)) + 1 - (old ? jsonBytes(old) + 1 : 0);
  }
  if (o.kind === 'Layer2NetworkConfiguration') return 0;
  if (o.kind === 'RoutingTable') return 1;
  if (o.kind === 'AgentConfiguration') {
    const old = inForce?.agentConfig?.find((e) => e.name === o.metadata.name);
    return templateLines(o.spec.frrTemplate) - (old ? templateLines(old.frrTemplate) : 0);
  }
  const items = (s: { import?: unknown[]; export?: unknown[] } | undefined): number =>
    (s?.import?.length ?? 0) + (s?.export?.length ?? 0);
  const old =
    o.kind === 'BGPPeering'
      ? inForce?.bgpPeering?.find((e) => e.name === o.metadata.name)
      : inForce?.vrf.find((e) => e.name === o.metadata.name);
  return items(o.spec) + 8 - (old ? items(old) + 8 : 0);
}

export function fitBudget(
  inputs: Inputs,
  inForce: NetworkConfig | undefined,
  first: EffectiveInputs,
  opts: FitOptions,
): Fitted {
  let effective = first;
  const refusedForSize: Problem[] = [];
  const all = allInputs(inputs);
  // Each round refuses at least one more input or ends.
  for (let round = 0; round <= all.length; round++) {
    if (!effective.inputs) return { effective };
    const built = buildConfig(effective.inputs);
    const excess = budgetExcess(built.config, opts.budget, built.bytes);
    if (!excess) return { effective, built };
    // The changes not in a revision yet, oldest first, with what each adds to the figure.
    const candidates = all
      .filter((o) => !effective.refused.has(keyOf(o)) && !opts.carried(o))
      .map((o) => ({ o, adds: contribution(o, excess.what, inForce) }))
      .filter((c) => (excess.what === 'FRR lines' ? c.o.kind !== 'Layer2NetworkConfiguration' : c.adds > 0))
      .sort((a, b) => opts.recency(a.o) - opts.recency(b.o) || (keyOf(a.o) < keyOf(b.o) ? -1 : 1));
    if (candidates.length === 0) return { effective, built, excess };
    const refuse =
      excess.what === 'FRR lines'
        ? refuseForLines({ config: built.config, inForce, candidates, limit: excess.limit })
        : refuseForBytes(excess, candidates);
    // The estimate said all fit, the build says not: the newest goes.
    if (refuse.length === 0)
      refuse.push({ c: candidates[candidates.length - 1] as Candidate, withIt: excess.figure });
    for (const { c, withIt } of refuse)
      refusedForSize.push({
        kind: c.o.kind,
        name: c.o.metadata.name,
        field: 'spec',
        value: undefined,
        reason: 'over the size budget',
        message: `${c.o.kind} ${c.o.metadata.name}: refused: with it ${describeExcess({ ...excess, figure: withIt })}; the generation in force stays`,
      });
    effective = effectiveInputs(inputs, inForce, {
      refusedFirst: [...(opts.refusedFirst ?? []), ...refusedForSize],
      suspects: opts.suspects,
      ...(opts.createdOrder ? { createdOrder: opts.createdOrder } : {}),
      ...(opts.underlay ? { underlay: opts.underlay } : {}),
    });
  }
  return { effective };
}

interface Candidate {
  o: InputObject;
  adds: number;
}

/** A candidate refused, and the figure the configuration would reach with it. */
interface Refusal {
  c: Candidate;
  withIt: number;
}

/**
 * Bytes, first come, first served: each change is taken while the figure stays within the limit;
 * the one that crosses it is refused, a later one that still fits is taken. An entry's bytes are
 * its own (plus a separator), so the estimate per input is close.
 */
function refuseForBytes(excess: BudgetExcess, candidates: readonly Candidate[]): Refusal[] {
  let figure = excess.figure - candidates.reduce((n, c) => n + c.adds, 0);
  const refused: Refusal[] = [];
  for (const c of candidates) {
    if (figure + c.adds <= excess.limit) figure += c.adds;
    else refused.push({ c, withIt: figure + c.adds });
  }
  return refused;
}

/**
 * FRR lines, first come, first served, counted exactly: the configuration with every candidate at
 * its generation in force (or absent), then each candidate's new entry taken, oldest first, while
 * the lines stay within the limit. A VRF renders one block for all its objects, so the lines an
 * object adds depend on the others of its VRF; an estimate per object refused about five times too
 * much (500 VRFs over the default limit: 421 refused where ~85 had to be).
 */
function refuseForLines(args: {
  config: NetworkConfig;
  inForce: NetworkConfig | undefined;
  candidates: readonly Candidate[];
  limit: number;
}): Refusal[] {
  const { config, inForce, candidates, limit } = args;
  let current = candidates.reduce((c, { o }) => withEntryOf(c, o, entryIn(inForce, o)), config);
  const refused: Refusal[] = [];
  for (const c of candidates) {
    const trial = withEntryOf(current, c.o, entryIn(config, c.o));
    const lines = frrLines(trial);
    if (lines > limit) refused.push({ c, withIt: lines });
    else current = trial;
  }
  return refused;
}

type EntryList = 'vrf' | 'layer2' | 'routingTable' | 'bgpPeering' | 'agentConfig';
const LIST_OF: Record<InputObject['kind'], EntryList> = {
  VRFRouteConfiguration: 'vrf',
  Layer2NetworkConfiguration: 'layer2',
  RoutingTable: 'routingTable',
  BGPPeering: 'bgpPeering',
  AgentConfiguration: 'agentConfig',
};

/** The entry an input merged to in `config` (entries are named after their object). */
const entryIn = (config: NetworkConfig | undefined, o: InputObject): { name: string } | undefined =>
  (config?.[LIST_OF[o.kind]] as { name: string }[] | undefined)?.find((e) => e.name === o.metadata.name);

/** `config` with the input's entry replaced by `entry` (removed when undefined). */
function withEntryOf(
  config: NetworkConfig,
  o: InputObject,
  entry: { name: string } | undefined,
): NetworkConfig {
  const list = LIST_OF[o.kind];
  const others = ((config[list] ?? []) as { name: string }[]).filter((e) => e.name !== o.metadata.name);
  return { ...config, [list]: entry ? [...others, entry] : others };
}
