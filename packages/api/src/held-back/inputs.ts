/**
 * A bad input holds back only itself (pure): the inputs a revision is built from are the accepted
 * generation of each input. An input whose current generation is refused contributes the entry the
 * revision in force has for it (its last accepted generation); a new input that is refused
 * contributes nothing. Validation runs again over that set, because a held-back generation may
 * collide with another input's new one; the object that loses such a claim (the blame rule gives
 * the held-back, in-force entry priority) is held back too, until the set is valid. If a held-back
 * entry itself no longer validates (a rule changed since), nothing is built.
 *
 * A suspect of an invalidated revision (held-back/suspects.ts) is held back the same way, from the
 * revision before the one it broke: a failed change stays rolled back until its input changes.
 */
import { entryOf, heldSuspects, type HeldSuspect, type SuspectRef } from './suspects.js';
import { mergeInputs } from '../config/merge.js';
import type { InputObject, Inputs, NetworkConfigRevision } from '../resources/objects.js';
import type { NetworkConfig } from '../resources/schema.js';
import {
  inForceKeys,
  validateInputs,
  type Problem,
  type UnderlayContext,
  type ValidationContext,
} from '../validation/validate.js';

export interface EffectiveInputs {
  /** The set to build from: accepted objects plus held-back in-force entries; undefined when blocked. */
  inputs?: Inputs;
  /** Problems of each refused object (`Kind/name`), from whichever round refused it. */
  refused: Map<string, Problem[]>;
  /** Refused objects whose in-force generation stays in the built set. */
  held: Set<string>;
  /** Every problem reported, for logs and Events. */
  problems: Problem[];
}

/** Every input object, of every kind. */
export const allInputs = (inputs: Inputs): InputObject[] => [
  ...inputs.vrf,
  ...inputs.layer2,
  ...inputs.routingTable,
  ...(inputs.bgpPeering ?? []),
  ...(inputs.agentConfiguration ?? []),
];

const keyOf = (o: { kind: string; metadata: { name: string } }): string => `${o.kind}/${o.metadata.name}`;

/** Each input's generation, by `Kind/name` (the key suspects are held by, suspects.ts heldSuspects). */
export const inputGenerations = (inputs: Inputs): Map<string, number> =>
  new Map(allInputs(inputs).map((o) => [keyOf(o), o.metadata.generation ?? 0]));

export interface HeldBackOptions {
  /** Suspects of invalidated revisions (held-back/suspects.ts), held back from their earlier entry. */
  suspects?: ReadonlyMap<string, HeldSuspect>;
  /** Objects refused before validation (over the size budget, fit-budget.ts). */
  refusedFirst?: readonly Problem[];
  /** Ties of creation time, broken by the order the caller saw objects created (ValidationContext). */
  createdOrder?: ValidationContext['createdOrder'];
  /** The nodes' addresses and the site's underlay settings (validation/underlay-guards.ts). */
  underlay?: UnderlayContext;
}

export function effectiveInputs(
  inputs: Inputs,
  inForce: NetworkConfig | undefined,
  options: HeldBackOptions = {},
): EffectiveInputs {
  const suspects = options.suspects ?? new Map<string, HeldSuspect>();
  const context: ValidationContext = {
    ...(inForce ? { inForce: inForceKeys(inForce) } : {}),
    ...(options.createdOrder ? { createdOrder: options.createdOrder } : {}),
    ...(options.underlay ? { underlay: options.underlay } : {}),
  };
  const refused = new Map<string, Problem[]>();
  const problems: Problem[] = [];
  const note = (ps: readonly Problem[]): void => {
    for (const p of ps) {
      const k = `${p.kind}/${p.name}`;
      refused.set(k, [...(refused.get(k) ?? []), p]);
      problems.push(p);
    }
  };
  note(options.refusedFirst ?? []);
  note(validateInputs(inputs, context));
  const all = allInputs(inputs);
  // Each round refuses at least one more object or ends: at most one round per object.
  for (let round = 0; round <= all.length; round++) {
    if (refused.size === 0 && suspects.size === 0) return { inputs, refused, held: new Set(), problems };
    const { set, held } = candidate(inputs, refused, inForce, suspects);
    const more = validateInputs(set, context);
    if (more.length === 0) return { inputs: set, refused, held, problems };
    const onHeld = more.filter((p) => held.has(`${p.kind}/${p.name}`));
    if (onHeld.length > 0) {
      note(onHeld);
      return { refused, held, problems };
    }
    note(more);
  }
  return { refused, held: new Set(), problems };
}

function candidate(
  inputs: Inputs,
  refused: ReadonlyMap<string, Problem[]>,
  inForce: NetworkConfig | undefined,
  suspects: ReadonlyMap<string, HeldSuspect>,
): { set: Inputs; held: Set<string> } {
  const held = new Set<string>();
  const pick = <T extends InputObject>(
    objects: T[],
    list: 'vrf' | 'layer2' | 'routingTable' | 'bgpPeering' | 'agentConfig',
  ): T[] =>
    objects.flatMap((o) => {
      const k = keyOf(o);
      if (!refused.has(k) && !suspects.has(k)) return [o];
      // A refused input contributes its entry in force; a suspect, its entry before the failure.
      const source = refused.has(k) ? inForce : suspects.get(k)?.fallback;
      const entries: Array<{ name: string }> = source?.[list] ?? [];
      const entry = entries.find((e) => e.name === o.metadata.name);
      if (!entry) return [];
      held.add(k);
      // The merged entry is the spec with defaults applied and its name added; merging it again
      // yields the same entry.
      const { name: _name, ...spec } = entry;
      return [{ ...o, spec }];
    });
  return {
    set: {
      vrf: pick(inputs.vrf, 'vrf'),
      layer2: pick(inputs.layer2, 'layer2'),
      routingTable: pick(inputs.routingTable, 'routingTable'),
      bgpPeering: pick(inputs.bgpPeering ?? [], 'bgpPeering'),
      agentConfiguration: pick(inputs.agentConfiguration ?? [], 'agentConfig'),
    },
    held,
  };
}

/** The inputs a build starts from, and what it holds back. */
export interface InputsToBuild {
  /** The revision in force: the newest valid one (the entries refused inputs keep). */
  inForce: NetworkConfigRevision | undefined;
  /** Inputs held back as suspects of an invalid revision (held-back/suspects.ts). */
  suspects: Map<string, HeldSuspect>;
  effective: EffectiveInputs;
}

/**
 * The held-back rule over the whole state, as the configurator's build applies it before the size
 * budget: the revision in force, the suspects of invalid revisions, and the inputs to build from.
 * The plugin's preview and retry check use the same function, so they tell what the build does.
 */
export function inputsToBuild(
  inputs: Inputs,
  revisions: readonly NetworkConfigRevision[],
  options: Pick<HeldBackOptions, 'refusedFirst' | 'createdOrder' | 'underlay'> = {},
): InputsToBuild {
  const inForce = [...revisions]
    .sort((a, b) => b.spec.number - a.spec.number)
    .find((r) => r.status?.isInvalid !== true);
  const generations = inputGenerations(inputs);
  // The current entries only when a suspect is held by its content (a commit too large to list).
  let merged: NetworkConfig | undefined;
  const currentEntry = (s: SuspectRef): unknown => {
    merged ??= mergeInputs(inputs);
    return entryOf(merged, s);
  };
  const suspects = heldSuspects(generations, revisions, currentEntry);
  return {
    inForce,
    suspects,
    effective: effectiveInputs(inputs, inForce?.spec.config, { ...options, suspects }),
  };
}
