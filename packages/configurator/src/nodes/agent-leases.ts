/**
 * The agents' liveness Leases (one per node, named after it; docs/agent-status.md, "Liveness"):
 * the configurator keeps of each only its name and resourceVersion, which changes with every
 * renewal. A renewal's time is when this process saw it (observe.ts, invariant 9): the agent's
 * `renewTime` is another machine's clock and is never read. At 65,000 nodes the cache holds
 * 65,000 small objects of three strings each.
 */
import { AGENT_LEASE_LABEL } from '@nodenet/api';
import { Informer, type Clients, type Lease } from '@nodenet/kube';

export type AgentLeaseInformer = Informer<Lease>;

/** Name, namespace and resourceVersion: what tells one renewal from the next. */
export const leaseSummary = (lease: Lease): Lease => ({
  metadata: {
    name: lease.metadata.name,
    ...(lease.metadata.namespace !== undefined ? { namespace: lease.metadata.namespace } : {}),
    ...(lease.metadata.resourceVersion !== undefined
      ? { resourceVersion: lease.metadata.resourceVersion }
      : {}),
  },
});

export function agentLeaseInformer(c: Clients, namespace: string, resyncMs: number): AgentLeaseInformer {
  return new Informer(c.lease, {
    resyncMs,
    namespace,
    labelSelector: AGENT_LEASE_LABEL,
    transform: leaseSummary,
    pageSize: 5000,
  });
}

/** The renewal marker of `node`'s Lease (its resourceVersion), or undefined without one. */
export const renewalOf =
  (leases: Pick<AgentLeaseInformer, 'get'>, namespace: string) =>
  (node: string): string | undefined =>
    leases.get(node, namespace)?.metadata.resourceVersion;
