/**
 * Who may touch the underlay (issue #37): each case changes one thing in a valid input set that has
 * a peering in the default VRF (on a network whose owner allows it) and names the one problem it
 * must produce, field and value included. The node addresses and the underlay prefix come in as the
 * configurator hands them to validation (UnderlayContext, from the Nodes' status and its flags).
 */
import { describe, expect, it } from 'vitest';
import {
  buildConfig,
  nodeAddressesOf,
  nodeConfigSpec,
  validateInputs,
  type Inputs,
  type UnderlayContext,
} from '@nodenet/api';
import { inputsWithPeerings, layer2, peering } from './fixtures.js';

const NODES = [
  {
    metadata: { name: 'node-1' },
    status: {
      addresses: [
        { type: 'InternalIP', address: '172.16.0.11' },
        { type: 'InternalIP', address: 'fd00:16::11' },
        { type: 'Hostname', address: 'node-1' },
      ],
    },
  },
  { metadata: { name: 'node-2' }, status: { addresses: [{ type: 'ExternalIP', address: '172.16.0.12' }] } },
];
const UNDERLAY: UnderlayContext = {
  nodeAddresses: nodeAddressesOf(NODES),
  cidrs: ['172.16.0.0/16', 'fd00:16::/64'],
};

/** inputsWithPeerings plus `edge`, a default-VRF network whose owner allows peering, and `edge-lb` on it. */
function inputs(): Inputs {
  const i = inputsWithPeerings();
  i.layer2.push(
    layer2('edge', {
      id: 30,
      vni: 10030,
      anycastMac: '02:00:5E:00:01:30',
      anycastGateways: ['192.168.50.1/24', '2001:db8:50::1/64'],
      peering: { defaultVrf: true, admit: ['system:serviceaccounts:team-a'] },
    }),
  );
  // Peerings with owners (a tenant's): the networks and VRFs they use admit them.
  i.vrf.find((v) => v.metadata.name === 'red')!.spec.peering = { admit: ['jane@example.com'] };
  i.bgpPeering!.find((p) => p.metadata.name === 'router')!.spec.owner = 'jane@example.com';
  i.bgpPeering!.push(
    peering('edge-lb', {
      listenRange: { layer2: 'edge' },
      owner: 'system:serviceaccount:team-a:lb',
      remoteAS: 'external',
      import: [{ cidr: '10.96.0.0/12', seq: 10, le: 32, action: 'permit' }],
    }),
  );
  return i;
}

const router = (i: Inputs): any => i.bgpPeering!.find((p) => p.metadata.name === 'router')!.spec;
const edgeLb = (i: Inputs): any => i.bgpPeering!.find((p) => p.metadata.name === 'edge-lb')!.spec;
const edge = (i: Inputs): any => i.layer2.find((l) => l.metadata.name === 'edge')!.spec;
const P = 'BGPPeering';
const DEFAULT_ROUTE =
  "imports the default route into the default VRF: allowed only by the network's spec.peering.defaultRoute or the site's --allow-default-route-import";

interface Case {
  name: string;
  mutate: (i: Inputs) => void;
  message: string;
  underlay?: UnderlayContext;
}
const neighbour = (address: string, reason: string): Case => ({
  name: `neighbour ${address}`,
  mutate: (i) => (router(i).neighbor.addresses[0] = address),
  message: `${P} router: spec.neighbor.addresses[0]: ${reason} (got "${address}")`,
});

