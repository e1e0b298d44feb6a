/**
 * The liveness writes of a simulated agent, as the real agent makes them (packages/agent/src/status/
 * lease.ts and status.ts; docs/agent-status.md, "Liveness"): while it works on a change (from its
 * `provisioning` report to its last one) it renews a coordination.k8s.io Lease named after its node
 * every heartbeat interval; nothing while idle. An agent from before the Lease (`statusHeartbeat`)
 * rewrites its `provisioning` status at each beat instead. The one module the fleet tests and
 * bench/fleet-agents.ts both use, so a benchmark counts what the real agent writes.
 */
import { CoordinationV1Api, V1MicroTime, type Configuration, type V1Lease } from '@kubernetes/client-node';
import { AGENT_LEASE_LABEL, API_VERSION } from '@nodenet/api';

/** The real agent's default --heartbeat-interval (packages/agent/src/run/defaults.ts). */
export const AGENT_HEARTBEAT_MS = 150_000;

export interface LivenessOptions {
  /** Renewal interval (time-compressed in tests); default AGENT_HEARTBEAT_MS. */
  heartbeatMs?: number;
  /** Namespace of the Leases (the configurator's --agent-lease-namespace); default `default`. */
  namespace?: string;
}

/** One Lease per node: created on the first renewal, then updated (one write per renewal). */
export class SimulatedLeases {
  readonly heartbeatMs: number;
  readonly namespace: string;
  private readonly api: CoordinationV1Api;
  private readonly current = new Map<string, V1Lease>();
  /** Nodes with a renewal in flight: as the real agent, at most one at a time (no pile-up). */
  private readonly inFlight = new Set<string>();
  /** Every renewal that landed. */
  readonly renewals: { node: string; at: number }[] = [];
  errors = 0;

  constructor(config: Configuration, opts: LivenessOptions = {}) {
    this.api = new CoordinationV1Api(config);
    this.heartbeatMs = opts.heartbeatMs ?? AGENT_HEARTBEAT_MS;
    this.namespace = opts.namespace ?? 'default';
  }

  /** Renews `node`'s Lease, owned by its NodeConfig (`uid`), as the real agent does. */
  async renew(node: string, ownerUid: string | undefined): Promise<void> {
    if (this.inFlight.has(node)) return;
    this.inFlight.add(node);
    try {
      await this.write(node, ownerUid);
    } finally {
      this.inFlight.delete(node);
    }
  }

  private async write(node: string, ownerUid: string | undefined): Promise<void> {
    const namespace = this.namespace;
    const body = (base?: V1Lease): V1Lease => ({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name: node,
        namespace,
        labels: { [AGENT_LEASE_LABEL]: 'true' },
        ...(ownerUid
          ? { ownerReferences: [{ apiVersion: API_VERSION, kind: 'NodeConfig', name: node, uid: ownerUid }] }
          : {}),
        ...(base?.metadata?.resourceVersion ? { resourceVersion: base.metadata.resourceVersion } : {}),
      },
      spec: {
        holderIdentity: node,
        leaseDurationSeconds: Math.ceil((2 * this.heartbeatMs) / 1000),
        // MicroTime: six fractional digits, as the API server requires (kube/src/leader/leader.ts).
        renewTime: new V1MicroTime(Date.now()),
      },
    });
    try {
      const base = this.current.get(node);
      const written = base
        ? await this.api.replaceNamespacedLease({ name: node, namespace, body: body(base) })
        : await this.api.createNamespacedLease({ namespace, body: body() });
      this.current.set(node, written);
      this.renewals.push({ node, at: Date.now() });
    } catch {
      // The real agent leaves a failed renewal to the next beat (after re-reading on a conflict).
      this.errors++;
      this.current.delete(node);
      const found = await this.api.readNamespacedLease({ name: node, namespace }).catch(() => undefined);
      if (found) this.current.set(node, found);
    }
  }
}

/** Calls `beat` every `everyMs` until the returned function is called (the work ended). */
export function beatWhileWorking(everyMs: number, beat: () => void): () => void {
  if (everyMs <= 0) return () => undefined;
  const timer = setInterval(beat, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
