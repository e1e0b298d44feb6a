/**
 * What the configurator keeps of a NodeConfig in its cache (pure). A NodeConfig carries its node's
 * whole configuration, up to the revision budget (~1.5 MiB of JSON, several times that parsed), and
 * the planner reads none of it: it compares specs by their hash (`spec-hash` annotation) and the
 * revision by `spec.revision`. Keeping one full copy per node made the configurator's memory grow
 * by ~13 MiB per node at the budget; the summary keeps metadata, status and `spec.revision`, with
 * the spec lists emptied but for each peering's name and peers, which the BGPPeering status counts
 * read (the informer's `transform`, so a list page or watch event is summarised as it arrives and
 * the full object is garbage at once).
 *
 * The spec hash is the one fact taken from the dropped lists: a NodeConfig without the annotation
 * (written by hand, or by an older configurator) gets it computed here from its full spec, so the
 * planner's "is this the spec we want" answers as it would on the full object (rollout/facts.ts).
 * Nothing writes a summary back: the configurator changes NodeConfigs by merge patch only.
 */
import { SPEC_HASH_ANNOTATION, type NodeBgpPeeringEntry, type NodeConfig } from '@nodenet/api';
import { nodeSpecHash } from '../rollout/index.js';

const summaries = new WeakSet<NodeConfig>();

/**
 * A peering as the BGPPeering status counts read it (peering-status.ts: which peerings the node
 * carries, and which observed sessions are theirs): its prefix lists and communities dropped.
 */
const peeringSummary = (e: NodeBgpPeeringEntry): NodeBgpPeeringEntry => ({
  ...e,
  import: [],
  export: [],
  importCommunities: [],
});

export function nodeConfigSummary(nc: NodeConfig): NodeConfig {
  if (summaries.has(nc)) return nc;
  const annotations = nc.metadata.annotations ?? {};
  const summary: NodeConfig = {
    ...nc,
    metadata: {
      ...nc.metadata,
      annotations: {
        ...annotations,
        [SPEC_HASH_ANNOTATION]: annotations[SPEC_HASH_ANNOTATION] ?? nodeSpecHash(nc.spec),
      },
    },
    spec: {
      revision: nc.spec.revision,
      vrf: [],
      layer2: [],
      routingTable: [],
      ...(nc.spec.bgpPeering ? { bgpPeering: nc.spec.bgpPeering.map(peeringSummary) } : {}),
    },
  };
  summaries.add(summary);
  return summary;
}

/**
 * NodeConfigs per list page: at the budget a page is ~6 MiB of JSON (held three times while it is
 * read and parsed), summarised before the next is read, so a (re)start lists any fleet within the
 * memory limit; 5,000 small ones take 1,250 short requests.
 */
export const NODE_CONFIG_PAGE = 4;
