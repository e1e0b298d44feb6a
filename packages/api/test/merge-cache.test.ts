/**
 * buildConfig reuses the merged entry (and its canonical JSON) of each API object seen before, by
 * uid and resourceVersion; its hash must stay the hash of the canonical JSON of the whole config.
 */
import { describe, expect, it } from 'vitest';
import { buildConfig, hashConfig, mergeInputs, type InputObject, type Inputs } from '@nodenet/api';
import { goodInputs } from './fixtures.js';

const fromApi = <T extends InputObject>(o: T, resourceVersion: string): T => ({
  ...o,
  metadata: { ...o.metadata, uid: `uid-${o.kind}-${o.metadata.name}`, resourceVersion },
});
const asApiObjects = (inputs: Inputs, resourceVersion: string): Inputs => ({
  vrf: inputs.vrf.map((o) => fromApi(o, resourceVersion)),
  layer2: inputs.layer2.map((o) => fromApi(o, resourceVersion)),
  routingTable: inputs.routingTable.map((o) => fromApi(o, resourceVersion)),
});

describe('buildConfig of API objects seen before', () => {
  it('hashes the canonical JSON of the whole config, the first time and again', () => {
    const plain = goodInputs();
    const expected = hashConfig(mergeInputs(plain));
    const objects = asApiObjects(plain, '1');
    expect(buildConfig(objects).hash).toBe(expected);
    const again = buildConfig(objects);
    expect(again.hash).toBe(expected);
    expect(hashConfig(again.config)).toBe(expected);
  });

  it('merges an object written again (new resourceVersion) afresh', () => {
    const objects = asApiObjects(goodInputs(), '1');
    const before = buildConfig(objects).hash;
    const [first, ...rest] = objects.layer2;
    if (!first) throw new Error('fixture has a Layer-2 network');
    const edited = { ...fromApi(first, '2'), spec: { ...first.spec, mtu: 1400 } };
    const after = buildConfig({ ...objects, layer2: [edited, ...rest] });
    expect(after.hash).not.toBe(before);
    expect(after.hash).toBe(hashConfig(after.config));
    expect(after.config.layer2.find((e) => e.name === first.metadata.name)?.mtu).toBe(1400);
  });

  it('gives the byte length of JSON.stringify(config), keys in any order', () => {
    const objects = asApiObjects(goodInputs(), '1');
    const [first, ...rest] = objects.layer2;
    if (!first) throw new Error('fixture has a Layer-2 network');
    // A selector written with its keys out of order: the hashed JSON sorts them, the stored one not.
    const selected = {
      ...first,
      spec: { ...first.spec, nodeSelector: { matchLabels: { zone: 'ü', rack: 'r1' } } },
    };
    for (const inputs of [objects, { ...objects, layer2: [selected, ...rest] }]) {
      const built = buildConfig(inputs);
      expect(built.bytes).toBe(Buffer.byteLength(JSON.stringify(built.config)));
    }
  });
});
