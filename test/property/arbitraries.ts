/**
 * fast-check generators of input sets that look valid and sit at the edges: names and numbers at
 * their range limits, IPv4/IPv6 prefixes with ge/le, several objects per VRF, numeric VRF names,
 * selectors. Values are drawn from small pools on purpose, so that sets collide (same VRF, VLAN,
 * VNI, subnet) often enough to exercise the cross-object rules.
 */
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import {
  API_VERSION,
  type BGPPeering,
  type Inputs,
  type LabelSelector,
  type Layer2NetworkConfiguration,
  type PrefixItem,
  type RoutingTable,
  type StaticRoute,
  type VRFRouteConfiguration,
} from '@nodenet/api';

/**
 * Names that are keys of every plain JavaScript object (Object.prototype's members and look-alikes):
 * a name used as a plain object's key reads or replaces the prototype (issue #25).
 */
export const SPECIAL_NAMES = [
  'constructor',
  '__proto__',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  'toLocaleString',
  'prototype',
  'Constructor',
  '__proto',
  'length',
  'then',
] as const;

const vrfName = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom('blue', 'red', 'a', 'abcdefghijkl', 'x_1-y', '7', '10010', '4094'),
  },
  { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/) },
  // Special keys, and names one character either side of the 12-character limit.
  { weight: 1, arbitrary: fc.constantFrom(...SPECIAL_NAMES, 'abcdefghijk', 'abcdefghijklm') },
);
const vni = fc.oneof(
  fc.constantFrom(1, 100, 200, 4094, 10010, 16777215),
  fc.integer({ min: 1, max: 16777215 }),
);
const mtu = fc.constantFrom(1000, 1500, 8950, 9000);

/** A network prefix of the given family: the base masked to the length (host bits clear). */
const masked = (base: string, len: number): string =>
  `${ipaddr.IPv4.isValidFourPartDecimal(base) ? ipaddr.IPv4.networkAddressFromCIDR(`${base}/${len}`) : ipaddr.IPv6.networkAddressFromCIDR(`${base}/${len}`).toString()}/${len}`;

const ipv4Prefix = fc
  .tuple(
    fc.integer({ min: 0, max: 32 }),
    fc.constantFrom('10.2.0.0', '10.2.99.0', '192.168.0.0', '172.16.0.0'),
  )
  .map(([len, base]) => ({ cidr: masked(base, len), len, max: 32 }));
const ipv6Prefix = fc
  .tuple(
    fc.constantFrom(0, 16, 32, 44, 48, 56, 64, 127, 128),
    fc.constantFrom('2001:db8:1::', 'fd00:20::', '::'),
    // Written upper-case and uncompressed now and then: the same prefix two ways.
    fc.boolean(),
  )
  .map(([len, base, loud]) => {
    const cidr = masked(base, len);
    return {
      cidr: loud && !cidr.startsWith('::') ? cidr.toUpperCase().replace('::', ':0::') : cidr,
      len,
      max: 128,
    };
  });

const prefixItem = (seq: number): fc.Arbitrary<PrefixItem> =>
  fc
    .tuple(
      fc.oneof(ipv4Prefix, ipv6Prefix),
      fc.constantFrom('permit', 'deny') as fc.Arbitrary<'permit' | 'deny'>,
      fc.option(fc.nat(128), { nil: undefined }),
      fc.option(fc.nat(128), { nil: undefined }),
    )
    .map(([p, action, geSeed, leSeed]) => {
      // Inside FRR's rule len < ge <= le <= max, with values at its edges.
      const ge = geSeed !== undefined && p.len < p.max ? p.len + 1 + (geSeed % (p.max - p.len)) : undefined;
      const low = ge ?? p.len;
      const le = leSeed !== undefined ? low + (leSeed % (p.max - low + 1)) : undefined;
      return {
        cidr: p.cidr,
        seq,
        action,
        ...(ge !== undefined ? { ge } : {}),
        ...(le !== undefined ? { le } : {}),
      };
    });

const prefixList = fc
  .array(fc.integer({ min: 1, max: 4294967295 }), { maxLength: 4 })
  .chain((seqs) => fc.tuple(...[...new Set(seqs)].map(prefixItem)));

const meta = (name: string, minute: number): { name: string; creationTimestamp: string } => ({
  name,
  creationTimestamp: `2026-01-01T00:${String(minute % 60).padStart(2, '0')}:00Z`,
});

const specialSelectorSeed: LabelSelector = { matchExpressions: [{ key: 'edge', operator: 'Exists' }] };

