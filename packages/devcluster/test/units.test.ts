/** Pure parts of devcluster: selectors, structural schemas, JSONPath, patches, ages and the event history. */
import { describe, expect, it } from 'vitest';
import {
  evaluateJsonPath,
  parseJsonPath,
  applyMergePatch,
  applyStrategicMergePatch,
  applyDefaults,
  prune,
  validate,
  type Schema,
  matchLabels,
  parseLabelSelector,
  selectorPredicate,
  GoneError,
  Store,
  humanDuration,
} from '@nodenet/devcluster';
import type { KObject } from '@nodenet/devcluster';

describe('label selectors', () => {
  const m = (sel: string, labels: Record<string, string>) => matchLabels(parseLabelSelector(sel), labels);
  it('implements every operator', () => {
    expect(m('a=1', { a: '1' })).toBe(true);
    expect(m('a==1', { a: '2' })).toBe(false);
    expect(m('a!=1', {})).toBe(true);
    expect(m('a in (1, 2)', { a: '2' })).toBe(true);
    expect(m('a notin (1,2)', { a: '3' })).toBe(true);
    expect(m('a notin (1,2)', {})).toBe(true);
    expect(m('a', { a: '' })).toBe(true);
    expect(m('!a', { a: '' })).toBe(false);
    expect(m('x.io/k=v,!b', { 'x.io/k': 'v' })).toBe(true);
    expect(m('n>3', { n: '4' })).toBe(true);
  });
  it('refuses malformed selectors naming them', () => {
    expect(() => parseLabelSelector('a in (b')).toThrow(/unable to parse requirement/);
    expect(() => parseLabelSelector('-bad=1')).toThrow(/invalid label key "-bad"/);
  });
  it('combines field selectors with labels', () => {
    const p = selectorPredicate('a=1', 'metadata.name=x,metadata.namespace!=kube-system');
    const o = (name: string, ns: string): KObject => ({
      metadata: { name, namespace: ns, labels: { a: '1' } },
    });
    expect(p?.(o('x', 'default'))).toBe(true);
    expect(p?.(o('x', 'kube-system'))).toBe(false);
    expect(p?.(o('y', 'default'))).toBe(false);
  });
});

describe('structural schemas', () => {
  const schema: Schema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string', minLength: 2, maxLength: 4 },
          mtu: { type: 'integer', default: 1500, minimum: 1000, exclusiveMaximum: true, maximum: 9001 },
          ratio: { type: 'number', multipleOf: 0.5 },
          items: {
            type: 'array',
            minItems: 1,
            items: { type: 'object', properties: { a: { type: 'string', default: 'x' } } },
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['a'],
          },
          tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
          ip: { type: 'string', format: 'ipv4' },
          free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          map: { type: 'object', additionalProperties: { type: 'integer' } },
          opt: { type: 'string', nullable: true },
        },
      },
    },
  };
  it('defaults absent fields, also inside list items', () => {
    const o = { spec: { name: 'ab', items: [{}] } };
    applyDefaults(o, schema);
    expect(o.spec).toEqual({ name: 'ab', mtu: 1500, items: [{ a: 'x' }] });
  });
  it('prunes unknown fields and reports their paths, keeping preserved subtrees', () => {
    const o = {
      apiVersion: 'v',
      kind: 'K',
      metadata: { name: 'n' },
      extra: 1,
      spec: { name: 'ab', junk: true, items: [{ a: 'y', b: 2 }], free: { any: { thing: 1 } } },
    };
    expect(prune(o, schema)).toEqual(['extra', 'spec.junk', 'spec.items[0].b']);
    expect(o).toEqual({
      apiVersion: 'v',
      kind: 'K',
      metadata: { name: 'n' },
      spec: { name: 'ab', items: [{ a: 'y' }], free: { any: { thing: 1 } } },
    });
  });
  it('words errors like the API server', () => {
    const errs = validate(
      {
        spec: {
          name: 'abcde',
          mtu: 9001,
          ratio: 0.3,
          items: [{ a: 'q' }, { a: 'q' }],
          tags: ['x', 'x'],
          ip: '1.2.3',
          map: { k: 'v' },
          opt: null,
        },
      },
      schema,
    ).map((e) => `${e.field}: ${e.message}`);
    expect(errs).toEqual([
      'spec.name: Too long: may not be more than 4 bytes',
      'spec.mtu: Invalid value: 9001: spec.mtu in body should be less than 9001',
      'spec.ratio: Invalid value: 0.3: spec.ratio in body should be a multiple of 0.5',
      'spec.items[1]: Duplicate value: {"a":"q"}',
      'spec.tags[1]: Duplicate value: "x"',
      'spec.ip: Invalid value: "1.2.3": spec.ip in body must be of type ipv4: "1.2.3"',
      'spec.map.k: Invalid value: "string": spec.map.k in body must be of type integer: "string"',
    ]);
    expect(validate({ spec: {} }, schema).map((e) => `${e.field}: ${e.message}`)).toEqual([
      'spec.name: Required value',
    ]);
    expect(validate({ spec: { name: 'a' } }, schema)[0]?.message).toBe(
      'Invalid value: "a": spec.name in body should be at least 2 chars long',
    );
  });
});

