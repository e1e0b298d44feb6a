/** Shared set-up for the devcluster suites: a running server and real @kubernetes/client-node clients. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as k8s from '@kubernetes/client-node';
import { startDevCluster, type DevCluster, type DevClusterOptions } from '@nodenet/devcluster';
import { waitFor } from '@nodenet/testkit';
export { waitFor };

export const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
export const GROUP = 'network.nodenet.io';
export const VERSION = 'v1alpha1';
export const L2 = 'layer2networkconfigurations';
export const NC = 'nodeconfigs';

export interface Clients {
  dc: DevCluster;
  kc: k8s.KubeConfig;
  core: k8s.CoreV1Api;
  custom: k8s.CustomObjectsApi;
  coord: k8s.CoordinationV1Api;
  events: k8s.EventsV1Api;
  ext: k8s.ApiextensionsV1Api;
}

export async function startWithClients(options: DevClusterOptions = {}): Promise<Clients> {
  const dc = await startDevCluster({ crdsDir: FIXTURES, ...options });
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(dc.kubeconfigPath);
  return {
    dc,
    kc,
    core: kc.makeApiClient(k8s.CoreV1Api),
    custom: kc.makeApiClient(k8s.CustomObjectsApi),
    coord: kc.makeApiClient(k8s.CoordinationV1Api),
    events: kc.makeApiClient(k8s.EventsV1Api),
    ext: kc.makeApiClient(k8s.ApiextensionsV1Api),
  };
}

export interface StatusBody {
  kind: string;
  code: number;
  reason: string;
  message: string;
  details?: { causes?: { reason: string; field: string; message: string }[] };
}

/** Runs `fn`, expecting an ApiException; returns its HTTP code and decoded Status body. */
export async function apiError(fn: () => Promise<unknown>): Promise<{ code: number; status: StatusBody }> {
  try {
    await fn();
  } catch (e) {
    if (e instanceof k8s.ApiException) {
      const body = typeof e.body === 'string' ? (JSON.parse(e.body) as StatusBody) : (e.body as StatusBody);
      return { code: e.code, status: body };
    }
    throw e;
  }
  throw new Error('expected the call to fail');
}

export const mergePatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
export const jsonPatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch);
export const strategicPatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch);

export function l2(
  name: string,
  spec: Record<string, unknown> = {},
  metadata: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'Layer2NetworkConfiguration',
    metadata: { name, ...metadata },
    spec: { id: 10, vni: 100, ...spec },
  };
}

export function nc(
  name: string,
  metadata: Record<string, unknown> = {},
  spec: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'NodeConfig',
    metadata: { name, ...metadata },
    spec: { revision: 'r1', ...spec },
  };
}

export interface KObj {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    uid: string;
    resourceVersion: string;
    generation?: number;
    deletionTimestamp?: string;
    finalizers?: string[];
    labels?: Record<string, string>;
    ownerReferences?: { uid: string; name: string }[];
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

/** Collects watch events of one path until stopped. */
export async function collectWatch(
  kc: k8s.KubeConfig,
  path: string,
  query: Record<string, string | number | boolean | undefined>,
): Promise<{ events: { type: string; obj: KObj }[]; done: Promise<unknown>; stop: () => void }> {
  const events: { type: string; obj: KObj }[] = [];
  let resolveDone: (v: unknown) => void = () => {};
  const done = new Promise((r) => (resolveDone = r));
  const ctrl = await new k8s.Watch(kc).watch(
    path,
    query,
    (type, obj: KObj) => events.push({ type, obj }),
    (err) => resolveDone(err ?? 'closed'),
  );
  return { events, done, stop: () => ctrl.abort() };
}