/** Without the keys whose value is undefined (an optional field left out, as YAML would). */
const defined = <T extends object>(o: T): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

/**
 * A static route: a gateway inside one of the gateway pool's subnets (or any address with onlink),
 * looked up in this VRF, the default one or another; or no gateway, into another VRF's table.
 */
const staticRoute: fc.Arbitrary<StaticRoute> = fc
  .tuple(
    fc.boolean(),
    ipv4Prefix,
    ipv6Prefix,
    fc.constantFrom('10.10.0.9', '10.20.3.4', '192.168.1.1', '100.64.0.7', '198.51.100.1'),
    fc.constantFrom('2001:db8:20::9', '2001:DB8:10::5', 'fd00::1', '2001:db8:99::1'),
    fc.option(fc.constantFrom('default', 'other', 'other'), { nil: undefined, freq: 3 }),
    fc.constantFrom('gateway', 'gateway', 'gateway', 'onlink', 'into-vrf'),
  )
  .map(([v6, p4, p6, hop4, hop6, nextHopVRF, form]) => {
    const prefix = v6 ? p6.cidr : p4.cidr;
    const nextHop = v6 ? hop6 : hop4;
    if (form === 'into-vrf') return { prefix, nextHopVRF: 'other' };
    return defined({ prefix, nextHop, nextHopVRF, onlink: form === 'onlink' ? true : undefined });
  });

/** A loopback: names at the 32-character limit, subnets from /24 down to a single address. */
const loopback = fc.record({
  name: fc.constantFrom('lo', 'router-id', 'a', 'x'.repeat(32)),
  subnet: fc.oneof(
    fc
      .tuple(fc.nat(15), fc.constantFrom(24, 30, 31, 32))
      .map(([k, len]) => masked(`10.255.${k}.${(k * 37) % 256}`, len)),
    fc
      .tuple(fc.nat(15), fc.constantFrom(64, 120, 127, 128))
      .map(([k, len]) => masked(`fd00:ff:${k.toString(16)}::${k + 1}`, len)),
  ),
});

const vrfObject = (i: number): fc.Arbitrary<VRFRouteConfiguration> =>
  fc
    .record({
      vrf: vrfName,
      vni,
      routeTarget: fc.option(fc.constantFrom('65000:100', '4200000000:1', '192.0.2.1:7'), { nil: undefined }),
      import: prefixList,
      export: prefixList,
      aggregate: fc.array(
        fc.oneof(ipv4Prefix, ipv6Prefix).map((p) => p.cidr),
        { maxLength: 2 },
      ),
      seq: fc.constantFrom(1, 10, 20, 65534),
      mtu: fc.option(mtu, { nil: undefined }),
      community: fc.option(fc.constantFrom('65000:1', 'no-export', '4200000000:1:2'), { nil: undefined }),
      // Mostly every node: a Layer-2 network or peering in a VRF with a selector must imply it.
      nodeSelector: fc.oneof(
        { weight: 3, arbitrary: fc.constant(undefined) },
        {
          weight: 2,
          arbitrary: fc.constantFrom<LabelSelector>(
            { matchLabels: { role: 'worker' } },
            specialSelectorSeed,
            {},
          ),
        },
      ),
      staticRoutes: fc.option(fc.array(staticRoute, { minLength: 1, maxLength: 2 }), {
        nil: undefined,
        freq: 2,
      }),
      loopbacks: fc.option(
        fc.uniqueArray(loopback, { minLength: 1, maxLength: 2, selector: (l) => l.name }),
        { nil: undefined },
      ),
      minute: fc.nat(59),
    })
    .map(({ minute, mtu: m, routeTarget, community, nodeSelector, staticRoutes, loopbacks, ...spec }) => ({
      apiVersion: API_VERSION,
      kind: 'VRFRouteConfiguration' as const,
      metadata: meta(`vrf-${i}`, minute),
      spec: {
        ...spec,
        ...defined({ mtu: m, routeTarget, community, nodeSelector, staticRoutes, loopbacks }),
      },
    }));

const gateway = fc.oneof(
  fc.constantFrom(
    '10.10.0.1/24',
    '10.10.0.0/31',
    '10.10.0.1/24',
    '2001:db8:20::1/64',
    '10.20.0.1/16',
    '192.168.1.254/24',
    '2001:db8:10::1/64',
    '2001:DB8:10:0::1/64',
    'fd00::1/127',
    'fe80::1/64',
    '100.64.0.1/10',
  ),
  fc
    .tuple(
      fc.integer({ min: 1, max: 223 }),
      fc.integer({ min: 0, max: 255 }),
      fc.integer({ min: 1, max: 254 }),
    )
    .map(([a, b, c]) => `${a}.${b}.0.${c}/24`),
);

