/**
 * Validation of the input objects: first each spec against its schema, then the rules about one
 * object (`validation/object-rules.ts`), then the claims across objects (`validation/claims.ts`),
 * granted in blame order. Every problem names the kind, the object, the field path and the value.
 * What passes can be applied by every agent (invariant 10): the property test in
 * test/property/ checks that against the agent's host model and FRR renderer.
 */
import type { TSchema } from '@sinclair/typebox';
import type { ResourceKind } from '../names/kubernetes.js';
import type {
  AgentConfiguration,
  BGPPeering,
  Inputs,
  InputObject,
  Layer2NetworkConfiguration,
  RoutingTable,
  VRFRouteConfiguration,
} from '../resources/objects.js';
import {
  Layer2NetworkConfigurationSpec,
  RoutingTableSpec,
  VRFRouteConfigurationSpec,
} from '../resources/schema.js';
import { BGPPeeringSpec } from '../resources/bgp-peering.js';
import { AgentConfigurationSpec } from '../resources/agent-configuration.js';
import { AGENT_CONFIG_RULES, agentConfigClaims } from './agent-config-rules.js';
import { PEERING_RULES, peeringClaims } from './bgp-peering-rules.js';
import { underlayGuards } from './underlay-guards.js';
import { peeringOwners } from './peering-owners.js';
import { blameOrder, checkClaims, objectKey, type ValidationContext } from './claims.js';
import { LAYER2_RULES, TABLE_RULES, VRF_RULES, type ObjectRule } from './object-rules.js';
import type { Problem } from './problem.js';
import { checkSchema } from './schema-check.js';

export { ValidationError, type Problem } from './problem.js';
export { blameOrder, vrfTableCapacity, type ValidationContext } from './claims.js';
export { nodeAddressesOf, siteUnderlayOf, type UnderlayContext } from './underlay-guards.js';

/**
 * Validates every input object and the set as a whole; returns all problems, in a stable order
 * (objects in blame order, then rule order).
 */
export function validateInputs(inputs: Inputs, context: ValidationContext = {}): Problem[] {
  const problems: Problem[] = [];
  // Objects that fail their schema are reported and left out of the later rules, which assume
  // well-formed data.
  const vrfs = checked(blameOrder(inputs.vrf, context), VRF_CHECK);
  const l2s = checked(blameOrder(inputs.layer2, context), LAYER2_CHECK);
  const tables = checked(blameOrder(inputs.routingTable, context), TABLE_CHECK);
  for (const list of [vrfs, l2s, tables]) for (const { verdict } of list) problems.push(...verdict.schema);
  for (const list of [vrfs, l2s, tables]) for (const { verdict } of list) problems.push(...verdict.rules);
  const wellFormed = <T extends InputObject>(list: Checked<T>[]): T[] =>
    list.filter((c) => c.verdict.wellFormed).map((c) => c.object);
  const [okVrfs, okL2s, okTables] = [wellFormed(vrfs), wellFormed(l2s), wellFormed(tables)];
  // A Layer-2 network naming a VRF whose only definition is itself invalid is not reported again.
  const definedVrfs = new Set(inputs.vrf.map((o) => (o.spec as { vrf?: unknown } | undefined)?.vrf));
  const ordered = blameOrder<InputObject>([...okVrfs, ...okL2s, ...okTables], context);
  problems.push(
    ...checkClaims(
      { vrfs: okVrfs, l2s: okL2s, tables: okTables, definedVrfs, vrfTableRange: context.vrfTableRange },
      ordered,
    ),
  );
  const peerings = checked(blameOrder(inputs.bgpPeering ?? [], context), PEERING_CHECK);
  for (const { verdict } of peerings) problems.push(...verdict.schema);
  for (const { verdict } of peerings) problems.push(...verdict.rules);
  const okPeerings = wellFormed(peerings);
  problems.push(...peeringClaims({ peerings: okPeerings, layer2: inputs.layer2, definedVrfs, vrfs: okVrfs }));
  problems.push(...peeringOwners(okPeerings, okL2s, okVrfs));
  problems.push(...underlayGuards(okPeerings, okL2s, context.underlay ?? {}));
  const agentConfigs = checked(blameOrder(inputs.agentConfiguration ?? [], context), AGENT_CONFIG_CHECK);
  for (const { verdict } of agentConfigs) problems.push(...verdict.schema, ...verdict.rules);
  problems.push(...agentConfigClaims(wellFormed(agentConfigs)));
  return problems;
}

