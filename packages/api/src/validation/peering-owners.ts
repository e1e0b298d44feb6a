/**
 * Who may attach a BGPPeering to which network or VRF (issue #37, invariant 15): the owner of the
 * network decides. A peering with `spec.owner` (a tenant's; the admission policy
 * nodenet-peering-owner makes the field the writer's own user name) is accepted only on a Layer-2
 * network whose `spec.peering.admit` admits that owner, or with neighbours in a VRF one of whose
 * VRFRouteConfigurations admits it; a tenant's neighbours never go into the default VRF (the
 * underlay). A peering without an owner is a network admin's (the policy lets only them write one).
 */
import { admits } from '../resources/peering-policy.js';
import type { BGPPeering, Layer2NetworkConfiguration, VRFRouteConfiguration } from '../resources/objects.js';
import { problem, type Problem } from './problem.js';

const P = 'BGPPeering';

export function peeringOwners(
  peerings: readonly BGPPeering[],
  layer2: readonly Layer2NetworkConfiguration[],
  vrfs: readonly VRFRouteConfiguration[],
): Problem[] {
  return peerings.flatMap((o) => {
    const owner = o.spec.owner;
    if (owner === undefined) return [];
    const at = { kind: P, name: o.metadata.name } as const;
    const lr = o.spec.listenRange;
    if (lr !== undefined) {
      const net = layer2.find((l) => l.metadata.name === lr.layer2);
      // A missing network is reported by peeringClaims.
      if (!net || admits(net.spec.peering?.admit, owner)) return [];
      return [
        problem(
          at,
          'spec.owner',
          owner,
          `is not admitted by Layer2NetworkConfiguration ${lr.layer2} (its spec.peering.admit)`,
        ),
      ];
    }
    const vrf = o.spec.neighbor?.vrf;
    if (vrf === undefined)
      return o.spec.neighbor === undefined
        ? []
        : [
            problem(
              at,
              'spec.neighbor.vrf',
              undefined,
              "must name a VRF: neighbours in the default VRF (the underlay) are a network admin's (a peering without spec.owner)",
            ),
          ];
    const defining = vrfs.filter((v) => v.spec.vrf === vrf);
    // An undefined VRF is reported by peeringClaims.
    if (defining.length === 0 || defining.some((v) => admits(v.spec.peering?.admit, owner))) return [];
    return [
      problem(
        at,
        'spec.owner',
        owner,
        `is not admitted by VRF ${vrf} (the spec.peering.admit of one of its VRFRouteConfigurations: ${defining.map((v) => v.metadata.name).join(', ')})`,
      ),
    ];
  });
}
