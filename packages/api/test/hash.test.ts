import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  buildConfig,
  canonicalEqual,
  canonicalJson,
  hashConfig,
  revisionName,
  type Inputs,
} from '@nodenet/api';
import { goodInputs } from './fixtures.js';

/** Rebuilds every object with its keys in reverse order, recursively. */
function reverseKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(reverseKeys) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([k, v]) => [k, reverseKeys(v)]),
    ) as T;
  }
  return value;
}

describe('canonical hashing', () => {
  it('sorts keys at every level and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: undefined, x: 0 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[2,{"x":0,"z":1}]},"b":1}',
    );
  });

  it('gives the same hash for inputs in any order and key order', () => {
    const base = buildConfig(goodInputs()).hash;
    const shuffled: Inputs = goodInputs();
    shuffled.vrf.reverse();
    shuffled.layer2.reverse();
    shuffled.vrf[0]!.spec.export?.reverse();
    shuffled.layer2[1]!.spec.anycastGateways?.reverse();
    expect(buildConfig(reverseKeys(shuffled)).hash).toBe(base);
  });

  it('applies defaults, so an explicit default hashes like an omitted one', () => {
    const explicit = goodInputs();
    explicit.vrf[0]!.spec.mtu = 9000;
    explicit.layer2[1]!.spec.mtu = 1500;
    explicit.layer2[1]!.spec.advertiseNeighbors = false;
    explicit.vrf[0]!.spec.import![0]!.action = 'permit';
    expect(buildConfig(explicit).hash).toBe(buildConfig(goodInputs()).hash);
  });

  it('normalises how a prefix or MAC is written', () => {
    const shouting = goodInputs();
    shouting.layer2[0]!.spec.anycastGateways = ['2001:DB8:10:0::1/64', '10.10.0.1/24'];
    shouting.layer2[0]!.spec.anycastMac = '02:00:5e:00:01:01';
    expect(buildConfig(shouting).hash).toBe(buildConfig(goodInputs()).hash);
  });

  it('changes when any meaningful value changes', () => {
    const base = buildConfig(goodInputs()).hash;
    const changes: Array<(i: Inputs) => void> = [
      (i) => (i.vrf[0]!.spec.vni = 101),
      (i) => (i.vrf[0]!.spec.export![0]!.le = 25),
      (i) => (i.layer2[0]!.spec.nodeSelector = { matchLabels: { role: 'edge' } }),
      (i) => (i.routingTable[0]!.spec.tableId = 1001),
      (i) => (i.vrf[2]!.metadata.name = 'red2'),
    ];
    const hashes = changes.map((change) => {
      const inputs = goodInputs();
      change(inputs);
      return buildConfig(inputs).hash;
    });
    expect(new Set([base, ...hashes]).size).toBe(changes.length + 1);
  });

  it('hashes the config, sha256 hex', () => {
    const { config, hash } = buildConfig(goodInputs());
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hashConfig(config)).toBe(hash);
    expect(revisionName(7, hash)).toBe(`rev-000007-${hash.slice(0, 10)}`);
    expect(revisionName(1234567, hash)).toBe(`rev-1234567-${hash.slice(0, 10)}`);
  });
});

describe('canonicalJson', () => {
  /** The definition: JSON.stringify of a copy with keys sorted at every level. */
  const reference = (value: unknown): string | undefined => {
    const sortKeys = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(sortKeys);
      if (v !== null && typeof v === 'object') {
        // No prototype: fast-check generates the key `__proto__`, which canonicalJson keeps as an own
        // key (a label key may be spelt so) and a plain object would swallow.
        const out = Object.create(null) as Record<string, unknown>;
        for (const k of Object.keys(v).sort()) {
          const x = (v as Record<string, unknown>)[k];
          if (x !== undefined) out[k] = sortKeys(x);
        }
        return out;
      }
      return v;
    };
    return JSON.stringify(sortKeys(value));
  };

  it('writes what JSON.stringify of the key-sorted copy writes, for any JSON-like value', () => {
    const leaf = fc.oneof(
      fc.string(),
      fc.double(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
    );
    const tree = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, leaf, tie('array'), tie('object')),
      array: fc.array(tie('node'), { maxLength: 5 }),
      object: fc.dictionary(fc.oneof(fc.string(), fc.nat().map(String)), tie('node'), { maxKeys: 5 }),
    })).node;
    fc.assert(
      fc.property(tree, (v) => {
        expect(canonicalJson(v)).toBe(reference(v));
      }),
      { numRuns: 2000 },
    );
  });

  it('canonicalEqual says whether the canonical JSON texts are equal, without writing them', () => {
    const leaf = fc.oneof(
      fc.constantFrom('a', 'b', ''),
      fc.constantFrom(0, 1),
      fc.boolean(),
      fc.constant(null),
    );
    const tree = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, leaf, tie('array'), tie('object')),
      array: fc.array(fc.oneof(tie('node'), fc.constant(undefined)), { maxLength: 3 }),
      object: fc.dictionary(fc.constantFrom('x', 'y', '0'), fc.oneof(tie('node'), fc.constant(undefined)), {
        maxKeys: 3,
      }),
    })).node;
    fc.assert(
      fc.property(tree, tree, (a, b) => {
        const same = canonicalJson(a) === canonicalJson(b);
        expect(canonicalEqual(a, b)).toBe(same);
        expect(canonicalEqual(a, reverseKeys(a))).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});
