/**
 * The dashboard's view of the cluster: one informer per resource the views read (revisions,
 * NodeConfigs, Nodes, the four inputs, the RolloutPolicy), so a change costs a watch event, not a
 * re-list of the fleet. `onChange` is called on every event; the caller batches.
 */
import {
  NODE_AGENT_READY_CONDITION,
  ROLLOUT_POLICY_NAME,
  type NodeConfig,
  type RolloutPolicy,
} from '@nodenet/api';
import { Informer, type Clients, type KubeObject, type ListWatchSource } from '@nodenet/kube';
import { assembleState, type ClusterState } from '../cluster/state.js';

/** Objects without their managedFields (who wrote which field: no view reads it, and it is large). */
function slimObject<T extends KubeObject>(o: T): T {
  const { managedFields: _m, ...metadata } = o.metadata as T['metadata'] & { managedFields?: unknown };
  return { ...o, metadata };
}

/** The Node conditions a view reads (isNodeReady, unavailableReason). */
const NODE_CONDITIONS_READ = new Set(['Ready', NODE_AGENT_READY_CONDITION]);

const slimInformer = <T extends KubeObject>(source: ListWatchSource<T>): Informer<T> =>
  new Informer(source, { transform: slimObject, pageSize: 500 });

export class LiveState {
  private readonly revisions;
  private readonly nodeConfigs;
  private readonly nodes;
  private readonly vrf;
  private readonly layer2;
  private readonly routingTable;
  private readonly bgpPeering;
  private readonly policy;
  private readonly all: Informer<KubeObject>[];

  constructor(clients: Clients, onChange: () => void, onError: (err: unknown) => void) {
    this.revisions = slimInformer(clients.revision);
    this.nodeConfigs = new Informer(clients.nodeConfig, {
      pageSize: 500,
      // The views read a NodeConfig's metadata, status and which revision it carries, never the
      // rendered config itself (the bulk of it, times every node).
      transform: (nc) => {
        const slim = slimObject(nc);
        return { ...slim, spec: { revision: nc.spec.revision } as NodeConfig['spec'] };
      },
    });
    this.nodes = new Informer(clients.node, {
      pageSize: 500,
      // The views read a Node's labels, taints and two conditions only (a kubelet writes five or more).
      transform: (n) => ({
        metadata: {
          name: n.metadata.name,
          resourceVersion: n.metadata.resourceVersion,
          ...(n.metadata.labels ? { labels: n.metadata.labels } : {}),
          ...(n.metadata.deletionTimestamp ? { deletionTimestamp: n.metadata.deletionTimestamp } : {}),
        },
        ...(n.spec ? { spec: { ...(n.spec.taints ? { taints: n.spec.taints } : {}) } } : {}),
        ...(n.status
          ? {
              status: {
                ...(n.status.conditions
                  ? { conditions: n.status.conditions.filter((c) => NODE_CONDITIONS_READ.has(c.type)) }
                  : {}),
              },
            }
          : {}),
      }),
    });
    this.vrf = slimInformer(clients.vrf);
    this.layer2 = slimInformer(clients.layer2);
    this.routingTable = slimInformer(clients.routingTable);
    this.bgpPeering = slimInformer(clients.bgpPeering);
    this.policy = slimInformer(clients.rolloutPolicy);
    this.all = [
      this.revisions,
      this.nodeConfigs,
      this.nodes,
      this.vrf,
      this.layer2,
      this.routingTable,
      this.bgpPeering,
      this.policy,
    ] as unknown as Informer<KubeObject>[];
    for (const i of this.all) {
      i.on(() => onChange());
      i.onError(onError);
    }
  }

  /** Starts every informer; resolves once each has listed once. */
  async start(): Promise<void> {
    for (const i of this.all) i.start();
    await Promise.all(this.all.map((i) => i.waitForSync()));
  }

  stop(): void {
    for (const i of this.all) i.stop();
  }

  private rolloutPolicy(): RolloutPolicy | undefined {
    return this.policy.get(ROLLOUT_POLICY_NAME);
  }

  /** The wave label the configurator orders by (RolloutPolicy `default`), if set there. */
  policyWaveLabel(): string | undefined {
    return this.rolloutPolicy()?.spec.waveLabel;
  }

  /** The cluster as the informers hold it now, in the order every view expects. */
  state(): ClusterState {
    return assembleState({
      revisions: this.revisions.list(),
      nodeConfigs: this.nodeConfigs.list(),
      nodes: this.nodes.list(),
      inputs: {
        vrf: this.vrf.list(),
        layer2: this.layer2.list(),
        routingTable: this.routingTable.list(),
        bgpPeering: this.bgpPeering.list(),
      },
      fleetPaused: this.rolloutPolicy()?.spec.paused === true,
    });
  }
}
