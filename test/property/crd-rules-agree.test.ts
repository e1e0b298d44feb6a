/**
 * The CRDs' apply-time checks and the configurator's own validation apply the same prefix rules
 * (issue #27 item 9; inputs can reach the configurator without admission): for prefix text drawn from
 * the characters a prefix may hold, with tricky spellings mixed in (leading zeros, embedded IPv4,
 * IPv4-mapped, five-digit groups, host bits), a network prefix (aggregate) is refused by the CRD's
 * schema and CEL rules, evaluated by devcluster's Kubernetes CEL library, exactly when the
 * configurator refuses it; an anycast gateway the CRD refuses the configurator refuses too (the
 * configurator refuses more: network, broadcast and link-local addresses). A static route the CRD
 * refuses (schema, and the CEL rules on nextHop / nextHopVRF / onlink) the configurator refuses too.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkGatewayAddress,
  checkNetworkPrefix,
  customResourceDefinition,
  hasCidrChars,
  MAX_CIDR_LENGTH,
  validateInputs,
  type StaticRoute,
} from '@nodenet/api';
import { validate, type Schema } from '@nodenet/devcluster';

const RUNS = Number(process.env.NODENET_PROPERTY_RUNS ?? 400) * 5;

function fieldSchema(kind: 'VRFRouteConfiguration' | 'Layer2NetworkConfiguration', list: string): Schema {
  const crd = customResourceDefinition(kind) as {
    spec: { versions: { schema: { openAPIV3Schema: { properties: { spec: Schema } } } }[] };
  };
  const spec = crd.spec.versions[0]!.schema.openAPIV3Schema.properties.spec;
  return (spec.properties![list] as Schema).items as Schema;
}
const aggregateItem = fieldSchema('VRFRouteConfiguration', 'aggregate');
const gatewayItem = fieldSchema('Layer2NetworkConfiguration', 'anycastGateways');
const staticRouteItem = fieldSchema('VRFRouteConfiguration', 'staticRoutes');

const configuratorAccepts = (text: string, check: (t: string) => string | undefined): boolean =>
  text.length <= MAX_CIDR_LENGTH && hasCidrChars(text) && check(text) === undefined;

const TRICKY = [
  '10.0.0.0/8',
  '10.0.0.1/8',
  '010.0.0.0/8',
  '10.0.0.0/08',
  '10.0.0.0/33',
  '10.140.0.300/24',
  '0.0.0.0/0',
  '::/0',
  '::1/128',
  '2001:db8::/32',
  '2001:DB8:0::/32',
  '02001:db8::/32',
  '2001:db8::1/32',
  '::1.2.3.0/120',
  '::ffff:1.2.3.0/120',
  '::ffff:102:300/120',
  '::ffff:0:0/96',
  '64:ff9b::1.2.3.4/128',
  '1::2::3/64',
  ':::/0',
  '1:2:3:4:5:6:7:8/128',
  '1:2:3:4:5:6:7:8:9/128',
  '1:2:3:4:5:6:7::/128',
  'fe80::1/64',
  '10.10.0.1/24',
  '10.10.0.1/1',
  '2001:db8:10::1/47',
  '2001:db8:10::1/48',
  '192.168.1.255/24',
  '::/129',
  '1.2.3.4/32',
];
const prefixText = fc.oneof(
  fc.constantFrom(...TRICKY),
  fc.stringMatching(/^[0-9a-fA-F:.]{1,20}\/[0-9]{1,3}$/),
  fc
    .tuple(
      fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 4, maxLength: 4 }),
      fc.integer({ min: 0, max: 40 }),
    )
    .map(([o, len]) => `${o.join('.')}/${len}`),
  fc
    .tuple(
      fc.array(fc.integer({ min: 0, max: 0xfffff }), { minLength: 1, maxLength: 9 }),
      fc.boolean(),
      fc.integer({ min: 0, max: 130 }),
    )
    .map(([g, gap, len]) => {
      const groups = g.map((x) => x.toString(16));
      if (gap) groups.splice(Math.floor(groups.length / 2), 0, '');
      return `${groups.join(':')}/${len}`;
    }),
);

/** Static routes with each field present or not, tricky addresses and VRF names among them. */
const staticRoute: fc.Arbitrary<StaticRoute> = fc
  .record({
    prefix: fc.oneof(
      { weight: 2, arbitrary: fc.constantFrom('0.0.0.0/0', '192.0.2.0/24', '2001:db8:5::/48') },
      { weight: 1, arbitrary: prefixText },
    ),
    nextHop: fc.option(
      fc.constantFrom('10.0.0.1', '2001:db8::1', '010.0.0.1', '10.0.0.300', '1::2::3', '::ffff:1.2.3.4'),
      { nil: undefined },
    ),
    nextHopVRF: fc.option(fc.constantFrom('default', 'blue', 'red'), { nil: undefined }),
    onlink: fc.option(fc.boolean(), { nil: undefined }),
  })
  .map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)) as StaticRoute);

