import { canonicalJson, nodeConfigSpec, type NetworkConfig } from '@nodenet/api';
import { describe, expect, it } from 'vitest';
import { NodeSpecCache } from '@nodenet/configurator';

const l2 = (
  name: string,
  id: number,
  sel?: NetworkConfig['layer2'][number]['nodeSelector'],
): NetworkConfig['layer2'][number] => ({
  name,
  id,
  mtu: 1500,
  vni: 1000 + id,
  anycastGateways: [],
  advertiseNeighbors: false,
  createMacVLANInterface: false,
  neighSuppression: false,
  ...(sel ? { nodeSelector: sel } : {}),
});

const blueVrf = (over: Partial<NetworkConfig['vrf'][number]>): NetworkConfig['vrf'][number] => ({
  name: 'blue',
  vrf: 'blue',
  vni: 100,
  import: [],
  export: [],
  aggregate: [],
  seq: 10,
  mtu: 9000,
  ...over,
});

describe('NodeSpecCache', () => {
  const config: NetworkConfig = {
    vrf: [],
    routingTable: [],
    layer2: [
      l2('a', 1, { matchLabels: { rack: 'r1' } }),
      l2('b', 2, { matchExpressions: [{ key: 'edge', operator: 'DoesNotExist' }] }),
      l2('c', 3, { matchExpressions: [{ key: 'rack', operator: 'In', values: [''] }] }),
      l2('all', 4),
    ],
  };
  const rev = { config, hash: 'f'.repeat(64) };

  it.each([
    [{}],
    [{ rack: 'r1' }],
    [{ rack: 'r1', edge: 'x' }],
    [{ rack: '' }],
    [{ rack: 'r2', 'kubernetes.io/hostname': 'n1' }],
  ])('equals the direct computation for labels %j, also when served from the cache', (labels) => {
    const cache = new NodeSpecCache();
    // Warm the cache with other label sets first, so a wrong key would return a wrong spec.
    const others: Record<string, string>[] = [{}, { rack: 'r1' }, { rack: '' }, { edge: '' }];
    for (const other of others) cache.spec(rev, other);
    expect(canonicalJson(cache.spec(rev, labels))).toBe(canonicalJson(nodeConfigSpec(rev, labels)));
  });

  it("one labels object asked about another revision gets that revision's spec, and the first again", () => {
    const cache = new NodeSpecCache();
    const labels = { rack: 'r1' };
    const other = { config: { ...config, layer2: [l2('z', 9)] }, hash: 'e'.repeat(64) };
    expect(cache.spec(rev, labels).layer2.map((e) => e.name)).toEqual(['a', 'b', 'all']);
    expect(cache.spec(other, labels)).toEqual(nodeConfigSpec(other, labels));
    expect(cache.spec(rev, labels)).toEqual(nodeConfigSpec(rev, labels));
  });

  it('keys the cache on the label keys of VRF node selectors too', () => {
    const cache = new NodeSpecCache();
    const vrfRev = {
      config: {
        ...config,
        vrf: [blueVrf({ nodeSelector: { matchLabels: { zone: 'a' } } })],
      },
      hash: 'd'.repeat(64),
    };
    expect(cache.spec(vrfRev, { zone: 'a' }).vrf.map((v) => v.name)).toEqual(['blue']);
    expect(cache.spec(vrfRev, { zone: 'b' }).vrf).toEqual([]);
  });

  it('gives each node its own loopback address, even to nodes that share one labels object', () => {
    const cache = new NodeSpecCache();
    const entry = blueVrf({ loopbacks: [{ name: 'lo', subnet: '10.255.0.0/24' }] });
    const rev = {
      config: {
        ...config,
        vrf: [entry],
        loopbackAddresses: [
          { entry: 'blue', loopback: 'lo', node: 'n1', address: '10.255.0.1' },
          { entry: 'blue', loopback: 'lo', node: 'n2', address: '10.255.0.2' },
        ],
      },
      hash: 'c'.repeat(64),
    };
    const shared = {};
    const address = (node: string): string | undefined =>
      cache.spec(rev, shared, node).vrf[0]?.loopbackAddresses?.[0]?.address;
    expect([address('n1'), address('n2'), address('n1')]).toEqual(['10.255.0.1', '10.255.0.2', '10.255.0.1']);
  });
});