/** A label key or value: special keys, and sizes at and one past each limit (63 name, 253 prefix). */
export const labelKey = fc.oneof(
  fc.constantFrom('role', 'rack', 'edge', 'example.com/role', ...SPECIAL_NAMES),
  fc.constantFrom(63, 64).map((n) => 'k'.repeat(n)),
  fc.constantFrom(253, 254).map((n) => {
    // A DNS-subdomain prefix of exactly n characters (labels of 61), then a name.
    const prefix = `${'a'.repeat(61)}.`.repeat(5).slice(0, n);
    return `${prefix.endsWith('.') ? `${prefix.slice(0, -1)}b` : prefix}/role`;
  }),
);
export const labelValue = fc.oneof(
  fc.constantFrom('', 'worker', 'x', 'r1', ...SPECIAL_NAMES),
  fc.constantFrom(63, 64).map((n) => 'v'.repeat(n)),
);
const specialSelector: fc.Arbitrary<LabelSelector> = fc.oneof(
  fc.dictionary(labelKey, labelValue, { maxKeys: 2 }).map((matchLabels) => ({ matchLabels })),
  fc
    .tuple(
      labelKey,
      fc.constantFrom('In', 'NotIn', 'Exists', 'DoesNotExist'),
      fc.array(labelValue, { maxLength: 2 }),
    )
    .map(([key, operator, values]) => ({
      matchExpressions: [{ key, operator, ...(operator === 'In' || operator === 'NotIn' ? { values } : {}) }],
    })),
);

const layer2Object = (i: number, vrfs: string[]): fc.Arbitrary<Layer2NetworkConfiguration> =>
  fc
    .record({
      id: fc.oneof(fc.constantFrom(1, 10, 200, 4094), fc.integer({ min: 1, max: 4094 })),
      vni,
      mtu: fc.option(mtu, { nil: undefined }),
      gateways: fc.array(gateway, { maxLength: 3 }),
      mac: fc.constantFrom('02:00:5e:00:01:01', '02:AA:00:00:00:01'),
      vrf: vrfs.length ? fc.option(fc.constantFrom(...vrfs), { nil: undefined }) : fc.constant(undefined),
      macvlan: fc.boolean(),
      neigh: fc.boolean(),
      advertise: fc.boolean(),
      selector: fc.option(
        fc.oneof(
          fc.constantFrom<LabelSelector>(
            { matchLabels: { role: 'worker' } },
            { matchExpressions: [{ key: 'rack', operator: 'In', values: ['r1', 'r2'] }] },
            { matchExpressions: [{ key: 'edge', operator: 'DoesNotExist' }] },
          ),
          specialSelector,
        ),
        { nil: undefined },
      ),
      minute: fc.nat(59),
    })
    .map((r) => ({
      apiVersion: API_VERSION,
      kind: 'Layer2NetworkConfiguration' as const,
      metadata: meta(`l2-${i}`, r.minute),
      spec: {
        id: r.id,
        vni: r.vni,
        ...(r.mtu !== undefined ? { mtu: r.mtu } : {}),
        ...(r.gateways.length ? { anycastGateways: r.gateways, anycastMac: r.mac } : {}),
        ...(r.vrf !== undefined ? { vrf: r.vrf } : {}),
        createMacVLANInterface: r.macvlan,
        neighSuppression: r.neigh,
        advertiseNeighbors: r.advertise,
        ...(r.selector !== undefined ? { nodeSelector: r.selector } : {}),
        // The network's owner opens it to peerings in the default VRF (issue #37): listen ranges
        // on default-VRF networks stay in the accepted sets.
        peering: { defaultVrf: true },
      },
    }));

const tableObject = (i: number): fc.Arbitrary<RoutingTable> =>
  fc
    .oneof(
      fc.constantFrom(1, 99, 100, 252, 4000, 4001, 65535, 4294967295),
      fc.integer({ min: 1, max: 100_000 }),
    )
    .map((tableId) => ({
      apiVersion: API_VERSION,
      kind: 'RoutingTable' as const,
      metadata: { name: `taas-${i}` },
      spec: { tableId },
    }));

