/**
 * BGPPeering status (issue #28): on every pass the leader counts, per peering, the nodes whose
 * NodeConfig carries it and the sessions their agents observed Established (`peeringCounts` in
 * @nodenet/api), and writes the two figures when they changed (a merge patch of just them, so the
 * Accepted / Applied conditions the build step writes stay). `kubectl get bgpp` shows them, and
 * the remote AS as one text (`spec.remoteASN` or `spec.remoteAS`: a printer column reads one path).
 */
import { peeringCounts, type BGPPeering, type NodeConfig } from '@nodenet/api';
import type { Informer, ResourceClient } from '@nodenet/kube';
import type { Logger } from 'pino';

export interface PeeringStatusContext {
  client: ResourceClient<BGPPeering>;
  informer: Informer<BGPPeering>;
  log: Logger;
}

/** Writes the changed counts; returns the number of failed writes. */
export async function writePeeringStatuses(
  ctx: PeeringStatusContext,
  nodeConfigs: readonly NodeConfig[],
): Promise<number> {
  const peerings = ctx.informer.list();
  if (peerings.length === 0) return 0;
  const counts = peeringCounts(nodeConfigs);
  let failed = 0;
  for (const p of peerings) {
    const want = {
      ...(counts.get(p.metadata.name) ?? { nodes: 0, established: 0 }),
      remoteAS: remoteAsText(p),
    };
    if (
      p.status?.nodes === want.nodes &&
      p.status.established === want.established &&
      p.status.remoteAS === want.remoteAS
    )
      continue;
    try {
      ctx.informer.mutated(await ctx.client.patchStatus(p.metadata.name, { status: want }));
    } catch (err) {
      failed++;
      ctx.log.warn(
        { input: p.metadata.name, err: err instanceof Error ? err.message : String(err) },
        'could not write BGPPeering status; will look again',
      );
    }
  }
  return failed;
}

/** The peer's AS as `kubectl get bgpp` shows it: the number, or `internal` / `external`. */
const remoteAsText = (p: BGPPeering): string =>
  p.spec.remoteASN !== undefined ? String(p.spec.remoteASN) : (p.spec.remoteAS ?? '');
