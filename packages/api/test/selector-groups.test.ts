/**
 * nodeConfigSpec matches each distinct selector of a config once (config/selector-groups.ts); what a
 * node receives must be what filtering every entry by its own selector gives, in config order.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  matchesSelector,
  nodeConfigSpec,
  type LabelSelector,
  type NetworkConfig,
} from '@nodenet/api';

type Layer2 = NetworkConfig['layer2'][number];
type Vrf = NetworkConfig['vrf'][number];

const value = fc.constantFrom('a', 'b', '');
const key = fc.constantFrom('rack', 'zone', '__proto__');
const selector: fc.Arbitrary<LabelSelector | undefined> = fc.option(
  fc.record(
    {
      matchLabels: fc.dictionary(key, value, { maxKeys: 2 }),
      matchExpressions: fc.array(
        fc.record({
          key,
          operator: fc.constantFrom('In', 'NotIn', 'Exists', 'DoesNotExist'),
          values: fc.array(value, { maxLength: 2 }),
        }),
        { maxLength: 2 },
      ),
    },
    { requiredKeys: [] },
  ),
  { nil: undefined },
);
const labels = fc.dictionary(key, value, { maxKeys: 3 });

/** A config whose entries share a few selectors (as JSON copies, so sharing is by content). */
const config: fc.Arbitrary<NetworkConfig> = fc
  .record({
    selectors: fc.array(selector, { minLength: 1, maxLength: 4 }),
    vrfs: fc.array(fc.tuple(fc.nat(3), fc.constantFrom('red', 'blue', 'green')), { maxLength: 6 }),
    l2s: fc.array(fc.tuple(fc.nat(3), fc.option(fc.constantFrom('red', 'blue', 'green', 'other'))), {
      maxLength: 8,
    }),
  })
  .map(({ selectors, vrfs, l2s }) => {
    const pick = (i: number): LabelSelector | undefined => {
      const s = selectors[i % selectors.length];
      return s === undefined ? undefined : (JSON.parse(JSON.stringify(s)) as LabelSelector);
    };
    const vrf: Vrf[] = vrfs.map(([s, name], i) => {
      const sel = pick(s);
      return {
        aggregate: [],
        export: [],
        import: [],
        mtu: 9000,
        name: `vrf-${i}`,
        ...(sel ? { nodeSelector: sel } : {}),
        seq: 10 + i,
        vni: 100,
        vrf: name,
      };
    });
    const layer2: Layer2[] = l2s.map(([s, inVrf], i) => {
      const sel = pick(s);
      return {
        advertiseNeighbors: false,
        anycastGateways: [],
        createMacVLANInterface: false,
        id: i + 1,
        mtu: 1500,
        name: `l2-${i}`,
        neighSuppression: false,
        ...(sel ? { nodeSelector: sel } : {}),
        vni: 1000 + i,
        ...(inVrf !== null ? { vrf: inVrf } : {}),
      };
    });
    return { layer2, routingTable: [], vrf };
  });

/** The rule as nodeConfigSpec states it, entry by entry. */
function direct(c: NetworkConfig, node: Record<string, string>): { layer2: string[]; vrf: string[] } {
  const vrfs = c.vrf.filter((e) => matchesSelector(e.nodeSelector, node));
  const here = new Set(vrfs.map((e) => e.vrf));
  const anywhere = new Set(c.vrf.map((e) => e.vrf));
  const layer2 = c.layer2.filter(
    (e) =>
      matchesSelector(e.nodeSelector, node) &&
      (e.vrf === undefined || !anywhere.has(e.vrf) || here.has(e.vrf)),
  );
  return { layer2: layer2.map((e) => e.name), vrf: vrfs.map((e) => e.name) };
}

describe('nodeConfigSpec over selector groups', () => {
  it('gives each node the entries whose own selector matches it, in config order, without selectors', () => {
    fc.assert(
      fc.property(config, fc.array(labels, { minLength: 1, maxLength: 4 }), (c, nodes) => {
        for (const node of nodes) {
          const spec = nodeConfigSpec({ config: c, hash: 'h' }, node);
          expect({ layer2: spec.layer2.map((e) => e.name), vrf: spec.vrf.map((e) => e.name) }).toEqual(
            direct(c, node),
          );
          for (const e of [...spec.layer2, ...spec.vrf])
            expect(canonicalJson(e)).not.toContain('nodeSelector');
        }
      }),
      { numRuns: 300 },
    );
  });
});