/** A BGPPeering: a listen range on one of the networks, or neighbours in a VRF or the default one. */
const peeringObject = (i: number, l2s: string[], vrfs: string[]): fc.Arbitrary<BGPPeering> =>
  fc
    .record({
      listen: l2s.length ? fc.boolean() : fc.constant(false),
      layer2: l2s.length ? fc.constantFrom(...l2s) : fc.constant('none'),
      // Mostly valid (a refused peering refuses the whole set); one bad address now and then.
      addresses: fc.uniqueArray(
        fc.oneof(
          {
            arbitrary: fc.constantFrom('192.0.2.1', '192.0.2.2', '2001:db8::1', '2001:DB8:0::2'),
            weight: 12,
          },
          { arbitrary: fc.constant('10.0.0.300'), weight: 1 },
        ),
        { minLength: 1, maxLength: 3 },
      ),
      vrf: vrfs.length ? fc.option(fc.constantFrom(...vrfs), { nil: undefined }) : fc.constant(undefined),
      ebgpMultihop: fc.option(fc.constantFrom(1, 2, 255), { nil: undefined }),
      remote: fc.constantFrom<number | 'internal' | 'external'>(65010, 4294967295, 'internal', 'external'),
      timers: fc.option(fc.constantFrom([3, 9], [1, 3], [60, 180], [21845, 65535], [3, 9], [4, 9]), {
        nil: undefined,
      }),
      families: fc.option(
        fc.constantFrom<('ipv4' | 'ipv6')[]>(
          ['ipv4'],
          ['ipv6'],
          ['ipv6', 'ipv4'],
          ['ipv4'],
          ['ipv4', 'ipv4'],
        ),
        { nil: undefined },
      ),
      max4: fc.option(fc.constantFrom(1, 100_000), { nil: undefined }),
      max6: fc.option(fc.constantFrom(1, 100), { nil: undefined }),
      import: prefixList,
      export: prefixList,
      communities: fc.uniqueArray(fc.constantFrom('65000:1', 'no-export', '4200000000:1:2'), {
        maxLength: 2,
      }),
      bfd: fc.option(
        fc.record({
          receiveInterval: fc.option(fc.constantFrom(10, 300, 60000), { nil: undefined }),
          transmitInterval: fc.option(fc.constantFrom(10, 300, 60000), { nil: undefined }),
          detectMultiplier: fc.option(fc.constantFrom(2, 3, 255), { nil: undefined }),
          echoMode: fc.option(fc.boolean(), { nil: undefined }),
          passiveMode: fc.option(fc.boolean(), { nil: undefined }),
        }),
        { nil: undefined },
      ),
      selector: fc.option(
        fc.constantFrom<LabelSelector>({ matchLabels: { role: 'worker' } }, specialSelectorSeed),
        {
          nil: undefined,
        },
      ),
      minute: fc.nat(59),
    })
    .map((r) => ({
      apiVersion: API_VERSION,
      kind: 'BGPPeering' as const,
      metadata: meta(`peer-${i}`, r.minute),
      spec: defined({
        ...(r.listen
          ? { listenRange: { layer2: r.layer2 } }
          : { neighbor: defined({ addresses: r.addresses, vrf: r.vrf, ebgpMultihop: r.ebgpMultihop }) }),
        ...(typeof r.remote === 'number' ? { remoteASN: r.remote } : { remoteAS: r.remote }),
        keepaliveTime: r.timers?.[0],
        holdTime: r.timers?.[1],
        addressFamilies: r.families,
        maxPrefixes:
          r.max4 !== undefined || r.max6 !== undefined ? defined({ ipv4: r.max4, ipv6: r.max6 }) : undefined,
        import: r.import,
        export: r.export,
        importCommunities: r.communities,
        bfd: r.bfd && defined(r.bfd),
        nodeSelector: r.selector,
      }),
    }));

/**
 * The objects with each static route's `nextHopVRF: other` naming another VRF of the set (a route
 * into a VRF no object defines is refused, and would refuse most sets); a route into another VRF's
 * table with no other VRF in the set is left out.
 */
const withNextHopVrfs = (vrfs: VRFRouteConfiguration[]): VRFRouteConfiguration[] => {
  const names = [...new Set(vrfs.map((o) => o.spec.vrf))];
  return vrfs.map((o) => {
    if (o.spec.staticRoutes === undefined) return o;
    const others = names.filter((n) => n !== o.spec.vrf);
    const staticRoutes = o.spec.staticRoutes.flatMap((r, j): StaticRoute[] => {
      if (r.nextHopVRF !== 'other') return [r];
      if (others.length > 0) return [{ ...r, nextHopVRF: others[j % others.length]! }];
      return r.nextHop === undefined ? [] : [defined({ ...r, nextHopVRF: undefined })];
    });
    return {
      ...o,
      spec: defined({ ...o.spec, staticRoutes: staticRoutes.length ? staticRoutes : undefined }),
    };
  });
};