/** The configurator's problems with a route of VRF blue (beside VRF red, and no networks). */
const routeProblems = (route: StaticRoute): string[] =>
  validateInputs({
    vrf: (['blue', 'red'] as const).map((vrf, i) => ({
      apiVersion: 'network.nodenet.io/v1alpha1',
      kind: 'VRFRouteConfiguration',
      metadata: { name: `v${i}` },
      spec: {
        vrf,
        vni: 100 + i,
        import: [],
        export: [],
        aggregate: [],
        seq: 10,
        ...(i === 0 ? { staticRoutes: [route] } : {}),
      },
    })),
    layer2: [],
    routingTable: [],
  }).map((p) => p.message);

describe('CRD prefix rules and configurator validation agree (property)', () => {
  it(`network prefixes: refused by one exactly when refused by the other (${RUNS} strings)`, () => {
    const seen = { accepted: 0, refused: 0 };
    fc.assert(
      fc.property(prefixText, (text) => {
        const crdAccepts = validate(text, aggregateItem, 'spec.aggregate[0]').length === 0;
        expect(crdAccepts, text).toBe(configuratorAccepts(text, checkNetworkPrefix));
        seen[crdAccepts ? 'accepted' : 'refused']++;
      }),
      { numRuns: RUNS, examples: TRICKY.map((t) => [t]) },
    );
    // Both sides of the rule are reached, not only refusals.
    expect(seen.accepted).toBeGreaterThan(RUNS / 20);
    expect(seen.refused).toBeGreaterThan(RUNS / 20);
  });

  it(`static routes (#28): whatever the CRD refuses, the configurator refuses (${RUNS} routes)`, () => {
    const seen = { crdRefused: 0, bothAccept: 0 };
    fc.assert(
      fc.property(staticRoute, (route) => {
        const crdRefuses = validate(route, staticRouteItem, 'spec.staticRoutes[0]').length > 0;
        const problems = routeProblems(route);
        if (crdRefuses) {
          expect(problems, JSON.stringify(route)).not.toEqual([]);
          seen.crdRefused++;
        } else if (problems.length === 0) seen.bothAccept++;
      }),
      { numRuns: RUNS },
    );
    // Both sides are reached (a route both accept needs onlink, or a VRF and no gateway: the
    // configurator finds no gateway subnet for any other, there being no network).
    expect(seen.crdRefused).toBeGreaterThan(RUNS / 40);
    expect(seen.bothAccept).toBeGreaterThan(RUNS / 40);
  });

  it(`anycast gateways: whatever the CRD refuses, the configurator refuses (${RUNS} strings)`, () => {
    fc.assert(
      fc.property(prefixText, (text) => {
        if (validate(text, gatewayItem, 'spec.anycastGateways[0]').length > 0) {
          expect(configuratorAccepts(text, checkGatewayAddress), text).toBe(false);
        }
      }),
      { numRuns: RUNS, examples: TRICKY.map((t) => [t]) },
    );
  });
});
