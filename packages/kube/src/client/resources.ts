/**
 * Typed helpers for the resources nodenet touches: its five kinds, core/v1 Nodes and Events, and
 * coordination.k8s.io/v1 Leases. Objects are plain JSON, typed with `@nodenet/api` or the small
 * interfaces below.
 */
import {
  GROUP,
  RESOURCES,
  VERSION,
  type Layer2NetworkConfiguration,
  type NetworkConfigRevision,
  type NodeConfig,
  type ObjectMeta,
  type RolloutPolicy,
  type RoutingTable,
  type AgentConfiguration,
  type BGPPeering,
  type VRFRouteConfiguration,
  hasCondition,
} from '@nodenet/api';
import type { KubeClient } from './client.js';
import { KubeTransportError } from './errors.js';

/** Answers of one list page read before a malformed one is an error (listPage). */
const LIST_ATTEMPTS = 3;

export interface ResourceType {
  group: string; // '' for core
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
}

export interface ObjectList<T> {
  apiVersion?: string;
  kind?: string;
  metadata: { resourceVersion?: string; continue?: string };
  items: T[];
}

export interface NodeCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
}

export interface Node extends KubeObject {
  spec?: { unschedulable?: boolean; taints?: { key: string; value?: string; effect: string }[] };
  status?: { conditions?: NodeCondition[]; addresses?: { type: string; address: string }[] };
}

export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
}

export interface Event extends KubeObject {
  involvedObject: ObjectReference;
  reason: string;
  message: string;
  type: 'Normal' | 'Warning';
  source?: { component?: string; host?: string };
  firstTimestamp?: string;
  lastTimestamp?: string;
  eventTime?: string;
  count?: number;
  reportingComponent?: string;
  reportingInstance?: string;
  action?: string;
}

export interface LeaseSpec {
  holderIdentity?: string | null;
  leaseDurationSeconds?: number | null;
  acquireTime?: string | null;
  renewTime?: string | null;
  leaseTransitions?: number | null;
}

export interface Lease extends KubeObject {
  spec?: LeaseSpec;
}

/** A core/v1 Secret: `data` values are base64, `stringData` (write-only) plain text. */
export interface Secret extends KubeObject {
  type?: string;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

const nodenet = (kind: keyof typeof RESOURCES): ResourceType => ({
  group: GROUP,
  version: VERSION,
  plural: RESOURCES[kind].plural,
  kind,
  namespaced: false,
});

export const RESOURCE_TYPES = {
  vrf: nodenet('VRFRouteConfiguration'),
  layer2: nodenet('Layer2NetworkConfiguration'),
  routingTable: nodenet('RoutingTable'),
  bgpPeering: nodenet('BGPPeering'),
  agentConfiguration: nodenet('AgentConfiguration'),
  revision: nodenet('NetworkConfigRevision'),
  nodeConfig: nodenet('NodeConfig'),
  rolloutPolicy: nodenet('RolloutPolicy'),
  node: { group: '', version: 'v1', plural: 'nodes', kind: 'Node', namespaced: false },
  event: { group: '', version: 'v1', plural: 'events', kind: 'Event', namespaced: true },
  lease: { group: 'coordination.k8s.io', version: 'v1', plural: 'leases', kind: 'Lease', namespaced: true },
  secret: { group: '', version: 'v1', plural: 'secrets', kind: 'Secret', namespaced: true },
} as const satisfies Record<string, ResourceType>;

export const apiVersionOf = (t: ResourceType): string => (t.group ? `${t.group}/${t.version}` : t.version);

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
}

export interface WriteOptions {
  fieldManager?: string;
}

const MERGE_PATCH = 'application/merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';

/** CRUD, patch, status writes and watch paths for one resource type. */
export class ResourceClient<T extends KubeObject> {
  constructor(
    readonly client: KubeClient,
    readonly type: ResourceType,
  ) {}