const BAD: Case[] = [
  neighbour('0.0.0.0', 'is the unspecified address, not a peer'),
  neighbour('::', 'is the unspecified address, not a peer'),
  neighbour('127.0.0.1', "is a loopback address: the node's own"),
  neighbour('127.3.2.1', "is a loopback address: the node's own"),
  neighbour('::1', "is a loopback address: the node's own"),
  neighbour('255.255.255.255', 'is the broadcast address, not a peer'),
  neighbour('224.0.0.5', 'is a multicast address, not a peer'),
  neighbour('ff02::5', 'is a multicast address, not a peer'),
  neighbour('fe80::1', 'is link-local: it needs an interface, which a neighbour can not name'),
  neighbour('169.254.1.1', 'is link-local: it needs an interface, which a neighbour can not name'),
  neighbour('0.1.2.3', 'is in 0.0.0.0/8 ("this network"), not a peer'),
  neighbour('240.0.0.1', 'is in the reserved range 240.0.0.0/4, not a peer'),
  neighbour('172.16.0.11', 'is the address of Node node-1: a node can not peer with itself'),
  neighbour('FD00:16:0::11', 'is the address of Node node-1: a node can not peer with itself'),
  neighbour('172.16.0.12', 'is the address of Node node-2: a node can not peer with itself'),
  {
    name: 'a later neighbour address a loopback',
    mutate: (i) => router(i).neighbor.addresses.push('127.0.0.53'),
    message: `${P} router: spec.neighbor.addresses[2]: is a loopback address: the node's own (got "127.0.0.53")`,
  },
  {
    name: "an admin's neighbour in the default VRF without the site allowing it",
    mutate: (i) => {
      delete router(i).owner;
      delete router(i).neighbor.vrf;
    },
    message: `${P} router: spec.neighbor.vrf: must name a VRF: peering in the default VRF (the underlay) needs the site's --allow-default-vrf-peering`,
  },
  {
    name: 'listen range on a default-VRF network whose owner did not allow it',
    mutate: (i) => delete edge(i).peering.defaultVrf,
    message: `${P} edge-lb: spec.listenRange.layer2: is in the default VRF (the underlay): peering there needs the network's spec.peering.defaultVrf or the site's --allow-default-vrf-peering (got "edge")`,
  },
  {
    name: 'listen range on a default-VRF network that says defaultVrf: false',
    mutate: (i) => Object.assign(edge(i).peering, { defaultVrf: false, defaultRoute: true }),
    message: `${P} edge-lb: spec.listenRange.layer2: is in the default VRF (the underlay): peering there needs the network's spec.peering.defaultVrf or the site's --allow-default-vrf-peering (got "edge")`,
  },
  {
    name: "the issue's /8 gateway over the nodes' addresses",
    mutate: (i) => (edge(i).anycastGateways = ['172.0.0.1/8']),
    message: `${P} edge-lb: spec.listenRange.layer2: listen range 172.0.0.0/8 covers the address 172.16.0.11 of Node node-1 (got "edge")`,
  },
  {
    name: 'listen range inside the underlay prefix, no node in it',
    mutate: (i) => (edge(i).anycastGateways = ['172.16.200.1/24']),
    message: `${P} edge-lb: spec.listenRange.layer2: listen range 172.16.200.0/24 covers the underlay prefix 172.16.0.0/16 (--underlay-cidr) (got "edge")`,
  },
  {
    name: "IPv6 listen range over a node's address",
    mutate: (i) => (edge(i).anycastGateways = ['192.168.50.1/24', 'fd00:16::1/64']),
    message: `${P} edge-lb: spec.listenRange.layer2: listen range fd00:16::/64 covers the address fd00:16::11 of Node node-1 (got "edge")`,
  },
  {
    name: "the issue's import 0.0.0.0/0 le 32",
    mutate: (i) => (edgeLb(i).import = [{ cidr: '0.0.0.0/0', seq: 10, le: 32, action: 'permit' }]),
    message: `${P} edge-lb: spec.import[0].cidr: ${DEFAULT_ROUTE} (got "0.0.0.0/0")`,
  },
  {
    name: 'import of the default route alone',
    mutate: (i) => edgeLb(i).import.push({ cidr: '0.0.0.0/0', seq: 20, action: 'permit' }),
    message: `${P} edge-lb: spec.import[1].cidr: ${DEFAULT_ROUTE} (got "0.0.0.0/0")`,
  },
  {
    name: 'import of the IPv6 default route',
    mutate: (i) => edgeLb(i).import.push({ cidr: '::/0', seq: 20, action: 'permit' }),
    message: `${P} edge-lb: spec.import[1].cidr: ${DEFAULT_ROUTE} (got "::/0")`,
  },
  {
    name: 'default route allowed, but le 32 takes every more specific route too',
    mutate: (i) => {
      edge(i).peering.defaultRoute = true;
      edgeLb(i).import = [{ cidr: '0.0.0.0/0', seq: 10, le: 32, action: 'permit' }];
    },
    message: `${P} edge-lb: spec.import[0].cidr: accepts routes covering the address 172.16.0.11 of Node node-1 into the default VRF (got "0.0.0.0/0")`,
  },
  {
    name: "import over the nodes' addresses",
    mutate: (i) => edgeLb(i).import.push({ cidr: '172.16.0.0/16', seq: 20, le: 32, action: 'permit' }),
    message: `${P} edge-lb: spec.import[1].cidr: accepts routes covering the address 172.16.0.11 of Node node-1 into the default VRF (got "172.16.0.0/16")`,
  },
  {
    name: "import of a node's host route",
    mutate: (i) => edgeLb(i).import.push({ cidr: '172.16.0.12/32', seq: 20, action: 'permit' }),
    message: `${P} edge-lb: spec.import[1].cidr: accepts routes covering the address 172.16.0.12 of Node node-2 into the default VRF (got "172.16.0.12/32")`,
  },
  {
    name: 'import with ge over the nodes',
    mutate: (i) => edgeLb(i).import.push({ cidr: '172.0.0.0/8', seq: 20, ge: 24, le: 32, action: 'permit' }),
    message: `${P} edge-lb: spec.import[1].cidr: accepts routes covering the address 172.16.0.11 of Node node-1 into the default VRF (got "172.0.0.0/8")`,
  },
  {
    name: 'import inside the underlay prefix, no node in it',
    mutate: (i) => edgeLb(i).import.push({ cidr: '172.16.128.0/17', seq: 20, le: 32, action: 'permit' }),
    message: `${P} edge-lb: spec.import[1].cidr: accepts routes covering the underlay prefix 172.16.0.0/16 (--underlay-cidr) into the default VRF (got "172.16.128.0/17")`,
  },
  {
    name: "IPv6 import over a node's address",
    mutate: (i) => edgeLb(i).import.push({ cidr: 'fd00:16::/48', seq: 20, le: 128, action: 'permit' }),
    message: `${P} edge-lb: spec.import[1].cidr: accepts routes covering the address fd00:16::11 of Node node-1 into the default VRF (got "fd00:16::/48")`,
  },
  {
    name: 'neighbour in the default VRF, site allows it, importing the default route',
    underlay: { ...UNDERLAY, defaultVrfPeering: true },
    mutate: (i) => {
      delete router(i).owner;
      delete router(i).neighbor.vrf;
      router(i).import = [{ cidr: '0.0.0.0/0', seq: 5, le: 32, action: 'permit' }];
    },
    message: `${P} router: spec.import[0].cidr: ${DEFAULT_ROUTE} (got "0.0.0.0/0")`,
  },
  {
    name: "a tenant's listen range on a network that does not admit its namespace",
    mutate: (i) => (edgeLb(i).owner = 'system:serviceaccount:team-b:lb'),
    message: `${P} edge-lb: spec.owner: is not admitted by Layer2NetworkConfiguration edge (its spec.peering.admit) (got "system:serviceaccount:team-b:lb")`,
  },
  {
    name: "a tenant's listen range on a network that admits no one",
    mutate: (i) => delete edge(i).peering.admit,
    message: `${P} edge-lb: spec.owner: is not admitted by Layer2NetworkConfiguration edge (its spec.peering.admit) (got "system:serviceaccount:team-a:lb")`,
  },
  {
    name: "a tenant's listen range in a VRF network whose owner said nothing",
    mutate: (i) => (i.bgpPeering![0]!.spec.owner = 'system:serviceaccount:team-a:lb'),
    message: `${P} workloads: spec.owner: is not admitted by Layer2NetworkConfiguration web (its spec.peering.admit) (got "system:serviceaccount:team-a:lb")`,
  },
  {
    name: "a tenant's neighbours in a VRF that admits someone else",
    mutate: (i) => (router(i).owner = 'joe@example.com'),
    message: `${P} router: spec.owner: is not admitted by VRF red (the spec.peering.admit of one of its VRFRouteConfigurations: red) (got "joe@example.com")`,
  },
  {
    name: "a tenant's neighbours in a VRF that admits no one",
    mutate: (i) => delete i.vrf.find((v) => v.metadata.name === 'red')!.spec.peering,
    message: `${P} router: spec.owner: is not admitted by VRF red (the spec.peering.admit of one of its VRFRouteConfigurations: red) (got "jane@example.com")`,
  },
  {
    name: "a tenant's neighbours in the default VRF, even where the site allows peering there",
    underlay: { ...UNDERLAY, defaultVrfPeering: true },
    mutate: (i) => delete router(i).neighbor.vrf,
    message: `${P} router: spec.neighbor.vrf: must name a VRF: neighbours in the default VRF (the underlay) are a network admin's (a peering without spec.owner)`,
  },
  {
    name: 'owner empty',
    mutate: (i) => (edgeLb(i).owner = ''),
    message: `${P} edge-lb: spec.owner: must be at least 1 characters long (got "")`,
  },
  {
    name: 'admit entry empty',
    mutate: (i) => edge(i).peering.admit.push(''),
    message: `Layer2NetworkConfiguration edge: spec.peering.admit[1]: must be at least 1 characters long (got "")`,
  },
  {
    name: 'maxPrefixes above the ceiling',
    mutate: (i) => (edgeLb(i).maxPrefixes = { ipv4: 100_001 }),
    message: `${P} edge-lb: spec.maxPrefixes.ipv4: must be at most 100000 (got 100001)`,
  },
  {
    name: "maxPrefixes at the issue's 4294967295",
    mutate: (i) => (edgeLb(i).maxPrefixes = { ipv6: 4294967295 }),
    message: `${P} edge-lb: spec.maxPrefixes.ipv6: must be at most 100000 (got 4294967295)`,
  },
  {
    name: 'reannounce not a boolean',
    mutate: (i) => (edgeLb(i).reannounce = 'yes'),
    message: `${P} edge-lb: spec.reannounce: must be true or false (got "yes")`,
  },
  {
    name: "network's peering policy not a boolean",
    mutate: (i) => (edge(i).peering = { defaultVrf: 'true' }),
    message: `Layer2NetworkConfiguration edge: spec.peering.defaultVrf: must be true or false (got "true")`,
  },
];

