/**
 * BGPPeering status on a real API server (devcluster, real client): the configurator's writer counts
 * the NodeConfigs that carry a peering and the sessions their agents observed Established, writes
 * the two figures once, and keeps the Accepted condition the build step wrote.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import pino from 'pino';
import { API_VERSION, buildConfig, nodeConfigSpec, type BGPPeering, type NodeConfig } from '@nodenet/api';
import { startDevCluster, type DevCluster } from '@nodenet/devcluster';
import { Informer, KubeClient, loadKubeConfig, makeClients, type Clients } from '@nodenet/kube';
import { writePeeringStatuses } from '@nodenet/configurator';

let dc: DevCluster;
let client: KubeClient;
let clients: Clients;

const peering: BGPPeering = {
  apiVersion: API_VERSION,
  kind: 'BGPPeering',
  metadata: { name: 'router' },
  spec: { neighbor: { addresses: ['192.0.2.1', '192.0.2.2'] }, remoteASN: 65010 },
};

beforeAll(async () => {
  dc = await startDevCluster({ crdsDir: new URL('../../../crds', import.meta.url).pathname });
  client = new KubeClient(loadKubeConfig(dc.kubeconfigPath));
  clients = makeClients(client);
}, 60_000);

afterAll(async () => {
  client?.close();
  await dc?.stop();
});

it('writes the nodes a peering reaches and its Established sessions, and keeps its conditions', async () => {
  await clients.bgpPeering.create(peering);
  await clients.bgpPeering.patchStatus('router', {
    status: {
      conditions: [
        {
          type: 'Accepted',
          status: 'True',
          reason: 'Valid',
          message: 'ok',
          lastTransitionTime: '2026-01-01T00:00:00Z',
        },
      ],
    },
  });
  const { config, hash } = buildConfig({ vrf: [], layer2: [], routingTable: [], bgpPeering: [peering] });
  const spec = nodeConfigSpec({ config, hash }, {});
  const sessions = (states: string[]) =>
    states.map((state, i) => ({ vrf: 'default', peer: `192.0.2.${i + 1}`, state }));
  const ncs: NodeConfig[] = [
    {
      apiVersion: API_VERSION,
      kind: 'NodeConfig',
      metadata: { name: 'n1' },
      spec,
      status: { observed: { bgpSessions: sessions(['Established', 'Established']) } },
    },
    {
      apiVersion: API_VERSION,
      kind: 'NodeConfig',
      metadata: { name: 'n2' },
      spec,
      status: { observed: { bgpSessions: sessions(['Established', 'Active']) } },
    },
  ];
  const informer = new Informer(clients.bgpPeering, { resyncMs: 300_000 });
  informer.start();
  await informer.waitForSync();
  const ctx = { client: clients.bgpPeering, informer, log: pino({ level: 'silent' }) };
  try {
    expect(await writePeeringStatuses(ctx, ncs)).toBe(0);
    const got = await clients.bgpPeering.get('router');
    expect(got.status).toMatchObject({
      nodes: 2,
      established: 3,
      remoteAS: '65010',
      conditions: [{ type: 'Accepted', status: 'True' }],
    });
    // Unchanged figures: no second write.
    const rv = got.metadata.resourceVersion;
    expect(await writePeeringStatuses(ctx, ncs)).toBe(0);
    expect((await clients.bgpPeering.get('router')).metadata.resourceVersion).toBe(rv);

    // Issue 38: `remoteAS: external` left REMOTE AS blank (the column read spec.remoteASN only).
    await clients.bgpPeering.create({
      ...peering,
      metadata: { name: 'any-as' },
      spec: { neighbor: { addresses: ['192.0.2.9'] }, remoteAS: 'external' },
    });
    await waitUntil(() => informer.list().length === 2);
    expect(await writePeeringStatuses(ctx, ncs)).toBe(0);
    const { stdout } = await promisify(execFile)('kubectl', [
      '--kubeconfig',
      dc.kubeconfigPath,
      'get',
      'bgpp',
    ]);
    expect(stdout).toMatch(/^NAME\s+LAYER2\s+REMOTE AS\s+NODES\s+ESTABLISHED/);
    expect(stdout).toMatch(/^any-as\s+external\s+0\s+0\s/m);
    expect(stdout).toMatch(/^router\s+65010\s+2\s+3\s/m);
  } finally {
    informer.stop();
  }
}, 60_000);

async function waitUntil(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !ok(); i++) await new Promise((r) => setTimeout(r, 50));
}