/** What an object's schema and its own rules say about it (no other object involved). */
interface Verdict {
  schema: readonly Problem[];
  wellFormed: boolean;
  /** The object rules' problems; none when the schema check failed (the rules need its shape). */
  rules: readonly Problem[];
}

interface ObjectCheck<T> {
  kind: ResourceKind;
  schema: TSchema;
  rules: readonly ObjectRule<T>[];
}

const VRF_CHECK: ObjectCheck<VRFRouteConfiguration> = {
  kind: 'VRFRouteConfiguration',
  schema: VRFRouteConfigurationSpec,
  rules: VRF_RULES,
};
const LAYER2_CHECK: ObjectCheck<Layer2NetworkConfiguration> = {
  kind: 'Layer2NetworkConfiguration',
  schema: Layer2NetworkConfigurationSpec,
  rules: LAYER2_RULES,
};
const TABLE_CHECK: ObjectCheck<RoutingTable> = {
  kind: 'RoutingTable',
  schema: RoutingTableSpec,
  rules: TABLE_RULES,
};
const PEERING_CHECK: ObjectCheck<BGPPeering> = {
  kind: 'BGPPeering',
  schema: BGPPeeringSpec,
  rules: PEERING_RULES,
};

const AGENT_CONFIG_CHECK: ObjectCheck<AgentConfiguration> = {
  kind: 'AgentConfiguration',
  schema: AgentConfigurationSpec,
  rules: AGENT_CONFIG_RULES,
};

interface Checked<T> {
  object: T;
  verdict: Verdict;
}

/**
 * Verdicts of objects from the API server, by their spec: an object with the same uid and
 * resourceVersion is the same object (the API server changes the resourceVersion on every write),
 * so the controller's rebuild after one input changed checks only that input again. Keyed by the
 * spec object too, so that an object whose spec was replaced (a held-back input carries its
 * in-force entry, held-back.ts) is checked afresh. Objects without both fields (tests, dry runs)
 * are always checked.
 */
const verdicts = new WeakMap<object, Verdict & { of: Identity }>();

/** What names one version of one API object (compared field by field: no key string per object). */
interface Identity {
  kind: string;
  name: string;
  uid: string;
  resourceVersion: string;
}

const sameVersion = (a: Identity, kind: string, m: InputObject['metadata']): boolean =>
  a.uid === m.uid && a.resourceVersion === m.resourceVersion && a.name === m.name && a.kind === kind;

function checked<T extends InputObject>(objects: readonly T[], check: ObjectCheck<T>): Checked<T>[] {
  return objects.map((object) => {
    const { uid, resourceVersion, name } = object.metadata;
    const spec: unknown = object.spec;
    const cacheable = uid !== undefined && resourceVersion !== undefined && typeof spec === 'object' && spec;
    const cached = cacheable ? verdicts.get(spec) : undefined;
    if (cached && sameVersion(cached.of, check.kind, object.metadata)) return { object, verdict: cached };
    const schema: Problem[] = [];
    const wellFormed = checkSchema(object, check.kind, check.schema, schema);
    const verdict = {
      schema,
      wellFormed,
      rules: wellFormed ? check.rules.flatMap((rule) => rule(object)) : [],
    };
    if (cacheable) verdicts.set(spec, { ...verdict, of: { kind: check.kind, name, uid, resourceVersion } });
    return { object, verdict };
  });
}

/** `<kind>/<name>` of every object a revision's config was built from: the context's `inForce`. */
export function inForceKeys(config: {
  vrf: { name: string }[];
  layer2: { name: string }[];
  routingTable: { name: string }[];
  bgpPeering?: { name: string }[];
  agentConfig?: { name: string }[];
}): Set<string> {
  return new Set([
    ...(config.agentConfig ?? []).map((e) => objectKey({ kind: 'AgentConfiguration', metadata: e })),
    ...(config.bgpPeering ?? []).map((e) => objectKey({ kind: 'BGPPeering', metadata: e })),
    ...config.vrf.map((e) => objectKey({ kind: 'VRFRouteConfiguration', metadata: e })),
    ...config.layer2.map((e) => objectKey({ kind: 'Layer2NetworkConfiguration', metadata: e })),
    ...config.routingTable.map((e) => objectKey({ kind: 'RoutingTable', metadata: e })),
  ]);
}
