/**
 * VRFs on the nodes that need them, with the real configurator, devcluster and simulated agents:
 * a VRF limited by a node selector (and its Layer-2 network) reaches only those nodes; per-node
 * loopback addresses stay the same across a new revision, an agent restart and a leader change
 * (a new configurator instance, which reads nothing but the revisions), a deleted node's address
 * is freed, a NotReady node keeps its own, and a new node gets the lowest free address. A BGPPeering
 * in a limited VRF reaches only the VRF's nodes, and its status counts those nodes.
 */
import type { BGPPeering, NetworkConfigRevision, VRFRouteConfiguration } from '@nodenet/api';
import { describe, expect, it } from 'vitest';
import {
  createNode,
  isComplete,
  layer2,
  nodeName,
  setNodeReady,
  SimulatedAgents,
  startConfigurator,
  testPolicy,
  waitFor,
  type Fleet,
} from '@nodenet/testkit';
import { useFleet } from './harness.js';

const f = useFleet();

const tenant = (spec: Partial<VRFRouteConfiguration['spec']> = {}): VRFRouteConfiguration => ({
  apiVersion: 'network.nodenet.io/v1alpha1',
  kind: 'VRFRouteConfiguration',
  metadata: { name: 'tenant' },
  spec: { vrf: 'tenant', vni: 5000, seq: 10, ...spec },
});

/** The newest revision once it is complete and has `n` as its number or later. */
const completeFrom = (fleet: Fleet, n: number): Promise<NetworkConfigRevision> =>
  waitFor(`a revision numbered ${n} or later complete`, async () => {
    const newest = (await fleet.revisions()).at(-1);
    return newest && newest.spec.number >= n && isComplete(newest) ? newest : undefined;
  });

/** node → loopback address, from a revision alone. */
const addresses = (r: NetworkConfigRevision): Record<string, string> =>
  Object.fromEntries((r.spec.config.loopbackAddresses ?? []).map((a) => [a.node, a.address]));

/** node → the loopback address its NodeConfig carries (what the agent applies). */
const nodeConfigAddresses = async (fleet: Fleet): Promise<Record<string, string | undefined>> =>
  Object.fromEntries(
    (await fleet.clients.nodeConfig.list()).items.map((nc) => [
      nc.metadata.name,
      nc.spec.vrf.find((v) => v.vrf === 'tenant')?.loopbackAddresses?.[0]?.address,
    ]),
  );

