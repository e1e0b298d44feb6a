/**
 * BGPPeering validation corpus (issue #28): each case changes one thing in a valid input set with
 * two peerings and names the one problem it must produce; the merge and the per-node filter.
 */
import { describe, expect, it } from 'vitest';
import { buildConfig, nodeConfigSpec, peeringCounts, validateInputs, type Inputs } from '@nodenet/api';
import { goodInputs, inputsWithPeerings, peering } from './fixtures.js';

const workloads = (i: Inputs): any => i.bgpPeering![0]!.spec;
const router = (i: Inputs): any => i.bgpPeering![1]!.spec;
const red = (i: Inputs): any => i.vrf.find((v) => v.metadata.name === 'red')!.spec;
const P = 'BGPPeering';

const BAD: { name: string; mutate: (i: Inputs) => void; message: string }[] = [
  {
    name: 'both modes',
    mutate: (i) => (workloads(i).neighbor = { addresses: ['192.0.2.9'] }),
    message: `${P} workloads: spec: exactly one of listenRange and neighbor must be set`,
  },
  {
    name: 'neither mode',
    mutate: (i) => delete workloads(i).listenRange,
    message: `${P} workloads: spec: exactly one of listenRange and neighbor must be set`,
  },
  {
    name: 'remoteASN and remoteAS',
    mutate: (i) => (workloads(i).remoteASN = 65001),
    message: `${P} workloads: spec: exactly one of remoteASN and remoteAS must be set`,
  },
  {
    name: 'no remote AS',
    mutate: (i) => delete router(i).remoteASN,
    message: `${P} router: spec: exactly one of remoteASN and remoteAS must be set`,
  },
  {
    name: 'remote AS kind unknown',
    mutate: (i) => (workloads(i).remoteAS = 'confederation'),
    message: `${P} workloads: spec.remoteAS: must be one of internal, external (got "confederation")`,
  },
  {
    name: 'remoteASN zero',
    mutate: (i) => (router(i).remoteASN = 0),
    message: `${P} router: spec.remoteASN: must be at least 1 (got 0)`,
  },
  {
    name: 'holdTime without keepaliveTime',
    mutate: (i) => delete workloads(i).keepaliveTime,
    message: `${P} workloads: spec.keepaliveTime: holdTime and keepaliveTime must be set together`,
  },
  {
    name: 'keepalive more than a third of hold',
    mutate: (i) => (workloads(i).keepaliveTime = 4),
    message: `${P} workloads: spec.keepaliveTime: must be at most a third of holdTime (9) (got 4)`,
  },
  {
    name: 'holdTime below 3',
    mutate: (i) => (workloads(i).holdTime = 2),
    message: `${P} workloads: spec.holdTime: must be at least 3 (got 2)`,
  },
  {
    name: 'neighbour address not an address',
    mutate: (i) => (router(i).neighbor.addresses[0] = '192.0.2.300'),
    message: `${P} router: spec.neighbor.addresses[0]: "192.0.2.300" is not a valid IPv4 address (four decimal octets) (got "192.0.2.300")`,
  },
  {
    name: 'neighbour address with a prefix length',
    mutate: (i) => (router(i).neighbor.addresses[0] = '192.0.2.0/24'),
    message: `${P} router: spec.neighbor.addresses[0]: must be an IPv4 or IPv6 address without a prefix length (got "192.0.2.0/24")`,
  },
  {
    name: 'neighbour address twice, spelled differently',
    mutate: (i) => router(i).neighbor.addresses.push('2001:db8:0::1'),
    message: `${P} router: spec.neighbor.addresses[2]: duplicates spec.neighbor.addresses[1] (got "2001:db8:0::1")`,
  },
  {
    name: 'no neighbour address',
    mutate: (i) => (router(i).neighbor.addresses = []),
    message: `${P} router: spec.neighbor.addresses: must have at least 1 item (got 0)`,
  },
  {
    name: 'ebgpMultihop zero',
    mutate: (i) => (router(i).neighbor.ebgpMultihop = 0),
    message: `${P} router: spec.neighbor.ebgpMultihop: must be at least 1 (got 0)`,
  },
  {
    name: 'neighbour VRF not defined',
    mutate: (i) => (router(i).neighbor.vrf = 'green'),
    message: `${P} router: spec.neighbor.vrf: names a VRF no VRFRouteConfiguration defines (got "green")`,
  },
  {
    name: 'neighbour peering reaching nodes its VRF does not',
    mutate: (i) => (red(i).nodeSelector = { matchLabels: { role: 'border' } }),
    message: `${P} router: spec.nodeSelector: can reach nodes VRF red does not: it must include every matchLabels entry and matchExpressions requirement of the nodeSelector of one of the VRF's objects (VRFRouteConfiguration red: role=border)`,
  },
  {
    name: 'listen range on a network that does not exist',
    mutate: (i) => (workloads(i).listenRange.layer2 = 'nope'),
    message: `${P} workloads: spec.listenRange.layer2: names no Layer2NetworkConfiguration (got "nope")`,
  },
  {
    name: 'listen range on a network without gateways',
    mutate: (i) => (workloads(i).listenRange.layer2 = 'storage'),
    message: `${P} workloads: spec.listenRange.layer2: has no anycastGateways: a listen range is the subnet of a gateway (got "storage")`,
  },
  {
    name: 'second listen range on one network',
    mutate: (i) =>
      i.bgpPeering!.push(peering('zz-again', { listenRange: { layer2: 'web' }, remoteAS: 'internal' })),
    message: `${P} zz-again: spec.listenRange.layer2: is already listened on by ${P} workloads (got "web")`,
  },
  {
    name: 'one neighbour in two peerings of one VRF',
    mutate: (i) =>
      i.bgpPeering!.push(
        peering('zz-router', { neighbor: { addresses: ['192.0.2.1'], vrf: 'red' }, remoteAS: 'internal' }),
      ),
    message: `${P} zz-router: spec.neighbor.addresses[0]: is already a neighbour of ${P} router in VRF red (got "192.0.2.1")`,
  },
  {
    name: 'address family twice',
    mutate: (i) => (router(i).addressFamilies = ['ipv4', 'ipv4']),
    message: `${P} router: spec.addressFamilies[1]: duplicates spec.addressFamilies[0] (got "ipv4")`,
  },
  {
    name: 'no address family',
    mutate: (i) => (router(i).addressFamilies = []),
    message: `${P} router: spec.addressFamilies: must name ipv4, ipv6 or both (got [])`,
  },
  {
    name: 'address family unknown',
    mutate: (i) => (router(i).addressFamilies = ['l2vpn']),
    message: `${P} router: spec.addressFamilies[0]: must be one of ipv4, ipv6 (got "l2vpn")`,
  },
  {
    name: 'import item with host bits',
    mutate: (i) => (workloads(i).import[0].cidr = '10.10.0.1/16'),
    message: `${P} workloads: spec.import[0].cidr: host bits are set; the network is 10.10.0.0/16 (got "10.10.0.1/16")`,
  },
  {
    name: 'import item repeated',
    mutate: (i) => workloads(i).import.push({ cidr: '10.10.0.0/16', seq: 20, le: 32, action: 'permit' }),
    message: `${P} workloads: spec.import[1].cidr: duplicates spec.import[0] (same prefix, action, ge and le) (got "10.10.0.0/16")`,
  },
  {
    name: 'export seq repeated',
    mutate: (i) => router(i).export.push({ cidr: '10.30.0.0/16', seq: 5, action: 'permit' }),
    message: `${P} router: spec.export[1].seq: duplicates spec.export[0].seq (got 5)`,
  },
  {
    name: 'import community out of range',
    mutate: (i) => (workloads(i).importCommunities = ['65536:1']),
    message: `${P} workloads: spec.importCommunities[0]: has a part out of range (16-bit AA:NN, 32-bit A:B:C) (got "65536:1")`,
  },
  {
    name: 'import community twice',
    mutate: (i) => workloads(i).importCommunities.push('65000:7'),
    message: `${P} workloads: spec.importCommunities[1]: duplicates spec.importCommunities[0] (got "65000:7")`,
  },
  {
    name: 'BFD multiplier 1',
    mutate: (i) => (workloads(i).bfd.detectMultiplier = 1),
    message: `${P} workloads: spec.bfd.detectMultiplier: must be at least 2 (got 1)`,
  },
  {
    name: 'BFD interval below 10 ms',
    mutate: (i) => (workloads(i).bfd.receiveInterval = 5),
    message: `${P} workloads: spec.bfd.receiveInterval: must be at least 10 (got 5)`,
  },
  {
    name: 'maxPrefixes zero',
    mutate: (i) => (workloads(i).maxPrefixes.ipv4 = 0),
    message: `${P} workloads: spec.maxPrefixes.ipv4: must be at least 1 (got 0)`,
  },
  {
    name: 'selector operator unknown',
    mutate: (i) => (workloads(i).nodeSelector = { matchExpressions: [{ key: 'a', operator: 'Is' }] }),
    message: `${P} workloads: spec.nodeSelector.matchExpressions[0].operator: must be one of In, NotIn, Exists, DoesNotExist (got "Is")`,
  },
  {
    name: 'name too long for FRR names',
    mutate: (i) => (i.bgpPeering![1]!.metadata.name = 'r'.repeat(49)),
    message: `${P} ${'r'.repeat(49)}: metadata.name: must be at most 48 characters: it names the peering's FRR peer-group, filters and BFD profile (got 49)`,
  },
];

