/**
 * `spec.peering` of a Layer2NetworkConfiguration: what the network's owner allows BGPPeerings on it
 * (issue #37, invariant 15). A peering reaches the default VRF (the underlay) only where the owner
 * of the network, or the site (configurator flags), said so; everything else about a peering is
 * bounded by validation whoever wrote it (docs/resources.md, "Who may touch the underlay").
 */
import { Type, type Static } from '@sinclair/typebox';

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
  },
  { description: "What the network's owner allows BGPPeerings on this network (issue #37)." },
);
export type PeeringPolicy = Static<typeof PeeringPolicy>;
