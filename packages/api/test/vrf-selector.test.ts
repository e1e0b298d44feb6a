/**
 * VRF node selectors: `selectorImplies` (the structural check that a Layer-2 network reaches no
 * node its VRF does not) and the per-node filtering of VRF entries in `nodeConfigSpec`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildConfig,
  matchesSelector,
  nodeConfigSpec,
  type LabelSelector,
  type LabelSelectorRequirement,
} from '@nodenet/api';
import { selectorImplies } from '../src/config/selector.js';
import { goodInputs } from './fixtures.js';

const req = (key: string, operator: string, values?: string[]): LabelSelectorRequirement => ({
  key,
  operator,
  ...(values ? { values } : {}),
});

describe('selectorImplies(narrow, wide)', () => {
  const cases: Array<[string, LabelSelector | undefined, LabelSelector | undefined, boolean]> = [
    ['anything implies an absent selector', { matchLabels: { a: '1' } }, undefined, true],
    ['anything implies an empty selector', undefined, {}, true],
    ['no selector does not imply one', undefined, { matchLabels: { a: '1' } }, false],
    ['the same matchLabels', { matchLabels: { a: '1', b: '2' } }, { matchLabels: { a: '1' } }, true],
    ['a different value', { matchLabels: { a: '2' } }, { matchLabels: { a: '1' } }, false],
    [
      'k=v implies k In (v, w)',
      { matchLabels: { a: '1' } },
      { matchExpressions: [req('a', 'In', ['1', '2'])] },
      true,
    ],
    ['In (v) implies k=v', { matchExpressions: [req('a', 'In', ['1'])] }, { matchLabels: { a: '1' } }, true],
    [
      'In (v, w) does not imply k=v',
      { matchExpressions: [req('a', 'In', ['1', '2'])] },
      { matchLabels: { a: '1' } },
      false,
    ],
    ['k=v implies Exists', { matchLabels: { a: '1' } }, { matchExpressions: [req('a', 'Exists')] }, true],
    [
      'Exists does not imply k=v',
      { matchExpressions: [req('a', 'Exists')] },
      { matchLabels: { a: '1' } },
      false,
    ],
    [
      'k=v outside S implies NotIn S',
      { matchLabels: { a: '3' } },
      { matchExpressions: [req('a', 'NotIn', ['1'])] },
      true,
    ],
    [
      'NotIn T ⊇ S implies NotIn S',
      { matchExpressions: [req('a', 'NotIn', ['1', '2'])] },
      { matchExpressions: [req('a', 'NotIn', ['1'])] },
      true,
    ],
    [
      'NotIn T ⊂ S does not imply NotIn S',
      { matchExpressions: [req('a', 'NotIn', ['1'])] },
      { matchExpressions: [req('a', 'NotIn', ['1', '2'])] },
      false,
    ],
    [
      'DoesNotExist implies NotIn',
      { matchExpressions: [req('a', 'DoesNotExist')] },
      { matchExpressions: [req('a', 'NotIn', ['1'])] },
      true,
    ],
    [
      'DoesNotExist implies itself',
      { matchExpressions: [req('a', 'DoesNotExist')] },
      { matchExpressions: [req('a', 'DoesNotExist')] },
      true,
    ],
    [
      'Exists does not imply DoesNotExist',
      { matchExpressions: [req('a', 'Exists')] },
      { matchExpressions: [req('a', 'DoesNotExist')] },
      false,
    ],
    [
      'another key implies nothing',
      { matchLabels: { b: '1' } },
      { matchExpressions: [req('a', 'Exists')] },
      false,
    ],
  ];
  it.each(cases)('%s', (_name, narrow, wide, expected) => {
    expect(selectorImplies(narrow, wide)).toBe(expected);
  });

  it('is sound: when it says yes, every label set the narrow selector matches, the wide one matches', () => {
    const keys = ['a', 'b'];
    const values = ['1', '2', '3'];
    const requirement = fc.oneof(
      fc.record({
        key: fc.constantFrom(...keys),
        operator: fc.constantFrom('In', 'NotIn'),
        values: fc.uniqueArray(fc.constantFrom(...values), { minLength: 1, maxLength: 3 }),
      }),
      fc.record({ key: fc.constantFrom(...keys), operator: fc.constantFrom('Exists', 'DoesNotExist') }),
    );
    const selector = fc.record(
      {
        matchLabels: fc.dictionary(fc.constantFrom(...keys), fc.constantFrom(...values), { maxKeys: 2 }),
        matchExpressions: fc.array(requirement, { maxLength: 3 }),
      },
      { requiredKeys: [] },
    );
    // Every label set over the keys and values: absent or one of the values, per key.
    const labelSets = [undefined, ...values].flatMap((va) =>
      [undefined, ...values].map((vb) => ({ ...(va ? { a: va } : {}), ...(vb ? { b: vb } : {}) })),
    );
    fc.assert(
      fc.property(selector, selector, (narrow, wide) => {
        if (!selectorImplies(narrow, wide)) return;
        for (const labels of labelSets)
          if (matchesSelector(narrow, labels)) expect(matchesSelector(wide, labels)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('nodeConfigSpec with VRF node selectors', () => {
  const revision = (): ReturnType<typeof buildConfig> => {
    const inputs = goodInputs();
    inputs.vrf[2]!.spec.nodeSelector = { matchLabels: { zone: 'a' } }; // red
    inputs.vrf[1]!.spec.nodeSelector = { matchLabels: { zone: 'a' } }; // blue-v6
    return buildConfig(inputs);
  };

  it('gives a node only the VRF entries whose selector matches it, without the selector', () => {
    const spec = nodeConfigSpec(revision(), { role: 'worker', zone: 'a' });
    expect(spec.vrf.map((v) => v.name)).toEqual(['blue', 'blue-v6', 'red']);
    expect(spec.vrf.some((v) => 'nodeSelector' in v)).toBe(false);
    const other = nodeConfigSpec(revision(), { role: 'worker', zone: 'b' });
    expect(other.vrf.map((v) => v.name)).toEqual(['blue']);
    expect(other.layer2.map((l) => l.name)).toEqual(['storage', 'web']);
  });

  it('leaves out a Layer-2 network whose VRF reaches none of its entries to the node', () => {
    const inputs = goodInputs();
    for (const v of inputs.vrf.slice(0, 2)) v.spec.nodeSelector = { matchLabels: { zone: 'a' } };
    const spec = nodeConfigSpec(buildConfig(inputs), { role: 'worker', zone: 'b' });
    expect(spec.vrf.map((v) => v.name)).toEqual(['red']);
    expect(spec.layer2.map((l) => l.name)).toEqual(['storage']);
  });

  it('keeps the hash of a config without the new fields', () => {
    const before = buildConfig(goodInputs());
    const inputs = goodInputs();
    inputs.vrf[0]!.spec.nodeSelector = {};
    inputs.vrf[0]!.spec.staticRoutes = [];
    inputs.vrf[0]!.spec.loopbacks = [];
    expect(buildConfig(inputs).hash).toBe(before.hash);
  });
});