/** Another address of the gateway's subnet: its own with the last bit flipped. */
const neighbourOf = (gateway: string): string => {
  const bytes = ipaddr.parse(gateway.split('/')[0]!).toByteArray();
  bytes[bytes.length - 1]! ^= 1;
  return ipaddr.fromByteArray(bytes).toString();
};

/**
 * The inputs with each gateway route's `nextHop` moved into a gateway subnet of the VRF it is
 * looked up in, where that VRF has one of the route's family (so such routes are accepted often
 * enough to matter), else of the default VRF; where neither has one the route is made on-link or
 * stays as drawn (refused).
 */
const withReachableHops = (inputs: Inputs): Inputs => {
  const gateways = (vrf: string, v6: boolean): string[] =>
    inputs.layer2
      .filter((l) => (l.spec.vrf ?? 'default') === vrf)
      .flatMap((l) => l.spec.anycastGateways ?? [])
      .filter((g) => g.includes(':') === v6 && !g.toLowerCase().startsWith('fe80'));
  const vrf = inputs.vrf.map((o) => {
    if (o.spec.staticRoutes === undefined) return o;
    const staticRoutes = o.spec.staticRoutes.map((r, j) => {
      if (r.nextHop === undefined || r.onlink === true) return r;
      const there = gateways(r.nextHopVRF ?? o.spec.vrf, r.prefix.includes(':'));
      if (there.length > 0) return { ...r, nextHop: neighbourOf(there[j % there.length]!) };
      const inDefault = gateways('default', r.prefix.includes(':'));
      if (inDefault.length > 0)
        return { ...r, nextHop: neighbourOf(inDefault[j % inDefault.length]!), nextHopVRF: 'default' };
      // The rest on-link (accepted), but a third as drawn (refused: no subnet holds the hop).
      return j % 3 < 2 ? { ...r, onlink: true } : r;
    });
    return { ...o, spec: { ...o.spec, staticRoutes } };
  });
  // Most Layer-2 networks in a VRF whose objects all have selectors take one of them (else the
  // network reaches nodes the VRF does not, and the set is refused); every third keeps its own.
  const layer2 = inputs.layer2.map((l, j) => {
    const objects = inputs.vrf.filter((o) => o.spec.vrf === l.spec.vrf);
    const selector = objects[j % Math.max(objects.length, 1)]?.spec.nodeSelector;
    if (j % 3 === 2 || selector === undefined || objects.some((o) => o.spec.nodeSelector === undefined))
      return l;
    return { ...l, spec: { ...l.spec, nodeSelector: selector } };
  });
  return { ...inputs, vrf, layer2 };
};

export const inputSets: fc.Arbitrary<Inputs> = fc
  .array(fc.nat(), { maxLength: 4 })
  .chain((v) => fc.tuple(...v.map((_, i) => vrfObject(i))).map(withNextHopVrfs))
  .chain((vrf) =>
    fc
      .tuple(
        fc.array(fc.nat(), { maxLength: 4 }).chain((l) =>
          fc.tuple(
            ...l.map((_, i) =>
              layer2Object(
                i,
                vrf.map((o) => o.spec.vrf),
              ),
            ),
          ),
        ),
        fc.array(fc.nat(), { maxLength: 2 }).chain((t) => fc.tuple(...t.map((_, i) => tableObject(i)))),
      )
      .chain(([layer2, routingTable]) =>
        fc
          .array(fc.nat(), { maxLength: 2 })
          .chain((p) =>
            fc.tuple(
              ...p.map((_, i) =>
                peeringObject(
                  i,
                  layer2.map((o) => o.metadata.name),
                  vrf.map((o) => o.spec.vrf),
                ),
              ),
            ),
          )
          .map((bgpPeering) => withReachableHops({ vrf, layer2, routingTable, bgpPeering })),
      ),
  );

/** Label sets of the nodes every accepted set is rendered for (one carries special keys). */
export const NODE_LABELS: Record<string, string>[] = [
  {},
  { role: 'worker', rack: 'r1' },
  { role: 'worker', rack: 'r3', edge: 'true' },
  JSON.parse('{"constructor":"x","__proto__":"p","toString":"t","role":"worker"}') as Record<string, string>,
];
