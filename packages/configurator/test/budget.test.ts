import type {
  Inputs,
  Layer2NetworkConfiguration,
  NetworkConfig,
  NetworkConfigRevision,
  PrefixItem,
  VRFRouteConfiguration,
} from '@nodenet/api';
import { configWithLoopbacks, mergeInputs, nodeConfigSpec } from '@nodenet/api';
import { renderFrrConfig } from '@nodenet/agent';
import { describe, expect, it } from 'vitest';
import { buildRevision, configBytes, DEFAULT_BUDGET, frrLines } from '@nodenet/configurator';
import { testTemplate } from '@nodenet/testkit';

const NOW = Date.parse('2025-01-01T00:00:00Z');

const l2 = (name: string, id: number, generation = 1, gateways = 1): Layer2NetworkConfiguration => ({
  apiVersion: 'network.nodenet.io/v1alpha1',
  kind: 'Layer2NetworkConfiguration',
  metadata: { name, generation },
  spec: {
    id,
    vni: 10000 + id,
    mtu: 1500,
    anycastMac: '02:00:00:00:00:01',
    anycastGateways: Array.from({ length: gateways }, (_, i) => `10.${id % 250}.${i % 250}.1/24`),
  },
});

const items = (n: number, v: number, v6: boolean): PrefixItem[] =>
  Array.from({ length: n }, (_, i) => ({
    cidr: v6 ? `fd00:${v}:${i.toString(16)}::/64` : `10.${(v * 4 + (i >> 8)) % 250}.${i % 256}.0/24`,
    seq: i + 1,
    action: i % 3 ? 'permit' : 'deny',
  }));

const vrfInput = (
  name: string,
  vrf: string,
  n: number,
  opts: { v6?: boolean; community?: string; generation?: number } = {},
): VRFRouteConfiguration => ({
  apiVersion: 'network.nodenet.io/v1alpha1',
  kind: 'VRFRouteConfiguration',
  metadata: { name, generation: opts.generation ?? 1 },
  spec: {
    vrf,
    vni: 2000 + vrf.length,
    routeTarget: `65000:${2000 + vrf.length}`,
    import: items(n, 1, false),
    export: items(n, 2, opts.v6 ?? false),
    aggregate: ['10.1.0.0/16'],
    seq: 10 + name.length,
    ...(opts.community ? { community: opts.community } : {}),
  },
});

const template = testTemplate({ hostname: 'budget' });
const settings = { asn: 65000, routerId: '10.0.0.1', vrfRouterId: '10.0.1.1' };
const rendered = (c: NetworkConfig): number =>
  renderFrrConfig({ vrf: c.vrf, routingTable: c.routingTable }, settings, template).split('\n').length;

describe('frrLines', () => {
  const empty = mergeInputs({ vrf: [], layer2: [], routingTable: [] });
  it.each([
    ['one VRF, IPv4 only', [vrfInput('a', 'red', 5)]],
    [
      'two entries in one VRF, IPv6 export, community',
      [vrfInput('a', 'red', 5), vrfInput('bb', 'red', 3, { v6: true, community: '65000:7' })],
    ],
    [
      'three VRFs, 200 items each',
      [vrfInput('a', 'r1', 200), vrfInput('b', 'r22', 200), vrfInput('c', 'r333', 200, { v6: true })],
    ],
  ])('counts at least what the agent renders, within a few lines: %s', (_, vrf) => {
    const c = mergeInputs({
      vrf,
      layer2: [],
      routingTable: [
        {
          apiVersion: 'network.nodenet.io/v1alpha1',
          kind: 'RoutingTable',
          metadata: { name: 't' },
          spec: { tableId: 7 },
        },
      ],
    });
    const estimate = frrLines(c) - frrLines(empty);
    const actual = rendered(c) - rendered(empty);
    expect(estimate).toBeGreaterThanOrEqual(actual);
    // `activate` for IPv4 is left out where it is FRR's default (one line per VRF), the `!` after
    // each prefix-list family is counted whether or not it is rendered.
    expect(estimate - actual).toBeLessThanOrEqual(2 + new Set(vrf.map((v) => v.spec.vrf)).size);
    // The template itself is within the allowance for it.
    expect(frrLines(empty)).toBeGreaterThanOrEqual(rendered(empty));
  });
});