describe('VRF node selector and per-node loopbacks', () => {
  it('a VRF limited by a node selector reaches only those nodes, and so does its Layer-2 network', async () => {
    for (let i = 0; i < 4; i++) await createNode(f.clients, nodeName(i), i < 2 ? { tenant: 'a' } : {});
    f.agents = new SimulatedAgents({ kubeconfigPath: f.dc.kubeconfigPath, defaultDelayMs: 30 });
    await f.agents.start();
    await f.clients.vrf.create(tenant({ nodeSelector: { matchLabels: { tenant: 'a' } } }));
    await f.clients.layer2.create(
      layer2('tenant-web', 100, { vrf: 'tenant', nodeSelector: { matchLabels: { tenant: 'a' } } }),
    );
    await f.clients.layer2.create(layer2('plain', 200));
    f.configurator = await startConfigurator(f.dc.kubeconfigPath, testPolicy());
    await completeFrom(f, 1);
    const ncs = (await f.clients.nodeConfig.list()).items.sort((a, b) =>
      a.metadata.name < b.metadata.name ? -1 : 1,
    );
    expect(
      ncs.map((nc) => [nc.metadata.name, nc.spec.vrf.map((v) => v.vrf), nc.spec.layer2.map((l) => l.name)]),
    ).toEqual([
      ['node-000', ['tenant'], ['plain', 'tenant-web']],
      ['node-001', ['tenant'], ['plain', 'tenant-web']],
      ['node-002', [], ['plain']],
      ['node-003', [], ['plain']],
    ]);
  });

  it('a peering limited by a VRF nodeSelector reaches only those nodes', async () => {
    for (let i = 0; i < 4; i++) await createNode(f.clients, nodeName(i), i < 2 ? { tenant: 'a' } : {});
    f.agents = new SimulatedAgents({ kubeconfigPath: f.dc.kubeconfigPath, defaultDelayMs: 30 });
    await f.agents.start();
    const onTenant = { matchLabels: { tenant: 'a' } };
    await f.clients.vrf.create(tenant({ nodeSelector: onTenant }));
    await f.clients.layer2.create(
      layer2('tenant-web', 100, {
        vrf: 'tenant',
        nodeSelector: onTenant,
        anycastGateways: ['10.8.0.1/24'],
        anycastMac: '02:00:00:00:01:00',
      }),
    );
    const peering = (name: string, spec: BGPPeering['spec']): BGPPeering => ({
      apiVersion: 'network.nodenet.io/v1alpha1',
      kind: 'BGPPeering',
      metadata: { name },
      spec,
    });
    // In the tenant VRF: a listen range on its network (bounded by the network), and a router
    // whose selector repeats the VRF's (validation refuses one that could reach further).
    await f.clients.bgpPeering.create(
      peering('workloads', { listenRange: { layer2: 'tenant-web' }, remoteAS: 'external' }),
    );
    await f.clients.bgpPeering.create(
      peering('router', {
        neighbor: { addresses: ['192.0.2.1'], vrf: 'tenant' },
        remoteASN: 65010,
        nodeSelector: onTenant,
      }),
    );
    // In the default VRF, no selector: every node.
    await f.clients.bgpPeering.create(
      peering('uplink', { neighbor: { addresses: ['192.0.2.254'] }, remoteASN: 65020 }),
    );
    // `uplink` is in the default VRF: the site allows peering there (--allow-default-vrf-peering).
    f.configurator = await startConfigurator(f.dc.kubeconfigPath, testPolicy(), {
      underlay: { defaultVrfPeering: true },
    });
    await completeFrom(f, 1);
    const ncs = (await f.clients.nodeConfig.list()).items.sort((a, b) =>
      a.metadata.name < b.metadata.name ? -1 : 1,
    );
    expect(ncs.map((nc) => [nc.metadata.name, (nc.spec.bgpPeering ?? []).map((p) => p.name)])).toEqual([
      ['node-000', ['router', 'uplink', 'workloads']],
      ['node-001', ['router', 'uplink', 'workloads']],
      ['node-002', ['uplink']],
      ['node-003', ['uplink']],
    ]);
    // The leader counts the nodes off its NodeConfig cache (summaries keep the peerings).
    const nodes = { router: 2, uplink: 4, workloads: 2 };
    await waitFor('BGPPeering status.nodes counted', async () => {
      const items = (await f.clients.bgpPeering.list()).items;
      return items.every((p) => p.status?.nodes === nodes[p.metadata.name as keyof typeof nodes])
        ? items
        : undefined;
    });
    const refused = peering('everywhere', {
      neighbor: { addresses: ['192.0.2.2'], vrf: 'tenant' },
      remoteASN: 65010,
    });
    await f.clients.bgpPeering.create(refused);
    const accepted = await waitFor('the unlimited tenant peering refused', async () => {
      const c = (await f.clients.bgpPeering.get('everywhere')).status?.conditions?.find(
        (x) => x.type === 'Accepted',
      );
      return c?.status === 'False' ? c : undefined;
    });
    expect(accepted.message).toContain('spec.nodeSelector: can reach nodes VRF tenant does not');
  });

  it('loopbacks stay across a revision, an agent restart and a leader change; a deleted node frees its address, a new one gets the lowest free', async () => {
    for (let i = 0; i < 3; i++) await createNode(f.clients, nodeName(i));
    f.agents = new SimulatedAgents({ kubeconfigPath: f.dc.kubeconfigPath, defaultDelayMs: 30 });
    await f.agents.start();
    await f.clients.vrf.create(tenant({ loopbacks: [{ name: 'lo', subnet: '10.255.0.0/29' }] }));
    f.configurator = await startConfigurator(f.dc.kubeconfigPath, testPolicy());
    const r1 = await completeFrom(f, 1);
    const first = { 'node-000': '10.255.0.1', 'node-001': '10.255.0.2', 'node-002': '10.255.0.3' };
    expect(addresses(r1)).toEqual(first);
    expect(await nodeConfigAddresses(f)).toEqual(first);

    // A new revision (an unrelated input): the same addresses.
    await f.clients.layer2.create(layer2('plain', 200));
    const r2 = await completeFrom(f, r1.spec.number + 1);
    expect(addresses(r2)).toEqual(first);

    // An agent restart: the agents read their NodeConfigs again; nothing is reallocated.
    await f.agents.stop();
    f.agents = new SimulatedAgents({ kubeconfigPath: f.dc.kubeconfigPath, defaultDelayMs: 30 });
    await f.agents.start();
    await f.clients.layer2.create(layer2('plain2', 201));
    const r3 = await completeFrom(f, r2.spec.number + 1);
    expect(addresses(r3)).toEqual(first);
    expect(await nodeConfigAddresses(f)).toEqual(first);

    // A leader change: this instance stops, another (which reads only the revisions) takes over.
    await f.configurator.stop();
    f.configurator = await startConfigurator(f.dc.kubeconfigPath, testPolicy(), { identity: 'second' });
    await f.clients.layer2.create(layer2('plain3', 202));
    const r4 = await completeFrom(f, r3.spec.number + 1);
    expect(addresses(r4)).toEqual(first);

    // node-002 NotReady keeps its address; node-001 deleted frees its own.
    await setNodeReady(f.clients, nodeName(2), false);
    await f.clients.node.delete(nodeName(1));
    const r5 = await waitFor('a revision without node-001', async () => {
      const newest = (await f.revisions()).at(-1);
      return newest && newest.spec.number > r4.spec.number && !addresses(newest)['node-001']
        ? newest
        : undefined;
    });
    expect(addresses(r5)).toEqual({ 'node-000': '10.255.0.1', 'node-002': '10.255.0.3' });

    // A new node gets the lowest free address: the one node-001 held.
    await createNode(f.clients, nodeName(9));
    const r6 = await waitFor('a revision with node-009', async () => {
      const newest = (await f.revisions()).at(-1);
      return newest && addresses(newest)['node-009'] ? newest : undefined;
    });
    expect(addresses(r6)).toEqual({
      'node-000': '10.255.0.1',
      'node-002': '10.255.0.3',
      'node-009': '10.255.0.2',
    });
  });
});
