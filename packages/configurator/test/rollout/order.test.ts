import { describe, expect, it } from 'vitest';
import { IncrementalPlanner, compareNodes, plan } from '@nodenet/configurator';
import { A, B, assigned, completed, done, input, nc, node, rev } from './fixtures.js';

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

  it('the incremental planner sorts again when a node changes wave (kept start order, issue 26)', () => {
    const planner = new IncrementalPlanner();
    const ncs = ['n0', 'n1', 'n2'].map((n) => nc(n, A, { status: done(A) }));
    const pass = (waves: string[], mono: number) => {
      const { observations: _none, ...fleet } = input({
        revisions: [completed(rev(1, A)), rev(2, B)],
        nodes: waves.map((w, i) => node(`n${i}`, { labels: { wave: w } })),
        nodeConfigs: ncs,
        policy: { waveLabel: 'wave', updateLimit: { kind: 'count', count: 1 } },
        mono,
      });
      const got = planner.plan(fleet);
      expect(got).toEqual(plan({ ...fleet, observations: planner.observations }));
      return assigned(got.actions);
    };
    expect(pass(['2', '1', '3'], 100)).toEqual(['n1']);
    // n2 moves to the first wave (a new Node object), nothing else changes: it goes first now.
    expect(pass(['2', '1', '0'], 200)).toEqual(['n2']);
  });
});
