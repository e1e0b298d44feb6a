/** Applies the example YAML files to the demo cluster and watches NodeConfigs (the demo's eyes). */
import { readFileSync } from 'node:fs';
import type { NodeConfig } from '@nodenet/api';
import type { Clients, KubeObject } from '@nodenet/kube';
import { parseAllDocuments } from 'yaml';

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** Creates every object of a multi-document YAML file; Nodes are marked Ready (there is no kubelet). */
export async function applyFile(clients: Clients, file: string): Promise<string[]> {
  const created: string[] = [];
  for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
    const obj = doc.toJS() as (KubeObject & { kind: string }) | null;
    if (!obj) continue;
    // As `kubectl apply` creates it: a later `kubectl apply -f` of the same file then patches it
    // without the "missing last-applied-configuration" warning.
    obj.metadata.annotations = {
      ...obj.metadata.annotations,
      [LAST_APPLIED]: JSON.stringify(obj) + '\n',
    };
    switch (obj.kind) {
      case 'Node':
        await clients.node.create(obj);
        await markReady(clients, obj.metadata.name);
        break;
      case 'Layer2NetworkConfiguration':
        await clients.layer2.create(obj as never);
        break;
      case 'VRFRouteConfiguration':
        await clients.vrf.create(obj as never);
        break;
      case 'RoutingTable':
        await clients.routingTable.create(obj as never);
        break;
      default:
        throw new Error(`${file}: the demo does not apply kind ${obj.kind}`);
    }
    created.push(`${obj.kind.toLowerCase()}/${obj.metadata.name}`);
  }
  return created;
}

/** What a kubelet would post: the Node is Ready. */
async function markReady(clients: Clients, name: string): Promise<void> {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  await clients.node.patchStatus(name, {
    status: {
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'KubeletReady',
          message: 'demo node',
          lastHeartbeatTime: now,
          lastTransitionTime: now,
        },
      ],
    },
  });
}

/** Whether a NodeConfig holds a rollout slot: handed a revision its agent has not finished. */
export function inProgress(nc: NodeConfig): boolean {
  const st = nc.status;
  const about = (st?.conditions ?? []).some((c) => c.observedGeneration === nc.metadata.generation);
  if (st?.configStatus === 'provisioned' && st.lastAppliedRevision === nc.spec.revision) return false;
  if (st?.configStatus === 'invalid' && about) return false;
  return true;
}

/**
 * Records every NodeConfig change from a watch: which nodes were ever handed which revision, and the
 * most nodes in progress at once (the update limit the story checks).
 */
export class NodeConfigWatch {
  readonly current = new Map<string, NodeConfig>();
  /** node → every revision hash its spec carried. */
  readonly handed = new Map<string, Set<string>>();
  maxInProgress = 0;
  private stopWatch: (() => void) | undefined;

  constructor(private readonly clients: Clients) {}

  async start(): Promise<void> {
    const path = this.clients.nodeConfig.collectionPath();
    const list = await this.clients.nodeConfig.list();
    for (const nc of list.items) this.see(nc);
    this.stopWatch = await this.clients.client.watch(
      path,
      { resourceVersion: list.metadata.resourceVersion, allowWatchBookmarks: false },
      (type, obj) => {
        const nc = obj as NodeConfig;
        if (type === 'DELETED') this.current.delete(nc.metadata.name);
        else if (type === 'ADDED' || type === 'MODIFIED') this.see(nc);
      },
      () => undefined,
    );
  }

  private see(nc: NodeConfig): void {
    this.current.set(nc.metadata.name, nc);
    const set = this.handed.get(nc.metadata.name) ?? new Set<string>();
    set.add(nc.spec.revision);
    this.handed.set(nc.metadata.name, set);
    const busy = [...this.current.values()].filter(inProgress).length;
    this.maxInProgress = Math.max(this.maxInProgress, busy);
  }

  /** Starts a new measurement of the most nodes in progress at once. */
  resetMax(): void {
    this.maxInProgress = [...this.current.values()].filter(inProgress).length;
  }

  stop(): void {
    this.stopWatch?.();
  }
}