describe('BGPPeering validation corpus', () => {
  it('accepts the good peerings', () => {
    expect(validateInputs(inputsWithPeerings())).toEqual([]);
  });
  it("accepts a neighbour peering in a limited VRF whose selector narrows the VRF's", () => {
    const inputs = inputsWithPeerings();
    red(inputs).nodeSelector = { matchLabels: { role: 'border' } };
    router(inputs).nodeSelector = { matchLabels: { role: 'border', rack: 'r1' } };
    expect(validateInputs(inputs)).toEqual([]);
  });
  it('a listen-range peering is bounded by its network, not checked against the VRF', () => {
    // workloads selects bgp=yes, which alone would reach nodes VRF blue does not once blue is
    // limited; it reaches only nodes its network web reaches, and web's own rule keeps those in blue.
    const inputs = inputsWithPeerings();
    for (const v of inputs.vrf)
      if (v.spec.vrf === 'blue') v.spec.nodeSelector = { matchLabels: { role: 'worker' } };
    expect(workloads(inputs).nodeSelector).toEqual({ matchLabels: { bgp: 'yes' } });
    expect(validateInputs(inputs)).toEqual([]);
  });
  it.each(BAD)('$name', ({ mutate, message }) => {
    const inputs = inputsWithPeerings();
    mutate(inputs);
    expect(validateInputs(inputs).map((p) => p.message)).toEqual([message]);
  });
});

