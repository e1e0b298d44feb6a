import { describe, expect, it } from 'vitest';
import { compareNodes } from '@nodenet/configurator';
import { node } from './fixtures.js';

describe('start order', () => {
  it('numbers (numerically), then text values, then unlabelled, then by name', () => {
    const ns = [
      node('a', { labels: { wave: '2' } }),
      node('b', { labels: { wave: '10' } }),
      node('c'),
      node('d', { labels: { wave: '1' } }),
      node('e', { labels: { wave: 'canary' } }),
      node('f', { labels: { wave: '2' } }),
      node('g', { labels: { wave: 'beta' } }),
      node('h', { labels: { wave: '-1' } }),
    ];
    expect([...ns].sort(compareNodes('wave')).map((n) => n.name)).toEqual([
      'h',
      'd',
      'a',
      'f',
      'b',
      'g',
      'e',
      'c',
    ]);
  });

  // Issue item 5: mixing numeric and text values made the order depend on the input order.
  it('is a strict total order whatever the input order', () => {
    const values = [undefined, '-3', '0', '1', '01', '1.5', '2', '10', 'a', 'B', 'b', 'x1', '', ' 1'];
    const ns = values.flatMap((w, i) =>
      ['n1', 'n0'].map((name) => node(`${name}-${i}`, { labels: w === undefined ? {} : { wave: w } })),
    );
    const cmp = compareNodes('wave');
    const sorted = [...ns].sort(cmp).map((n) => n.name);
    // Every rotation and the reverse of the input sort the same; the comparison is antisymmetric.
    for (let k = 0; k < ns.length; k++) {
      const rotated = [...ns.slice(k), ...ns.slice(0, k)];
      expect([...rotated].sort(cmp).map((n) => n.name)).toEqual(sorted);
      expect(
        [...rotated]
          .reverse()
          .sort(cmp)
          .map((n) => n.name),
      ).toEqual(sorted);
    }
    for (const a of ns)
      for (const b of ns) expect(Math.sign(cmp(a, b))).toBe(a === b ? 0 : -Math.sign(cmp(b, a)));
  });
});
