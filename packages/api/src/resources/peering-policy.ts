/**
 * `spec.peering` of a Layer2NetworkConfiguration: what the network's owner allows BGPPeerings on it
 * (issue #37, invariant 15). A peering reaches the default VRF (the underlay) only where the owner
 * of the network, or the site (configurator flags), said so; everything else about a peering is
 * bounded by validation whoever wrote it (docs/resources.md, "Who may touch the underlay").
 */
import { Type, type Static } from '@sinclair/typebox';
import { MAX_NAME_LENGTH, MAX_PEERING_ADMITS } from '../grammar/limits.js';

/**
 * Who may attach a BGPPeering here: user names as the API server knows them
 * (`request.userInfo.username`, e.g. `system:serviceaccount:team-a:lb` or `jane@example.com`), or
 * `system:serviceaccounts:<namespace>` for every ServiceAccount of a namespace. A peering names its
 * writer in `spec.owner` (the admission policy nodenet-peering-owner makes that true).
 */
export const PeeringAdmit = Type.Array(Type.String({ minLength: 1, maxLength: MAX_NAME_LENGTH }), {
  maxItems: MAX_PEERING_ADMITS,
  description:
    "Users (request.userInfo.username) whose BGPPeerings (spec.owner) may use this; 'system:serviceaccounts:<ns>' admits every ServiceAccount of a namespace. Peerings without an owner (a network admin's) need no admission.",
});

export const PeeringPolicy = Type.Object(
  {
    defaultVrf: Type.Optional(
      Type.Boolean({
        description:
          'A BGPPeering may listen on this network although it is in the default VRF (the underlay). Default false.',
      }),
    ),
    defaultRoute: Type.Optional(
      Type.Boolean({
        description:
          'A BGPPeering on this network may import the default route (0.0.0.0/0, ::/0) into the default VRF. Default false.',
      }),
    ),
    admit: Type.Optional(PeeringAdmit),
  },
  { description: "What the network's owner allows BGPPeerings on this network (issue #37)." },
);
export type PeeringPolicy = Static<typeof PeeringPolicy>;

/** `spec.peering` of a VRFRouteConfiguration: who may run neighbour peerings in the VRF. */
export const VrfPeeringPolicy = Type.Object(
  { admit: Type.Optional(PeeringAdmit) },
  { description: 'Who may attach BGPPeerings (neighbor.vrf) to this VRF (issue #37).' },
);
export type VrfPeeringPolicy = Static<typeof VrfPeeringPolicy>;

/** Whether `owner` (a user name) is in `admit`, directly or as a ServiceAccount of an admitted namespace. */
export function admits(admit: readonly string[] | undefined, owner: string): boolean {
  if (!admit) return false;
  if (admit.includes(owner)) return true;
  const sa = /^system:serviceaccount:([^:]+):[^:]+$/.exec(owner);
  return sa !== null && admit.includes(`system:serviceaccounts:${sa[1]}`);
}
