/**
 * validateInputs keeps each API object's own verdict (schema and object rules) by uid and
 * resourceVersion; what it reports must not depend on whether the verdict came from the cache.
 */
import { describe, expect, it } from 'vitest';
import { validateInputs, type Inputs, type Layer2NetworkConfiguration } from '@nodenet/api';
import { layer2 } from './fixtures.js';

const fromApi = (o: Layer2NetworkConfiguration, resourceVersion: string): Layer2NetworkConfiguration => ({
  ...o,
  metadata: { ...o.metadata, uid: `uid-${o.metadata.name}`, resourceVersion },
});
const set = (...layer2: Layer2NetworkConfiguration[]): Inputs => ({ vrf: [], layer2, routingTable: [] });

const bad = layer2('bad', { id: 5000, vni: 20, anycastGateways: ['10.0.0.0/24'] });
const good = layer2('good', {
  id: 10,
  vni: 10,
  anycastMac: '02:00:00:00:00:01',
  anycastGateways: ['10.1.0.1/24'],
});

describe('validation of API objects seen before', () => {
  it('reports the same problems the second time as an object without uid reports', () => {
    const plain = validateInputs(set(bad, good));
    expect(plain.length).toBeGreaterThan(0);
    const objects = set(fromApi(bad, '1'), fromApi(good, '1'));
    expect(validateInputs(objects)).toEqual(plain);
    expect(validateInputs(objects)).toEqual(plain);
  });

  it('checks again an object whose spec was replaced under the same uid and resourceVersion', () => {
    const first = fromApi(good, '7');
    expect(validateInputs(set(first))).toEqual([]);
    // As a held-back input carries its in-force entry: same metadata, another spec.
    const replaced = { ...first, spec: { ...bad.spec } };
    expect(validateInputs(set(replaced)).map((p) => p.field)).toEqual(
      validateInputs(set({ ...bad, metadata: { name: 'good' } })).map((p) => p.field),
    );
  });

  it('checks again an object written again (new resourceVersion)', () => {
    const spec = { id: 11, vni: 11, anycastMac: '02:00:00:00:00:01', anycastGateways: ['10.2.0.1/24'] };
    const o = fromApi(layer2('edit', spec), '1');
    expect(validateInputs(set(o))).toEqual([]);
    // The same spec object under a new resourceVersion, edited in place: no stale verdict.
    spec.id = 5000;
    expect(validateInputs(set({ ...o, metadata: { ...o.metadata, resourceVersion: '2' } }))).not.toEqual([]);
  });
});