  /** Collection path (namespace required for namespaced types, `undefined` = all namespaces). */
  collectionPath(namespace?: string): string {
    const base = this.type.group
      ? `/apis/${this.type.group}/${this.type.version}`
      : `/api/${this.type.version}`;
    if (this.type.namespaced && namespace)
      return `${base}/namespaces/${encodeURIComponent(namespace)}/${this.type.plural}`;
    return `${base}/${this.type.plural}`;
  }

  objectPath(name: string, namespace?: string): string {
    if (this.type.namespaced && !namespace) throw new Error(`${this.type.kind} ${name}: namespace required`);
    return `${this.collectionPath(namespace)}/${encodeURIComponent(name)}`;
  }

  /**
   * Lists every object, following `continue` tokens; returns items and the list's resourceVersion.
   * `keep` is applied to each page's items as the page arrives (with `limit`, only one page of full
   * objects is held at a time).
   */
  async list(opts: ListOptions & { namespace?: string; keep?: (obj: T) => T } = {}): Promise<ObjectList<T>> {
    const items: T[] = [];
    let cont: string | undefined = opts.continue;
    let resourceVersion: string | undefined;
    do {
      const page = await this.listPage({ ...opts, continue: cont });
      const keep = opts.keep ?? ((o: T): T => o);
      for (const o of page.items ?? []) items.push(keep(this.withKind(o)));
      resourceVersion = page.metadata?.resourceVersion;
      cont = page.metadata?.continue || undefined;
    } while (cont);
    return { metadata: resourceVersion ? { resourceVersion } : {}, items };
  }

  /**
   * One page, checked: a 2xx answer that is no list (no `items` array, no resourceVersion: cut
   * short, or not JSON) is an error, asked again up to LIST_ATTEMPTS times, never read as empty.
   */
  private async listPage(opts: ListOptions & { namespace?: string }): Promise<ObjectList<T>> {
    const path = this.collectionPath(opts.namespace);
    for (let attempt = 1; ; attempt++) {
      const page = await this.client.request<ObjectList<T>>('GET', path, {
        verb: 'list',
        query: {
          labelSelector: opts.labelSelector,
          fieldSelector: opts.fieldSelector,
          limit: opts.limit,
          continue: opts.continue,
          resourceVersion: opts.continue ? undefined : opts.resourceVersion,
        },
      });
      const p = page as Partial<ObjectList<T>> | null;
      if (p && Array.isArray(p.items) && typeof p.metadata?.resourceVersion === 'string') return page;
      if (attempt >= LIST_ATTEMPTS)
        throw new KubeTransportError(
          'GET',
          path,
          new Error(`the answer is not a list (no items and resourceVersion), ${attempt} times`),
        );
    }
  }

  async get(name: string, namespace?: string): Promise<T> {
    return this.withKind(await this.client.request<T>('GET', this.objectPath(name, namespace)));
  }

  async create(obj: T, opts: WriteOptions = {}): Promise<T> {
    const body = { apiVersion: apiVersionOf(this.type), kind: this.type.kind, ...obj };
    return this.client.request<T>('POST', this.collectionPath(obj.metadata.namespace), {
      body,
      query: { fieldManager: opts.fieldManager },
    });
  }

  /** Full update; with `metadata.resourceVersion` set, a concurrent change fails with 409. */
  async update(obj: T, opts: WriteOptions = {}): Promise<T> {
    const body = { apiVersion: apiVersionOf(this.type), kind: this.type.kind, ...obj };
    return this.client.request<T>('PUT', this.objectPath(obj.metadata.name, obj.metadata.namespace), {
      body,
      query: { fieldManager: opts.fieldManager },
    });
  }

  /** JSON merge patch (RFC 7386) of the object. */
  async mergePatch(name: string, patch: unknown, namespace?: string, opts: WriteOptions = {}): Promise<T> {
    return this.client.request<T>('PATCH', this.objectPath(name, namespace), {
      body: patch,
      contentType: MERGE_PATCH,
      query: { fieldManager: opts.fieldManager },
    });
  }

  /** JSON patch (RFC 6902), e.g. with a `test` op on resourceVersion for optimistic locking. */
  async jsonPatch(name: string, ops: unknown[], namespace?: string, opts: WriteOptions = {}): Promise<T> {
    return this.client.request<T>('PATCH', this.objectPath(name, namespace), {
      body: ops,
      contentType: JSON_PATCH,
      query: { fieldManager: opts.fieldManager },
    });
  }