describe('frrLines with static routes and loopbacks', () => {
  // Rendered as a node that got its loopback addresses: the lines it adds are per node.
  const renderedOnNode = (c: NetworkConfig): number => {
    const revision = configWithLoopbacks({ config: c, hash: 'h' }, [], [{ name: 'n1', labels: {} }]);
    const spec = nodeConfigSpec(revision, {}, 'n1');
    return renderFrrConfig(spec, settings, template).split('\n').length;
  };
  const base = vrfInput('a', 'red', 5);
  const withExtras: VRFRouteConfiguration = {
    ...base,
    spec: {
      ...base.spec,
      staticRoutes: [
        { prefix: '0.0.0.0/0', nextHop: '198.51.100.1', onlink: true },
        { prefix: '192.0.2.0/24', nextHop: '10.1.0.9' },
        { prefix: '203.0.113.0/24', nextHopVRF: 'blue' },
        { prefix: '2001:db8:5::/48', nextHop: '2001:db8::1', nextHopVRF: 'default' },
      ],
      // The IPv6 one opens an IPv6 export prefix-list and route-map entry the items do not have.
      loopbacks: [
        { name: 'lo', subnet: '10.255.0.0/24' },
        { name: 'lo6', subnet: 'fd00:ff::/64' },
      ],
    },
  };
  const config = (vrf: VRFRouteConfiguration): NetworkConfig =>
    mergeInputs({ vrf: [vrf], layer2: [], routingTable: [] });

  it('counts each static route and each loopback line, at least what a node renders', () => {
    const added = frrLines(config(withExtras)) - frrLines(config(base));
    const renderedAdded = renderedOnNode(config(withExtras)) - renderedOnNode(config(base));
    // 4 routes, 2 loopback lines, the IPv6 prefix-lists' `!`, and the IPv6 export route-map's
    // entry (4 lines) in place of its deny-all one (3).
    expect(renderedAdded).toBe(4 + 2 + 1 + 1);
    expect(added).toBe(renderedAdded);
  });
});

const inputs = (p: Partial<Inputs>): Inputs => ({ vrf: [], layer2: [], routingTable: [], ...p });
const order =
  (...names: string[]) =>
  (o: { metadata: { name: string } }) =>
    names.indexOf(o.metadata.name);