describe('BGPPeering merge and per-node filter', () => {
  const { config, hash } = buildConfig(inputsWithPeerings());
  const revision = { config, hash };

  it('keeps a config without peerings hashing as before peerings existed', () => {
    const without = goodInputs();
    expect(buildConfig({ ...without, bgpPeering: [] }).hash).toBe(buildConfig(without).hash);
  });

  it('gives a listen-range peering only to nodes both it and its network select', () => {
    const names = (labels: Record<string, string>): string[] =>
      (nodeConfigSpec(revision, labels).bgpPeering ?? []).map((p) => p.name);
    expect(names({ role: 'worker', bgp: 'yes' })).toEqual(['router', 'workloads']);
    expect(names({ role: 'worker' })).toEqual(['router']);
    expect(names({ bgp: 'yes' })).toEqual(['router']);
  });

  it('gives a peering only to nodes its VRF reaches (a VRF node selector takes its peerings along)', () => {
    // Validation refuses this router (its selector does not imply red's); the per-node filter holds anyway.
    const inputs = inputsWithPeerings();
    red(inputs).nodeSelector = { matchLabels: { role: 'border' } };
    const limited = buildConfig(inputs);
    const names = (labels: Record<string, string>): string[] =>
      (nodeConfigSpec(limited, labels).bgpPeering ?? []).map((p) => p.name);
    expect(names({ role: 'border' })).toEqual(['router']);
    expect(names({ role: 'worker' })).toEqual([]);
  });

  it('resolves the listen range to the network subnets and VRF', () => {
    const spec = nodeConfigSpec(revision, { role: 'worker', bgp: 'yes' });
    expect(spec.bgpPeering?.find((p) => p.name === 'workloads')).toEqual({
      addressFamilies: ['ipv4', 'ipv6'],
      bfd: { receiveInterval: 100, transmitInterval: 100, detectMultiplier: 5 },
      export: [],
      holdTime: 9,
      import: [{ action: 'permit', cidr: '10.10.0.0/16', le: 32, seq: 10 }],
      importCommunities: ['65000:7'],
      keepaliveTime: 3,
      listenRanges: ['10.10.0.0/24', '2001:db8:10::/64'],
      maxPrefixes: { ipv4: 100, ipv6: 1000 },
      name: 'workloads',
      neighbors: [],
      remoteAS: 'external',
      vrf: 'blue',
    });
    expect(spec.bgpPeering?.find((p) => p.name === 'router')).toMatchObject({
      neighbors: ['192.0.2.1', '2001:db8::1'],
      remoteAS: '65010',
      vrf: 'red',
      ebgpMultihop: 2,
      listenRanges: [],
    });
  });
});

