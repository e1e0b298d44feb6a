import { describe, expect, it } from 'vitest';
import { buildConfig, matchesSelector, nodeConfigSpec, type LabelSelector } from '@nodenet/api';
import { goodInputs, layer2 } from './fixtures.js';

describe('label selector semantics', () => {
  const labels = { role: 'worker', zone: 'a' };
  const cases: Array<[string, LabelSelector | undefined, boolean]> = [
    ['absent selector matches', undefined, true],
    ['empty selector matches', {}, true],
    ['matchLabels equal', { matchLabels: { role: 'worker' } }, true],
    ['matchLabels different value', { matchLabels: { role: 'edge' } }, false],
    ['matchLabels missing key', { matchLabels: { rack: '1' } }, false],
    ['In with the value', { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }] }, true],
    ['In without the value', { matchExpressions: [{ key: 'zone', operator: 'In', values: ['b'] }] }, false],
    ['In on a missing key', { matchExpressions: [{ key: 'rack', operator: 'In', values: ['a'] }] }, false],
    [
      'NotIn without the value',
      { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['b'] }] },
      true,
    ],
    [
      'NotIn with the value',
      { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] },
      false,
    ],
    [
      'NotIn on a missing key',
      { matchExpressions: [{ key: 'rack', operator: 'NotIn', values: ['a'] }] },
      true,
    ],
    ['Exists present', { matchExpressions: [{ key: 'zone', operator: 'Exists' }] }, true],
    ['Exists absent', { matchExpressions: [{ key: 'rack', operator: 'Exists' }] }, false],
    ['DoesNotExist absent', { matchExpressions: [{ key: 'rack', operator: 'DoesNotExist' }] }, true],
    ['DoesNotExist present', { matchExpressions: [{ key: 'zone', operator: 'DoesNotExist' }] }, false],
    [
      'unknown operator never matches',
      { matchExpressions: [{ key: 'zone', operator: 'Equals', values: ['a'] }] },
      false,
    ],
    [
      'labels and expressions are ANDed',
      { matchLabels: { role: 'worker' }, matchExpressions: [{ key: 'zone', operator: 'In', values: ['b'] }] },
      false,
    ],
  ];
  it.each(cases)('%s', (_name, selector, expected) => {
    expect(matchesSelector(selector, labels)).toBe(expected);
  });
});

describe('per-node filtering', () => {
  const revision = buildConfig(goodInputs());

  it('gives a node every VRF and table but only the Layer-2 networks that select it', () => {
    const worker = nodeConfigSpec(revision, { role: 'worker' });
    const edge = nodeConfigSpec(revision, { role: 'edge' });
    expect(worker.layer2.map((l) => l.name)).toEqual(['storage', 'web']);
    expect(edge.layer2.map((l) => l.name)).toEqual(['storage']);
    for (const spec of [worker, edge]) {
      expect(spec.revision).toBe(revision.hash);
      expect(spec.vrf).toEqual(revision.config.vrf);
      expect(spec.routingTable).toEqual(revision.config.routingTable);
    }
  });

  it('drops the node selector from what the node receives', () => {
    const worker = nodeConfigSpec(revision, { role: 'worker' });
    for (const l2 of worker.layer2) expect(l2).not.toHaveProperty('nodeSelector');
  });

  it('treats an empty selector as matching every node', () => {
    const inputs = goodInputs();
    inputs.layer2.push(layer2('all', { id: 30, vni: 10030, nodeSelector: {} }));
    const spec = nodeConfigSpec(buildConfig(inputs), {});
    expect(spec.layer2.map((l) => l.name)).toContain('all');
  });
});