describe('underlay guards corpus (issue #37)', () => {
  it('accepts the good set: a default-VRF peering where the network allows it', () => {
    expect(validateInputs(inputs(), { underlay: UNDERLAY })).toEqual([]);
  });
  it('accepts the default route alone where the network allows it', () => {
    const i = inputs();
    edge(i).peering.defaultRoute = true;
    edgeLb(i).import.push({ cidr: '0.0.0.0/0', seq: 20, action: 'permit' });
    expect(validateInputs(i, { underlay: UNDERLAY })).toEqual([]);
  });
  it('accepts a default-VRF network without its own permission when the site allows it', () => {
    const i = inputs();
    delete edge(i).peering.defaultVrf;
    expect(validateInputs(i, { underlay: { ...UNDERLAY, defaultVrfPeering: true } })).toEqual([]);
  });
  it('leaves deny items and VRF peerings alone: the underlay is the default VRF', () => {
    const i = inputs();
    edgeLb(i).import.push({ cidr: '172.16.0.0/16', seq: 5, le: 32, action: 'deny' });
    router(i).import = [{ cidr: '0.0.0.0/0', seq: 5, le: 32, action: 'permit' }];
    expect(validateInputs(i, { underlay: UNDERLAY })).toEqual([]);
  });
  it.each(BAD)('$name', ({ mutate, message, underlay }) => {
    const i = inputs();
    mutate(i);
    expect(validateInputs(i, { underlay: underlay ?? UNDERLAY }).map((p) => p.message)).toEqual([message]);
  });
  it("admits a tenant's peering through any one of its VRF's objects", () => {
    const i = inputs();
    i.vrf.find((v) => v.metadata.name === 'blue-v6')!.spec.peering = {
      admit: ['system:serviceaccounts:team-a'],
    };
    i.layer2.find((l) => l.metadata.name === 'web')!.spec.peering = {
      admit: ['system:serviceaccount:team-a:lb'],
    };
    i.bgpPeering!.push(
      peering('team-a-router', {
        neighbor: { addresses: ['192.0.2.77'], vrf: 'blue' },
        owner: 'system:serviceaccount:team-a:router',
        remoteAS: 'external',
      }),
    );
    i.bgpPeering![0]!.spec.owner = 'system:serviceaccount:team-a:lb';
    expect(validateInputs(i, { underlay: UNDERLAY })).toEqual([]);
  });
  it('has at least 30 refused inputs', () => expect(BAD.length).toBeGreaterThanOrEqual(30));
});

describe('peering defaults in the revision (issue #37)', () => {
  it('gives every peering a maxPrefixes limit per family, 1000 unless it names one', () => {
    const { config, hash } = buildConfig(inputs());
    const spec = nodeConfigSpec({ config, hash }, { role: 'worker', bgp: 'yes' });
    const by = (n: string) => spec.bgpPeering?.find((p) => p.name === n);
    expect(by('edge-lb')?.maxPrefixes).toEqual({ ipv4: 1000, ipv6: 1000 });
    expect(by('workloads')?.maxPrefixes).toEqual({ ipv4: 100, ipv6: 1000 });
    expect(by('edge-lb')?.reannounce).toBeUndefined();
  });
  it('carries reannounce to the node only when the peering says so', () => {
    const i = inputs();
    edgeLb(i).reannounce = true;
    const { config, hash } = buildConfig(i);
    const spec = nodeConfigSpec({ config, hash }, {});
    expect(spec.bgpPeering?.find((p) => p.name === 'edge-lb')?.reannounce).toBe(true);
  });
});