describe('JSONPath for printer columns', () => {
  const obj = {
    metadata: { labels: { 'network.nodenet.io/revision-number': '7' } },
    status: {
      conditions: [
        { type: 'A', status: 'False' },
        { type: 'Ready', status: 'True' },
      ],
    },
    spec: { l: [1, 2, 3] },
  };
  const ev = (p: string) => evaluateJsonPath(parseJsonPath(p), obj);
  it('evaluates fields, escapes, indexes, wildcards and filters', () => {
    expect(ev('.metadata.labels.network\\.nodenet\\.io/revision-number')).toEqual(['7']);
    expect(ev(".metadata.labels['network.nodenet.io/revision-number']")).toEqual(['7']);
    expect(ev('.status.conditions[?(@.type=="Ready")].status')).toEqual(['True']);
    expect(ev('{.spec.l[-1]}')).toEqual([3]);
    expect(ev('.spec.l[*]')).toEqual([1, 2, 3]);
    expect(ev('.spec.missing')).toEqual([]);
  });
});

describe('patches', () => {
  it('merge patch deletes with null and replaces lists', () => {
    expect(applyMergePatch({ a: { b: 1, c: 2 }, l: [1, 2] }, { a: { b: null }, l: [3] })).toEqual({
      a: { c: 2 },
      l: [3],
    });
  });
  it('strategic merge patch merges keyed lists, finalizers as a set, and honours directives', () => {
    const cur = {
      status: {
        conditions: [
          { type: 'Ready', status: 'False' },
          { type: 'Disk', status: 'True' },
        ],
      },
      metadata: { finalizers: ['a'] },
    };
    expect(
      applyStrategicMergePatch(cur, {
        status: {
          conditions: [
            { type: 'Ready', status: 'True' },
            { type: 'Disk', $patch: 'delete' },
          ],
          '$setElementOrder/conditions': [{ type: 'Ready' }],
        },
        metadata: { finalizers: ['b'] },
      }),
    ).toEqual({
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
      metadata: { finalizers: ['a', 'b'] },
    });
    expect(
      applyStrategicMergePatch(
        { metadata: { finalizers: ['a', 'b'] } },
        { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } },
      ),
    ).toEqual({
      metadata: { finalizers: ['b'] },
    });
    expect(applyStrategicMergePatch({ spec: { x: 1, y: 2 } }, { spec: { $patch: 'replace', z: 3 } })).toEqual(
      { spec: { z: 3 } },
    );
  });
});

describe('ages', () => {
  it('matches apimachinery HumanDuration', () => {
    const s = 1000;
    expect(humanDuration(5 * s)).toBe('5s');
    expect(humanDuration(119 * s)).toBe('119s');
    expect(humanDuration(5 * 60 * s + 3 * s)).toBe('5m3s');
    expect(humanDuration(45 * 60 * s)).toBe('45m');
    expect(humanDuration(5 * 3600 * s + 10 * 60 * s)).toBe('5h10m');
    expect(humanDuration(30 * 3600 * s)).toBe('30h');
    expect(humanDuration(3 * 86400 * s + 4 * 3600 * s)).toBe('3d4h');
    expect(humanDuration(100 * 86400 * s)).toBe('100d');
    expect(humanDuration(-5 * s)).toBe('<invalid>');
  });
});

describe('event history', () => {
  it('replays kept events after a resourceVersion and refuses compacted ones', () => {
    const store = new Store(4);
    for (let i = 1; i <= 10; i++) {
      const rv = store.nextResourceVersion();
      store.commit('ADDED', 'g/things', `o${i}`, {
        obj: { metadata: { name: `o${i}`, resourceVersion: String(rv) } },
        rv,
      });
    }
    const seen: string[] = [];
    store.watch('g/things', { deliver: (type, s) => seen.push(`${type} ${s.obj.metadata.name}`) }, 8);
    expect(seen).toEqual(['ADDED o9', 'ADDED o10']);
    expect(() => store.watch('g/things', { deliver: () => undefined }, 2)).toThrow(GoneError);
  });

  it('delivers to name-selected watchers only the events of their object, live and replayed', () => {
    const store = new Store();
    const put = (name: string): void => {
      const rv = store.nextResourceVersion();
      store.commit('ADDED', 'g/things', name, {
        obj: { metadata: { name, resourceVersion: String(rv) } },
        rv,
      });
    };
    put('a');
    const seenA: string[] = [];
    const seenAll: string[] = [];
    const stopA = store.watch(
      'g/things',
      { name: 'a', deliver: (t, s) => seenA.push(`${t} ${s.obj.metadata.name}`) },
      0,
    );
    store.watch('g/things', { deliver: (t, s) => seenAll.push(`${t} ${s.obj.metadata.name}`) });
    put('b');
    put('a2');
    expect(seenA).toEqual(['ADDED a']);
    expect(seenAll).toEqual(['ADDED b', 'ADDED a2']);
    expect(store.watcherCount()).toBe(2);
    stopA();
    expect(store.watcherCount()).toBe(1);
  });
});
