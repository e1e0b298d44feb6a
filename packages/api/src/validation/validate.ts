/**
 * Validation of the input objects: first each spec against its schema, then the rules about one
 * object (`validation/object-rules.ts`), then the claims across objects (`validation/claims.ts`),
 * granted in blame order. Every problem names the kind, the object, the field path and the value.
 * What passes can be applied by every agent (invariant 10): the property test in
 * test/property/ checks that against the agent's host model and FRR renderer.
 */
import type { Inputs, InputObject } from '../resources/objects.js';
import {
  Layer2NetworkConfigurationSpec,
  RoutingTableSpec,
  VRFRouteConfigurationSpec,
} from '../resources/schema.js';
import { BGPPeeringSpec } from '../resources/bgp-peering.js';
import { PEERING_RULES, peeringClaims } from './bgp-peering-rules.js';
import { blameOrder, checkClaims, objectKey, type ValidationContext } from './claims.js';
import { LAYER2_RULES, TABLE_RULES, VRF_RULES } from './object-rules.js';
import type { Problem } from './problem.js';
import { checkSchema } from './schema-check.js';

export { ValidationError, type Problem } from './problem.js';
export { blameOrder, vrfTableCapacity, type ValidationContext } from './claims.js';

/**
 * Validates every input object and the set as a whole; returns all problems, in a stable order
 * (objects in blame order, then rule order).
 */
export function validateInputs(inputs: Inputs, context: ValidationContext = {}): Problem[] {
  const problems: Problem[] = [];
  // Objects that fail their schema are reported and left out of the later rules, which assume
  // well-formed data.
  const vrfs = blameOrder(inputs.vrf, context).filter((o) =>
    checkSchema(o, 'VRFRouteConfiguration', VRFRouteConfigurationSpec, problems),
  );
  const l2s = blameOrder(inputs.layer2, context).filter((o) =>
    checkSchema(o, 'Layer2NetworkConfiguration', Layer2NetworkConfigurationSpec, problems),
  );
  const tables = blameOrder(inputs.routingTable, context).filter((o) =>
    checkSchema(o, 'RoutingTable', RoutingTableSpec, problems),
  );
  for (const o of vrfs) for (const rule of VRF_RULES) problems.push(...rule(o));
  for (const o of l2s) for (const rule of LAYER2_RULES) problems.push(...rule(o));
  for (const o of tables) for (const rule of TABLE_RULES) problems.push(...rule(o));
  // A Layer-2 network naming a VRF whose only definition is itself invalid is not reported again.
  const definedVrfs = new Set(inputs.vrf.map((o) => (o.spec as { vrf?: unknown } | undefined)?.vrf));
  const ordered = blameOrder<InputObject>([...vrfs, ...l2s, ...tables], context);
  problems.push(
    ...checkClaims({ vrfs, l2s, tables, definedVrfs, vrfTableRange: context.vrfTableRange }, ordered),
  );
  const peerings = blameOrder(inputs.bgpPeering ?? [], context).filter((o) =>
    checkSchema(o, 'BGPPeering', BGPPeeringSpec, problems),
  );
  for (const o of peerings) for (const rule of PEERING_RULES) problems.push(...rule(o));
  problems.push(...peeringClaims({ peerings, layer2: inputs.layer2, definedVrfs, vrfs }));
  return problems;
}

/** `<kind>/<name>` of every object a revision's config was built from: the context's `inForce`. */
export function inForceKeys(config: {
  vrf: { name: string }[];
  layer2: { name: string }[];
  routingTable: { name: string }[];
  bgpPeering?: { name: string }[];
}): Set<string> {
  return new Set([
    ...(config.bgpPeering ?? []).map((e) => objectKey({ kind: 'BGPPeering', metadata: e })),
    ...config.vrf.map((e) => objectKey({ kind: 'VRFRouteConfiguration', metadata: e })),
    ...config.layer2.map((e) => objectKey({ kind: 'Layer2NetworkConfiguration', metadata: e })),
    ...config.routingTable.map((e) => objectKey({ kind: 'RoutingTable', metadata: e })),
  ]);
}
