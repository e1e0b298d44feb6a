/** Scenario 3: a revision that cuts its first node off: how far does it get, how fast is it stopped. */
import { pino } from 'pino';
import { type NetworkConfigRevision } from '@nodenet/api';
import { startDevCluster } from '@nodenet/devcluster';
import { KubeClient, loadKubeConfig, makeClients } from '@nodenet/kube';
import { Controller, DEFAULT_POLICY, Metrics } from '@nodenet/configurator';
import { SimulatedAgents } from '@nodenet/testkit';
import { args, LATENCY, COALESCE, CRDS } from './args.js';
import { readyStatus, nodeNames, createReadyNodes, stopAll } from './processes.js';
import { untilTrue, revisionNumbered } from './watch.js';

/** Issue 10: a revision that cuts its first node off; how far does it get, and how fast is it stopped? */
export async function blastScenario(): Promise<Record<string, string>> {
  const nodes = Number(args['blast-nodes']);
  const limit = Number(args['blast-limit']);
  const notReadyMs = Number(args['not-ready-timeout']);
  const soakMs = 1000;
  const dc = await startDevCluster({ crdsDir: CRDS });
  const setup = makeClients(new KubeClient(loadKubeConfig(dc.kubeconfigPath)));
  await createReadyNodes(setup, nodeNames(nodes), 16);
  let bad = '';
  let cutNode = '';
  let cutAt = 0;
  const agents = new SimulatedAgents({
    kubeconfigPath: dc.kubeconfigPath,
    defaultDelayMs: LATENCY,
    afterWrite: async (w) => {
      if (bad && w.revision === bad && w.configStatus === 'provisioned' && !cutNode) {
        cutNode = w.node;
        agents.stopNode(w.node);
        await setup.node.patchStatus(w.node, readyStatus(false));
        cutAt = performance.now();
      }
    },
  });
  await agents.start();
  await setup.layer2.create({
    metadata: { name: 'blue' },
    spec: { id: 100, vni: 10100, mtu: 1500 },
  } as never);
  const client = new KubeClient(loadKubeConfig(dc.kubeconfigPath));
  const controller = new Controller({
    clients: makeClients(client),
    policy: {
      ...DEFAULT_POLICY,
      updateLimit: { kind: 'count', count: limit },
      minSuccessTimeMs: soakMs,
      notReadyTimeoutMs: notReadyMs,
    },
    log: pino({ level: 'silent' }),
    metrics: new Metrics(),
    identity: 'bench-blast',
    coalesceMs: COALESCE,
  });
  await controller.start();
  const revision = (n: number): NetworkConfigRevision | undefined => revisionNumbered(controller, n);
  const until = (what: string, ok: () => boolean): Promise<void> => untilTrue(`blast scenario: ${what}`, ok);
  await until(
    'revision 1 complete',
    () => revision(1)?.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') === true,
  );
  const received = new Set<string>();
  controller.informers.nodeConfig.on((e) => {
    if (bad && e.type !== 'delete' && e.type !== 'resync' && e.object.spec.revision === bad)
      received.add(e.object.metadata.name);
  });
  await setup.layer2.create({ metadata: { name: 'red' }, spec: { id: 200, vni: 10200, mtu: 1500 } } as never);
  await until('revision 2 built', () => {
    bad = revision(2)?.spec.hash ?? '';
    return bad !== '';
  });
  await until('revision 2 invalid', () => revision(2)?.status?.isInvalid === true);
  const invalidAt = performance.now();
  const rows = {
    'nodes / limit / apply latency / soak / --not-ready-timeout': `${nodes} / ${limit} / ${LATENCY} ms / ${soakMs} ms / ${notReadyMs} ms`,
    'nodes that received the bad revision (blast radius)': `${received.size} (limit ${limit}; the cut-off node held its slot)`,
    'cut-off node NotReady → revision invalid': `${(invalidAt - cutAt).toFixed(0)} ms (timeout ${notReadyMs} ms)`,
    'failure recorded': revision(2)?.status?.failedNodes?.[0]?.message ?? '(none)',
  };
  await stopAll({ controller, agents, clients: [client, setup.client], dc });
  return rows;
}