describe('the size budget in buildRevision', () => {
  it('refuses the newest input that crosses the revision size, naming the figure and the limit; the rest rolls out', () => {
    const set = [l2('a', 1, 1, 60), l2('b', 2, 1, 60), l2('c', 3, 1, 60)];
    const two = configBytes(mergeInputs(inputs({ layer2: set.slice(0, 2) })));
    const budget = { ...DEFAULT_BUDGET, maxConfigBytes: two + 100 };
    // b is the newest: it is refused; a and c fit.
    const r = buildRevision(inputs({ layer2: set }), [], NOW, { budget, recency: order('a', 'c', 'b') });
    expect(r.decision.action).toBe('create');
    if (r.decision.action !== 'create') return;
    expect(r.decision.revision.spec.config.layer2.map((e) => e.name)).toEqual(['a', 'c']);
    const b = r.inputStatusUpdates.find((u) => u.object.metadata.name === 'b');
    const accepted = b?.status.conditions?.find((c) => c.type === 'Accepted');
    expect(accepted).toMatchObject({ status: 'False' });
    const over = configBytes(mergeInputs(inputs({ layer2: set })));
    expect(accepted?.message).toContain(`${over} bytes`);
    expect(accepted?.message).toContain(`limit of ${budget.maxConfigBytes} bytes`);
    expect(accepted?.message).toContain('--max-revision-bytes');
    expect(b?.status.conditions?.find((c) => c.type === 'Applied')).toMatchObject({ reason: 'HeldBack' });
    expect(configBytes(r.decision.revision.spec.config)).toBeLessThanOrEqual(budget.maxConfigBytes);
  });

  it('first come, first served: the change that crosses the limit is refused, a newer one that fits is taken', () => {
    const base = [l2('a', 1, 1, 30)];
    const big = l2('big', 2, 1, 60);
    const small = l2('small', 3, 1, 1);
    const budget = {
      ...DEFAULT_BUDGET,
      maxConfigBytes: configBytes(mergeInputs(inputs({ layer2: [...base, small] }))) + 200,
    };
    const r = buildRevision(inputs({ layer2: [...base, big, small] }), [], NOW, {
      budget,
      recency: order('a', 'big', 'small'),
    });
    if (r.decision.action !== 'create') throw new Error('expected a create');
    expect(r.decision.revision.spec.config.layer2.map((e) => e.name)).toEqual(['a', 'small']);
    const refused = r.inputStatusUpdates.filter(
      (u) => u.status.conditions?.find((c) => c.type === 'Accepted')?.status === 'False',
    );
    expect(refused.map((u) => u.object.metadata.name)).toEqual(['big']);
  });

  it('an input carried by the revision in force is not refused: the newer change is, and its in-force generation stays', () => {
    const a1 = l2('a', 1, 1, 10);
    const first = buildRevision(inputs({ layer2: [a1] }), [], NOW);
    if (first.decision.action !== 'create') throw new Error('expected a create');
    const rev1: NetworkConfigRevision = { ...first.decision.revision, status: { isInvalid: false } };
    const carriedA = { ...a1, status: first.inputStatusUpdates[0]?.status };
    // a grows past the budget in generation 2; b is new and small.
    const a2 = { ...l2('a', 1, 2, 60), status: carriedA.status };
    const b = l2('b', 2, 1, 2);
    const budget = {
      ...DEFAULT_BUDGET,
      maxConfigBytes: configBytes(mergeInputs(inputs({ layer2: [a1, b] }))) + 50,
    };
    const r = buildRevision(inputs({ layer2: [a2, b] }), [rev1], NOW, { budget, recency: order('b', 'a') });
    if (r.decision.action !== 'create') throw new Error(`expected a create, got ${r.decision.reason}`);
    const config = r.decision.revision.spec.config.layer2;
    expect(config.map((e) => e.name)).toEqual(['a', 'b']);
    expect(config[0]?.anycastGateways).toHaveLength(10); // generation 1 stays in force
    const a = r.inputStatusUpdates.find((u) => u.object.metadata.name === 'a');
    expect(a?.status.conditions?.find((c) => c.type === 'Accepted')?.message).toContain(
      '--max-revision-bytes',
    );
  });

  it('refuses the VRF whose FRR lines cross the limit while a Layer-2 change rolls out', () => {
    const big = vrfInput('big', 'red', 400);
    const r = buildRevision(inputs({ vrf: [big], layer2: [l2('blue', 5)] }), [], NOW, {
      budget: { ...DEFAULT_BUDGET, maxFrrLines: 500 },
      recency: order('blue', 'big'),
    });
    if (r.decision.action !== 'create') throw new Error('expected a create');
    expect(r.decision.revision.spec.config.vrf).toEqual([]);
    expect(r.decision.revision.spec.config.layer2.map((e) => e.name)).toEqual(['blue']);
    const msg = r.inputStatusUpdates
      .find((u) => u.object.metadata.name === 'big')
      ?.status.conditions?.find((c) => c.type === 'Accepted')?.message;
    expect(msg).toMatch(/would render \d+ FRR lines on a node, over the limit of 500 \(--max-frr-lines\)/);
  });

  it('over the FRR lines, takes as many VRFs as fit, oldest first (a VRF block counted whole, not estimated per object)', () => {
    const vrfs = Array.from({ length: 20 }, (_, i) => {
      const o = vrfInput(`o${i}`, `v${i}`, 3);
      return { ...o, spec: { ...o.spec, vni: 3000 + i, routeTarget: `65000:${3000 + i}` } };
    });
    const linesOf = (k: number): number => frrLines(mergeInputs(inputs({ vrf: vrfs.slice(0, k) })));
    const fits = 12;
    const r = buildRevision(inputs({ vrf: vrfs }), [], NOW, {
      budget: { ...DEFAULT_BUDGET, maxFrrLines: linesOf(fits) },
      recency: order(...vrfs.map((v) => v.metadata.name)),
    });
    if (r.decision.action !== 'create') throw new Error('expected a create');
    expect(r.decision.revision.spec.config.vrf.map((e) => e.name).sort()).toEqual(
      vrfs
        .slice(0, fits)
        .map((v) => v.metadata.name)
        .sort(),
    );
    const refused = r.inputStatusUpdates.filter((u) =>
      u.status.conditions?.some((c) => c.type === 'Accepted' && c.status === 'False'),
    );
    expect(refused).toHaveLength(20 - fits);
    expect(refused[0]?.status.conditions?.find((c) => c.type === 'Accepted')?.message).toContain(
      `would render ${linesOf(fits + 1)} FRR lines`,
    );
  });

  it('quotes at most a short prefix of a huge invalid value', () => {
    const bad = l2('huge', 9);
    bad.spec.anycastGateways = [`${'x'.repeat(800_000)}`];
    const r = buildRevision(inputs({ layer2: [bad] }), [], NOW);
    const msg = r.inputStatusUpdates[0]?.status.conditions?.find((c) => c.type === 'Accepted')?.message ?? '';
    expect(msg).toContain('xxxx');
    expect(msg.length).toBeLessThan(2000);
    expect(JSON.stringify(r.inputStatusUpdates[0]?.status).length).toBeLessThan(5000);
  });

  it('a refused create shows on the inputs as RevisionNotCreated with the API error, naming no revision', () => {
    const r = buildRevision(inputs({ layer2: [l2('blue', 5)] }), [], NOW);
    const [u] = r.statusesIfNotCreated('admission webhook "deny.example" denied the request: maintenance');
    expect(u?.status.revision).toBeUndefined();
    expect(u?.status.conditions?.find((c) => c.type === 'Applied')).toMatchObject({
      status: 'False',
      reason: 'RevisionNotCreated',
    });
    expect(u?.status.conditions?.find((c) => c.type === 'Applied')?.message).toContain(
      'denied the request: maintenance',
    );
  });
});
