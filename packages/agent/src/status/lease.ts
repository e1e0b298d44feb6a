/**
 * The agent's liveness while an apply and its confirm window run: a small coordination.k8s.io
 * Lease per node (as the kubelet's node Lease replaced node-status heartbeats), renewed every
 * `--heartbeat-interval`, instead of rewriting the NodeConfig status. A status write is a full
 * NodeConfig in every watch of NodeConfigs; a renewal is a Lease of a few hundred bytes that only
 * the configurator's Lease informer sees (docs/agent-status.md, "Liveness").
 *
 * The Lease is named after the node, carries AGENT_LEASE_LABEL and is owned by the node's
 * NodeConfig, so it is garbage-collected with it. `renewTime` is the agent's clock, for people:
 * the configurator times a renewal by when it saw it (invariant 9). The agent renews only while it
 * works on a change: an idle agent writes nothing.
 */
import { AGENT_LEASE_LABEL, API_VERSION } from '@nodenet/api';
import { isConflict, isNotFound, microTime, type Clients, type Lease } from '@nodenet/kube';

/** The NodeConfig that owns the Lease (its uid changes when the object is re-created). */
export interface LeaseOwner {
  name: string;
  uid: string;
}

export interface AgentLeaseOptions {
  clients: Pick<Clients, 'lease'>;
  nodeName: string;
  namespace: string;
  /** Written as `leaseDurationSeconds`: for people and tools; the configurator uses its --config-timeout. */
  durationSeconds: number;
  now?: () => Date;
  onError?: (error: unknown) => void;
}

/** Renews the node's Lease; at most one write in flight (a slow API server never piles renewals up). */
export class AgentLease {
  private current?: Lease;
  private inFlight?: Promise<void>;
  private readonly now: () => Date;

  constructor(private readonly options: AgentLeaseOptions) {
    this.now = options.now ?? (() => new Date());
  }

  /** Starts a renewal unless one is under way; a failure is reported and left to the next beat. */
  renew(owner: LeaseOwner | undefined): void {
    if (this.inFlight) return;
    this.inFlight = this.write(owner)
      .catch((err: unknown) => this.options.onError?.(err))
      .finally(() => {
        this.inFlight = undefined;
      });
  }

  /** Resolves when the renewal under way (if any) has ended. */
  async settled(): Promise<void> {
    await this.inFlight;
  }

  /** Update the Lease last written; create it when there is none; one re-read after a conflict. */
  private async write(owner: LeaseOwner | undefined): Promise<void> {
    const { lease } = this.options.clients;
    let base = this.current;
    for (let attempt = 0; ; attempt++) {
      try {
        this.current = base
          ? await lease.update(this.build(base, owner))
          : await lease.create(this.build(undefined, owner));
        return;
      } catch (err) {
        this.current = undefined;
        if (attempt > 0 || !(isConflict(err) || isNotFound(err))) throw err;
        // Someone else's version (a restart: the Lease exists) or none left (garbage-collected).
        base = isConflict(err)
          ? await lease.get(this.options.nodeName, this.options.namespace).catch((e: unknown) => {
              if (isNotFound(e)) return undefined;
              throw e;
            })
          : undefined;
      }
    }
  }

  private build(base: Lease | undefined, owner: LeaseOwner | undefined): Lease {
    const { nodeName, namespace, durationSeconds } = this.options;
    const ownerReferences = owner
      ? [{ apiVersion: API_VERSION, kind: 'NodeConfig', name: owner.name, uid: owner.uid }]
      : base?.metadata.ownerReferences;
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name: nodeName,
        namespace,
        labels: { ...base?.metadata.labels, [AGENT_LEASE_LABEL]: 'true' },
        ...(ownerReferences ? { ownerReferences } : {}),
        ...(base?.metadata.resourceVersion ? { resourceVersion: base.metadata.resourceVersion } : {}),
      },
      spec: {
        holderIdentity: nodeName,
        leaseDurationSeconds: durationSeconds,
        renewTime: microTime(this.now()),
      },
    };
  }
}
