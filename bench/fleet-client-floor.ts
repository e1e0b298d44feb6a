/**
 * Child process of bench/fleet.ts: the Kubernetes client work of a rollout alone, with no planning,
 * for the configurator's "CPU per node" figure to be read against (issue 26). Like the configurator
 * in the rollout, it keeps an Informer on NodeConfigs (the same summary transform and page size),
 * patches each node's NodeConfig once (merge patch with resourceVersion, spec, labels and the
 * assignment annotations; 32 at a time) and feeds the answer back with `mutated()`, while the
 * simulated agents (another process) answer each with two status writes. Its CPU over that window,
 * per node, is what the client's requests and watch events cost at the least.
 * Protocol (IPC): parent sends {start, kubeconfigPath}; child answers {ready} once its informer has
 * synced; parent sends {run}; child answers {done, cpuMs, nodes, events} when every node has
 * reported the new spec provisioned; parent sends {stop}.
 */
import {
  ASSIGNED_AT_ANNOTATION,
  SPEC_HASH_ANNOTATION,
  hashConfig,
  type NodeConfig,
  type NodeConfigSpec,
} from '@nodenet/api';
import { Informer, KubeClient, loadKubeConfig, makeClients } from '@nodenet/kube';
import { NODE_CONFIG_PAGE, nodeConfigSummary } from '@nodenet/configurator';

type Msg = { type: 'start'; kubeconfigPath: string } | { type: 'run' } | { type: 'stop' };

const PARALLEL = 32;
const WARM_UP = 'bench.nodenet.io/floor-warm-up';

let clients: ReturnType<typeof makeClients> | undefined;
let informer: Informer<NodeConfig> | undefined;
const send = (m: unknown): void => {
  process.send?.(m);
};

async function start(kubeconfigPath: string): Promise<void> {
  clients = makeClients(new KubeClient(loadKubeConfig(kubeconfigPath)));
  informer = new Informer(clients.nodeConfig, { transform: nodeConfigSummary, pageSize: NODE_CONFIG_PAGE });
  informer.start();
  await informer.waitForSync();
}

/** A spec every node takes: the first node's with one more Layer-2 network (the agents apply it). */
async function nextSpec(c: NonNullable<typeof clients>, first: string): Promise<NodeConfigSpec> {
  const spec = (await c.nodeConfig.get(first)).spec;
  const like = spec.layer2[0];
  if (!like) throw new Error(`NodeConfig ${first}: no Layer-2 network to copy`);
  const layer2 = [...spec.layer2, { ...like, name: 'floor', id: 4000, vni: 14000 }];
  const content = { ...spec, revision: '', layer2 };
  return { ...content, revision: hashConfig(content) };
}

/** Patches every node's NodeConfig, PARALLEL at a time, and feeds each answer back. */
async function patchAll(names: string[], patch: (cur: NodeConfig) => unknown): Promise<void> {
  const c = clients!;
  const inf = informer!;
  let next = 0;
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < names.length) {
        const cur = inf.get(names[next++]!)!;
        inf.mutated(await c.nodeConfig.mergePatch(cur.metadata.name, patch(cur)));
      }
    }),
  );
}

async function run(): Promise<{ cpuMs: number; nodes: number; events: number }> {
  const inf = informer!;
  const names = inf.list().map((nc) => nc.metadata.name);
  const spec = await nextSpec(clients!, names[0]!);
  const specHash = hashConfig(spec);
  // Warm-up, not measured: the configurator's requests and events run optimised code by the time
  // its rollout is measured, so these do too. A metadata-only change: the agents do not answer it.
  const warmUp = new Date().toISOString();
  await patchAll(names, (cur) => ({
    metadata: { resourceVersion: cur.metadata.resourceVersion, annotations: { [WARM_UP]: warmUp } },
  }));
  const provisioned = new Set<string>();
  let events = 0;
  let allProvisioned!: () => void;
  const done = new Promise<void>((resolve) => (allProvisioned = resolve));
  inf.on((e) => {
    events++;
    const st = e.object.status;
    if (st?.configStatus !== 'provisioned' || st.lastAppliedRevision !== spec.revision) return;
    provisioned.add(e.object.metadata.name);
    if (provisioned.size === names.length) allProvisioned();
  });
  const cpu0 = process.cpuUsage();
  await patchAll(names, (cur) => ({
    metadata: {
      resourceVersion: cur.metadata.resourceVersion,
      labels: cur.metadata.labels,
      annotations: {
        [ASSIGNED_AT_ANNOTATION]: new Date().toISOString(),
        [SPEC_HASH_ANNOTATION]: specHash,
        [WARM_UP]: null,
      },
    },
    spec,
  }));
  await done;
  const cpu = process.cpuUsage(cpu0);
  return { cpuMs: (cpu.user + cpu.system) / 1000, nodes: names.length, events };
}

process.on('message', (m: Msg) => {
  void (async () => {
    if (m.type === 'start') {
      await start(m.kubeconfigPath);
      send({ type: 'ready' });
    } else if (m.type === 'run') {
      send({ type: 'done', ...(await run()) });
    } else {
      informer?.stop();
      clients?.client.close();
      process.exit(0);
    }
  })().catch((err: unknown) => {
    console.error('fleet-client-floor:', err);
    process.exit(1);
  });
});
process.on('disconnect', () => process.exit(0));