describe('BGPPeering status counts', () => {
  const { config, hash } = buildConfig(inputsWithPeerings());
  const session = (vrf: string, peer: string, state = 'Established') => ({ vrf, peer, state });

  it('counts the nodes a peering reaches and the Established sessions in its instance and ranges', () => {
    const worker = nodeConfigSpec({ config, hash }, { role: 'worker', bgp: 'yes' });
    const plain = nodeConfigSpec({ config, hash }, {});
    const counts = peeringCounts([
      {
        spec: worker,
        status: {
          observed: {
            bgpSessions: [
              session('vr.blue', '10.10.0.7'), // in the listen range: workloads
              session('vr.blue', '10.10.0.8', 'Active'), // not Established
              session('vr.blue', '10.11.0.7'), // outside the range
              session('vr.red', '2001:db8::1'), // router's neighbour
              session('default', '192.0.2.1'), // router's address, but another instance
            ],
          },
        },
      },
      { spec: plain, status: { observed: { bgpSessions: [session('vr.red', '192.0.2.1')] } } },
    ]);
    expect(counts.get('workloads')).toEqual({ nodes: 1, established: 1 });
    expect(counts.get('router')).toEqual({ nodes: 2, established: 2 });
  });

  it("counts a peer once per node, however often one node's status lists it (issue #37)", () => {
    const worker = nodeConfigSpec({ config, hash }, { role: 'worker', bgp: 'yes' });
    const fake = Array.from({ length: 1500 }, () => session('vr.blue', '10.10.0.7'));
    const spelled = [session('vr.red', '2001:db8::1'), session('vr.red', '2001:DB8:0::1')];
    const outside = Array.from({ length: 50 }, (_, i) => session('vr.blue', `10.99.0.${i}`));
    const counts = peeringCounts([
      { spec: worker, status: { observed: { bgpSessions: [...fake, ...spelled, ...outside] } } },
    ]);
    expect(counts.get('workloads')).toEqual({ nodes: 1, established: 1 });
    expect(counts.get('router')).toEqual({ nodes: 1, established: 1 });
  });
});
