/**
 * `kubectl nodenet diff` for a VRF's loopbacks and static routes: per node, the address each node
 * gets and the routes that change. The preview (no arguments: the current inputs) allocates the
 * addresses with the configurator's own function (configWithLoopbacks), from the newest revision
 * and the Nodes, so a node that has none yet is shown the one it will get.
 */
import {
  API_VERSION,
  buildConfig,
  configWithLoopbacks,
  revisionName,
  type Inputs,
  type VRFRouteConfiguration,
} from '@nodenet/api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli, createNodes, startTestCluster, type TestCluster } from './support.js';

const tenant = (spec: Partial<VRFRouteConfiguration['spec']> = {}): VRFRouteConfiguration => ({
  apiVersion: API_VERSION,
  kind: 'VRFRouteConfiguration',
  metadata: { name: 'tenant' },
  spec: { vrf: 'tenant', vni: 5000, seq: 10, loopbacks: [{ name: 'lo', subnet: '10.255.0.0/29' }], ...spec },
});
const inputs = (v: VRFRouteConfiguration): Inputs => ({ vrf: [v], layer2: [], routingTable: [] });

let tc: TestCluster;
beforeEach(async () => {
  tc = await startTestCluster();
  await createNodes(tc, { 'node-1': { zone: 'a' }, 'node-2': {}, 'node-3': {} });
});
afterEach(async () => tc.stop());

describe('diff: loopbacks and static routes', () => {
  it('shows the address a new node will get and a static route added, per node', async () => {
    // Revision 1 was built while node-1 and node-2 existed: node-3 has no address yet.
    const nodes = ['node-1', 'node-2'].map((name) => ({ name, labels: {} }));
    const { config, hash } = configWithLoopbacks(buildConfig(inputs(tenant())), [], nodes);
    await tc.clients.revision.create({
      apiVersion: API_VERSION,
      kind: 'NetworkConfigRevision',
      metadata: { name: revisionName(1, hash) },
      spec: { config, hash, number: 1 },
    });
    await tc.clients.vrf.create(
      tenant({
        staticRoutes: [{ prefix: '10.50.0.0/16', nextHopVRF: 'default', nextHop: '192.0.2.1', onlink: true }],
      }),
    );
    const r = await cli(tc, ['diff']);
    expect(r.out).toContain('3 of 3 nodes change.');
    expect(r.out).toContain(
      'node-1\n  ~ VRF          tenant  changed: staticRoutes (unset) → 10.50.0.0/16 via 192.0.2.1 vrf default onlink',
    );
    expect(r.out).toContain(
      'node-3\n  ~ VRF          tenant  changed: loopbackAddresses (unset) → lo=10.255.0.3, staticRoutes (unset) → 10.50.0.0/16 via 192.0.2.1 vrf default onlink',
    );
    expect(r.out).not.toMatch(/node-[12]\n.*loopbackAddresses/);
  });

  // Issue 38 item 6: a new VRF read "+ VRF tenant added": its addresses and routes were hidden.
  it('a new VRF shows, per node, the loopback address it gets and its static routes', async () => {
    await tc.clients.vrf.create(
      tenant({
        staticRoutes: [{ prefix: '10.50.0.0/16', nextHopVRF: 'default', nextHop: '192.0.2.1', onlink: true }],
      }),
    );
    const r = await cli(tc, ['diff']);
    expect(r.out).toContain('3 of 3 nodes change.');
    const routes = 'staticRoutes 10.50.0.0/16 via 192.0.2.1 vrf default onlink';
    for (const [node, address] of [
      ['node-1', '10.255.0.1'],
      ['node-2', '10.255.0.2'],
      ['node-3', '10.255.0.3'],
    ])
      expect(r.out).toContain(
        `${node}\n  + VRF          tenant  added: loopbackAddresses lo=${address}, ${routes}  (new VRFRouteConfiguration)`,
      );
    const json = JSON.parse((await cli(tc, ['diff', '-o', 'json'])).out) as {
      nodes: { node: string; changes: { change: string; values?: { field: string; to: string }[] }[] }[];
    };
    expect(json.nodes[0]?.changes[0]?.values).toEqual([
      { field: 'loopbackAddresses', from: '(unset)', to: 'lo=10.255.0.1' },
      { field: 'staticRoutes', from: '(unset)', to: '10.50.0.0/16 via 192.0.2.1 vrf default onlink' },
    ]);
  });

  it('names the node selector when a VRF leaves a node', async () => {
    const plain = tenant({ loopbacks: [] });
    const { config, hash } = buildConfig(inputs(plain));
    await tc.clients.revision.create({
      apiVersion: API_VERSION,
      kind: 'NetworkConfigRevision',
      metadata: { name: revisionName(1, hash) },
      spec: { config, hash, number: 1 },
    });
    await tc.clients.vrf.create(tenant({ loopbacks: [], nodeSelector: { matchLabels: { zone: 'a' } } }));
    const r = await cli(tc, ['diff']);
    expect(r.out).toContain('2 of 3 nodes change.');
    expect(r.out).toContain(
      'node-2\n  - VRF          tenant  removed  (nodeSelector changed from (all nodes) to zone=a: no longer selects this node)',
    );
  });
});
