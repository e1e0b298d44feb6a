/**
 * Per-node loopback allocation (`allocateLoopbacks`): sticky, lowest free address for a new node,
 * kept while a node exists whatever its readiness, freed when its Node is gone, never handed out
 * twice, and a shortage named when the subnet runs out; the node's addresses in its NodeConfig.
 */
import { describe, expect, it } from 'vitest';
import { allocateLoopbacks, buildConfig, nodeConfigSpec, shortageMessage, type VrfEntry } from '@nodenet/api';
import { goodInputs } from './fixtures.js';

const entry = (over: Partial<VrfEntry> = {}): VrfEntry => ({
  name: 'tenant',
  vrf: 'tenant',
  vni: 5000,
  import: [],
  export: [],
  aggregate: [],
  seq: 10,
  mtu: 9000,
  loopbacks: [{ name: 'lo', subnet: '10.255.0.0/29' }],
  ...over,
});
const node = (
  name: string,
  labels: Record<string, string> = {},
): { name: string; labels: Record<string, string> } => ({
  name,
  labels,
});
const addressOf = (r: ReturnType<typeof allocateLoopbacks>, n: string): string | undefined =>
  r.addresses.find((a) => a.node === n)?.address;

describe('allocateLoopbacks', () => {
  it('gives each node the lowest free address, skipping the network address, in node name order', () => {
    const r = allocateLoopbacks([], [entry()], [node('n2'), node('n1')]);
    expect(r.addresses.map((a) => [a.node, a.address])).toEqual([
      ['n1', '10.255.0.1'],
      ['n2', '10.255.0.2'],
    ]);
    expect(r.shortages).toEqual([]);
  });

  it('keeps every address across a new allocation, and a new node gets the lowest free one', () => {
    const first = allocateLoopbacks([], [entry()], [node('n1'), node('n2'), node('n3')]);
    const afterDelete = allocateLoopbacks(first.addresses, [entry()], [node('n1'), node('n3')]);
    expect(addressOf(afterDelete, 'n1')).toBe('10.255.0.1');
    expect(addressOf(afterDelete, 'n3')).toBe('10.255.0.3');
    expect(addressOf(afterDelete, 'n2')).toBeUndefined();
    // n2's address was freed with its Node: a node that joins now gets it (the lowest free).
    const joined = allocateLoopbacks(afterDelete.addresses, [entry()], [node('n1'), node('n3'), node('a0')]);
    expect(addressOf(joined, 'a0')).toBe('10.255.0.2');
    expect(addressOf(joined, 'n1')).toBe('10.255.0.1');
    // The same inputs give the same allocation (a restarted or new leader derives the same).
    expect(allocateLoopbacks(joined.addresses, [entry()], [node('a0'), node('n3'), node('n1')])).toEqual(
      joined,
    );
  });

  it('never hands out an address twice, even when the previous allocation does', () => {
    const previous = [
      { entry: 'tenant', loopback: 'lo', node: 'n1', address: '10.255.0.5' },
      { entry: 'tenant', loopback: 'lo', node: 'n2', address: '10.255.0.5' },
    ];
    const r = allocateLoopbacks(previous, [entry()], [node('n1'), node('n2')]);
    expect(addressOf(r, 'n1')).toBe('10.255.0.5');
    expect(addressOf(r, 'n2')).toBe('10.255.0.1');
  });

  it('gives up an address outside a changed subnet, and only selected nodes get one', () => {
    const previous = [{ entry: 'tenant', loopback: 'lo', node: 'n1', address: '10.255.0.1' }];
    const moved = entry({
      loopbacks: [{ name: 'lo', subnet: '10.254.0.0/30' }],
      nodeSelector: { matchLabels: { t: 'y' } },
    });
    const r = allocateLoopbacks(previous, [moved], [node('n1', { t: 'y' }), node('n2')]);
    expect(r.addresses.map((a) => [a.node, a.address])).toEqual([['n1', '10.254.0.1']]);
  });

  it('names the loopback and the nodes left without an address when the subnet runs out', () => {
    const small = entry({ loopbacks: [{ name: 'lo', subnet: '10.255.0.0/30' }] }); // .1 and .2
    const first = allocateLoopbacks([], [small], [node('n1'), node('n2')]);
    const r = allocateLoopbacks(first.addresses, [small], [node('n1'), node('n2'), node('n3'), node('n0')]);
    expect(addressOf(r, 'n1')).toBe('10.255.0.1');
    expect(addressOf(r, 'n2')).toBe('10.255.0.2');
    expect(r.shortages).toEqual([
      { entry: 'tenant', vrf: 'tenant', loopback: 'lo', subnet: '10.255.0.0/30', nodes: ['n0', 'n3'] },
    ]);
    expect(shortageMessage(r.shortages[0]!)).toBe(
      'VRFRouteConfiguration tenant: loopback lo of VRF tenant: subnet 10.255.0.0/30 is exhausted; no address for node(s) n0, n3',
    );
  });

  it('uses every address of a /32 and an IPv6 subnet from its first host address', () => {
    const r = allocateLoopbacks(
      [],
      [
        entry({
          loopbacks: [
            { name: 'one', subnet: '10.9.9.9/32' },
            { name: 'six', subnet: 'fd00:ff::/120' },
          ],
        }),
      ],
      [node('n1'), node('n2')],
    );
    expect(r.addresses.map((a) => [a.loopback, a.node, a.address])).toEqual([
      ['one', 'n1', '10.9.9.9'],
      ['six', 'n1', 'fd00:ff::1'],
      ['six', 'n2', 'fd00:ff::2'],
    ]);
    expect(r.shortages.map((s) => [s.loopback, s.nodes])).toEqual([['one', ['n2']]]);
  });
});

describe('nodeConfigSpec with loopback addresses', () => {
  it('gives a node its own address of each loopback, and none to a node the revision has none for', () => {
    const inputs = goodInputs();
    inputs.vrf[2]!.spec.loopbacks = [{ name: 'lo', subnet: '10.90.0.0/24' }];
    const built = buildConfig(inputs);
    const alloc = allocateLoopbacks([], built.config.vrf, [node('n1'), node('n2')]);
    const revision = { config: { ...built.config, loopbackAddresses: alloc.addresses }, hash: built.hash };
    const red = (n?: string) => nodeConfigSpec(revision, {}, n).vrf.find((v) => v.name === 'red');
    expect(red('n2')?.loopbackAddresses).toEqual([{ address: '10.90.0.2', name: 'lo' }]);
    expect(red('n3')?.loopbackAddresses).toBeUndefined();
    expect(red(undefined)?.loopbacks).toEqual([{ name: 'lo', subnet: '10.90.0.0/24' }]);
  });
});
