/** What the fleet benchmark watches: conditions to wait for, the configurator's requests, the per-node timeline. */
import { agentReport, appliedNumber, type NetworkConfigRevision, type NodeConfig } from '@nodenet/api';
import { KubeClient, makeClients } from '@nodenet/kube';
import { Controller } from '@nodenet/configurator';
import { N, LIMIT, TIMEOUT_S } from './args.js';

/** Polls until `ok` holds; throws after TIMEOUT_S. */
export async function untilTrue(what: string, ok: () => boolean, stepMs = 5): Promise<void> {
  const deadline = performance.now() + TIMEOUT_S * 1000;
  while (!ok()) {
    if (performance.now() > deadline) throw new Error(`${what} not reached`);
    await new Promise((res) => setTimeout(res, stepMs));
  }
}

export const revisionNumbered = (controller: Controller, n: number): NetworkConfigRevision | undefined =>
  controller.informers.revision.list().find((x) => x.spec.number === n);

export interface RequestCounts {
  on: boolean;
  byKind: Map<string, number>;
  byNode: Map<string, number>;
}

/**
 * What the configurator's requests are for: per verb and resource, NodeConfig patches by purpose
 * (a move carries the spec; a row-label write only metadata), and per NodeConfig.
 */
export function countRequests(client: KubeClient, clients: ReturnType<typeof makeClients>): RequestCounts {
  const counting: RequestCounts = {
    on: false,
    byKind: new Map<string, number>(),
    byNode: new Map<string, number>(),
  };
  const bump = (m: Map<string, number>, k: string): void => void m.set(k, (m.get(k) ?? 0) + 1);
  client.onRequest((info) => {
    if (!counting.on || info.verb === 'watch') return;
    // The plural after the group version (and namespace): /api/v1/..., /apis/<group>/<version>/...
    const parts = info.path
      .split('?')[0]!
      .split('/')
      .slice(info.path.startsWith('/api/') ? 3 : 4);
    const resource = (parts[0] === 'namespaces' ? parts[2] : parts[0]) ?? '?';
    if (!(info.verb === 'patch' && resource === 'nodeconfigs'))
      bump(counting.byKind, `${info.verb} ${resource}`);
    const node = /\/nodeconfigs\/([^/?]+)/.exec(info.path)?.[1];
    if (node) bump(counting.byNode, node);
  });
  const patchNodeConfig = clients.nodeConfig.mergePatch.bind(clients.nodeConfig);
  clients.nodeConfig.mergePatch = (name, patch) => {
    if (counting.on)
      bump(
        counting.byKind,
        (patch as { spec?: unknown }).spec ? 'patch nodeconfigs (move)' : 'patch nodeconfigs (row labels)',
      );
    return patchNodeConfig(name, patch);
  };
  return counting;
}

export function countsText(counting: RequestCounts, names: string[]): { kinds: string; perNodeText: string } {
  const kinds = [...counting.byKind]
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const perNodeCounts = new Map<number, number>();
  for (const n of names) {
    const x = counting.byNode.get(n) ?? 0;
    perNodeCounts.set(x, (perNodeCounts.get(x) ?? 0) + 1);
  }
  const perNodeText = [...perNodeCounts]
    .sort((a, b) => a[0] - b[0])
    .map(([k, v]) => `${v} node(s) ${k}`)
    .join(', ');
  return { kinds, perNodeText };
}

export interface Timeline {
  /** The hash of the revision followed (empty: none yet). */
  target: string;
  assignedAt: Map<string, number>;
  doneAt: Map<string, number>;
}

/**
 * Timeline as the configurator sees it: when it assigned each node (its own write, fed back to its
 * cache) and when the node's `provisioned` status for the new revision reached its watch.
 */
export function watchTimeline(controller: Controller): Timeline {
  const t: Timeline = { target: '', assignedAt: new Map(), doneAt: new Map() };
  controller.informers.nodeConfig.on((e) => {
    if (!t.target || e.type === 'delete' || e.type === 'resync') return;
    const nc = e.object;
    const name = nc.metadata.name;
    if (nc.spec.revision === t.target && !t.assignedAt.has(name)) t.assignedAt.set(name, performance.now());
    if (
      nc.status?.configStatus === 'provisioned' &&
      nc.status.lastAppliedRevision === t.target &&
      !t.doneAt.has(name)
    )
      t.doneAt.set(name, performance.now());
  });
  return t;
}

/** Per node, assignment to provisioned; and per slot, freed to taken again. */
export function nodeTimes({ assignedAt, doneAt }: Timeline): { roundTrip: number[]; reaction: number[] } {
  const roundTrip = [...doneAt].map(([n, t]) => t - assignedAt.get(n)!).filter((x) => x >= 0);
  // Reaction: for the k-th assignment after the first wave, the time since the (k-LIMIT)-th node
  // finished, i.e. since the slot it takes was freed.
  const assigned = [...assignedAt.values()].sort((a, b) => a - b);
  const finished = [...doneAt.values()].sort((a, b) => a - b);
  return { roundTrip, reaction: assigned.slice(LIMIT).map((t, k) => t - finished[k]!) };
}

/** Until every NodeConfig's row (`kubectl get nc`) shows revision `r` provisioned. */
export function rowsShowRevision(controller: Controller, r: NetworkConfigRevision): Promise<void> {
  const shows = (nc: NodeConfig): boolean =>
    agentReport(nc) === 'provisioned' && appliedNumber(nc, []) === r.spec.number;
  return untilTrue(`rows show revision ${r.spec.number}`, () =>
    controller.informers.nodeConfig.list().every(shows),
  );
}

export async function completeRevision(controller: Controller, n: number): Promise<NetworkConfigRevision> {
  const complete = (): boolean =>
    revisionNumbered(controller, n)?.status?.conditions?.some(
      (c) => c.type === 'Complete' && c.status === 'True',
    ) === true;
  try {
    await untilTrue(`revision ${n} Complete`, complete);
  } catch {
    throw new Error(
      `revision ${n} not Complete after ${TIMEOUT_S} s; nodes: ${JSON.stringify(controller.latestPlan?.nodeStates)}`,
    );
  }
  return revisionNumbered(controller, n)!;
}

/** Verified independently of the configurator's own status: every NodeConfig reports the revision. */
export async function everyNodeReports(
  setup: ReturnType<typeof makeClients>,
  r: NetworkConfigRevision,
): Promise<void> {
  const ncs = (await setup.nodeConfig.list()).items;
  const onNew = ncs.filter(
    (nc: NodeConfig) =>
      nc.status?.configStatus === 'provisioned' && nc.status.lastAppliedRevision === r.spec.hash,
  ).length;
  if (onNew !== N) throw new Error(`only ${onNew}/${N} NodeConfigs report revision ${r.spec.number}`);
}