  /** Merge patch of the status subresource: `{status: {...}}` (plus metadata.resourceVersion to lock). */
  async patchStatus(name: string, patch: unknown, namespace?: string, opts: WriteOptions = {}): Promise<T> {
    return this.client.request<T>('PATCH', `${this.objectPath(name, namespace)}/status`, {
      body: patch,
      contentType: MERGE_PATCH,
      query: { fieldManager: opts.fieldManager },
    });
  }

  /** Full update of the status subresource; the object's resourceVersion makes it conditional. */
  async updateStatus(obj: T, opts: WriteOptions = {}): Promise<T> {
    const body = { apiVersion: apiVersionOf(this.type), kind: this.type.kind, ...obj };
    return this.client.request<T>(
      'PUT',
      `${this.objectPath(obj.metadata.name, obj.metadata.namespace)}/status`,
      {
        body,
        query: { fieldManager: opts.fieldManager },
      },
    );
  }

  async delete(
    name: string,
    namespace?: string,
    opts: { uid?: string; resourceVersion?: string } = {},
  ): Promise<void> {
    const preconditions =
      opts.uid || opts.resourceVersion
        ? {
            preconditions: {
              ...(opts.uid ? { uid: opts.uid } : {}),
              ...(opts.resourceVersion ? { resourceVersion: opts.resourceVersion } : {}),
            },
          }
        : undefined;
    await this.client.request<unknown>('DELETE', this.objectPath(name, namespace), {
      ...(preconditions ? { body: { apiVersion: 'v1', kind: 'DeleteOptions', ...preconditions } } : {}),
    });
  }

  private withKind(o: T): T {
    if (o && (!o.kind || !o.apiVersion))
      return { ...o, apiVersion: apiVersionOf(this.type), kind: this.type.kind };
    return o;
  }
}

/** Clients for every resource type nodenet uses. */
export interface Clients {
  client: KubeClient;
  vrf: ResourceClient<VRFRouteConfiguration>;
  layer2: ResourceClient<Layer2NetworkConfiguration>;
  routingTable: ResourceClient<RoutingTable>;
  bgpPeering: ResourceClient<BGPPeering>;
  agentConfiguration: ResourceClient<AgentConfiguration>;
  revision: ResourceClient<NetworkConfigRevision>;
  nodeConfig: ResourceClient<NodeConfig>;
  rolloutPolicy: ResourceClient<RolloutPolicy>;
  node: ResourceClient<Node>;
  event: ResourceClient<Event>;
  lease: ResourceClient<Lease>;
  /** Only the BGP password Secrets of one namespace (issue 41); RBAC grants nothing else. */
  secret: ResourceClient<Secret>;
}

export function makeClients(client: KubeClient): Clients {
  return {
    client,
    vrf: new ResourceClient(client, RESOURCE_TYPES.vrf),
    layer2: new ResourceClient(client, RESOURCE_TYPES.layer2),
    routingTable: new ResourceClient(client, RESOURCE_TYPES.routingTable),
    bgpPeering: new ResourceClient(client, RESOURCE_TYPES.bgpPeering),
    agentConfiguration: new ResourceClient(client, RESOURCE_TYPES.agentConfiguration),
    revision: new ResourceClient(client, RESOURCE_TYPES.revision),
    nodeConfig: new ResourceClient(client, RESOURCE_TYPES.nodeConfig),
    rolloutPolicy: new ResourceClient(client, RESOURCE_TYPES.rolloutPolicy),
    node: new ResourceClient(client, RESOURCE_TYPES.node),
    event: new ResourceClient(client, RESOURCE_TYPES.event),
    lease: new ResourceClient(client, RESOURCE_TYPES.lease),
    secret: new ResourceClient(client, RESOURCE_TYPES.secret),
  };
}

/** A Node is Ready when its Ready condition is True. */
export function isNodeReady(node: Node): boolean {
  return hasCondition(node.status?.conditions, 'Ready');
}
