/**
 * `kubectl nodenet diff` validates as the configurator does (issue #37): with the Nodes' addresses
 * (read from the cluster) and the site's underlay flags (`--underlay-cidr`,
 * `--allow-default-vrf-peering`, `--allow-default-route-import`, taken as the configurator takes
 * them). Before, a peering the configurator refuses (a neighbour that is a node's own address, a
 * listen range over the underlay) previewed as a change that would roll out.
 */
import { API_VERSION, nodeAddressesOf, siteUnderlayOf, validateInputs, type Inputs } from '@nodenet/api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  cli,
  createNodes,
  createRevision,
  inputsOf,
  layer2,
  startTestCluster,
  type TestCluster,
} from './support.js';

let tc: TestCluster;
beforeEach(async () => {
  tc = await startTestCluster();
  await createNodes(tc, { 'node-1': {}, 'node-2': {} });
  for (const [name, address] of [
    ['node-1', '172.16.0.11'],
    ['node-2', '172.16.0.12'],
  ] as const)
    await tc.clients.node.patchStatus(name, { status: { addresses: [{ type: 'InternalIP', address }] } });
  await createRevision(tc, 1, inputsOf([]), { total: 2, ready: 2, completedAt: '2026-01-01T00:00:00Z' });
});
afterEach(async () => tc.stop());

const red = {
  apiVersion: API_VERSION,
  kind: 'VRFRouteConfiguration',
  metadata: { name: 'red' },
  spec: { vrf: 'red', vni: 200, seq: 10, mtu: 1500 },
} as const;
const peering = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: API_VERSION,
  kind: 'BGPPeering',
  metadata: { name },
  spec,
});

/** What the configurator's validation says of the inputs in the cluster, with the same underlay. */
async function configuratorSays(flags: Parameters<typeof siteUnderlayOf>[0]): Promise<string[]> {
  const inputs: Inputs = {
    vrf: (await tc.clients.vrf.list()).items,
    layer2: (await tc.clients.layer2.list()).items,
    routingTable: [],
    bgpPeering: (await tc.clients.bgpPeering.list()).items,
  };
  const underlay = {
    ...siteUnderlayOf(flags),
    nodeAddresses: nodeAddressesOf((await tc.clients.node.list()).items),
  };
  return validateInputs(inputs, { underlay }).map((p) => p.message);
}

describe('kubectl nodenet diff with the underlay the configurator validates against', () => {
  it("refuses a neighbour that is a Node's own address, read from the cluster", async () => {
    await tc.clients.vrf.create(red as never);
    await tc.clients.bgpPeering.create(
      peering('router', { neighbor: { addresses: ['172.16.0.11'], vrf: 'red' }, remoteASN: 65010 }) as never,
    );
    const expected = await configuratorSays({});
    expect(expected.join('\n')).toContain('is the address of Node node-1');
    const d = await cli(tc, ['diff']);
    expect(d.code).toBe(4);
    expect(d.out).toContain('BGPPeering/router: refused:');
    expect(d.out).toContain('spec.neighbor.addresses[0]: is the address of Node node-1');
  });

  it('takes --underlay-cidr and --allow-default-vrf-peering as the configurator does', async () => {
    await tc.clients.layer2.create(
      layer2('edge', 30, {
        anycastMac: '02:00:5E:00:01:30',
        anycastGateways: ['172.16.200.1/24'],
        peering: { defaultVrf: true },
      }) as never,
    );
    await tc.clients.bgpPeering.create(
      peering('edge-lb', { listenRange: { layer2: 'edge' }, remoteAS: 'external' }) as never,
    );
    // Without the site's prefix the range covers no node: both accept it, and diff shows the change.
    expect(await configuratorSays({})).toEqual([]);
    const accepted = await cli(tc, ['diff']);
    expect(accepted.code).toBe(1);
    expect(accepted.out).not.toContain('refused');
    // With it, both refuse it, naming the field and the prefix.
    const flags = { underlayCidr: '172.16.0.0/16' };
    expect((await configuratorSays(flags)).join('\n')).toContain('covers the underlay prefix 172.16.0.0/16');
    const refused = await cli(tc, ['diff', '--underlay-cidr', '172.16.0.0/16']);
    expect(refused.code).toBe(4);
    expect(refused.out).toContain(
      'BGPPeering/edge-lb: refused: BGPPeering edge-lb: spec.listenRange.layer2: listen range 172.16.200.0/24 covers the underlay prefix 172.16.0.0/16 (--underlay-cidr)',
    );
    // A bad flag value is a usage error naming it.
    const bad = await cli(tc, ['diff', '--underlay-cidr', '172.16.0.1/16']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--underlay-cidr');
  });

  it('--allow-default-vrf-peering lets a default-VRF neighbour through, as the site flag does', async () => {
    await tc.clients.bgpPeering.create(
      peering('fabric', { neighbor: { addresses: ['192.0.2.1'] }, remoteASN: 65010 }) as never,
    );
    expect((await configuratorSays({})).join('\n')).toContain('--allow-default-vrf-peering');
    expect((await cli(tc, ['diff'])).code).toBe(4);
    expect(await configuratorSays({ allowDefaultVrfPeering: true })).toEqual([]);
    expect((await cli(tc, ['diff', '--allow-default-vrf-peering'])).code).toBe(1);
  });
});
