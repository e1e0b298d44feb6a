import { describe, expect, it } from 'vitest';
import { OptionError } from '@nodenet/api';
import { parseUpdateLimit, parseSelectorFlag } from '@nodenet/configurator';

describe('flag parsing', () => {
  it.each([
    ['1', { kind: 'count', count: 1 }],
    ['100', { kind: 'count', count: 100 }],
    ['25%', { kind: 'percent', percent: 25 }],
    ['12.5%', { kind: 'percent', percent: 12.5 }],
  ])('update limit %s', (text, limit) => expect(parseUpdateLimit(text)).toEqual(limit));

  it.each(['0', '0%', '101%', '-1', 'x', '1.5'])('rejects update limit %j', (text) => {
    expect(() => parseUpdateLimit(text)).toThrow(OptionError);
  });

  it.each([
    ['', undefined],
    ['role=edge', { matchLabels: { role: 'edge' } }],
    [
      'role==edge,zone!=a',
      {
        matchLabels: { role: 'edge' },
        matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }],
      },
    ],
    [
      'tier in (a, b),!legacy,gpu',
      {
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['a', 'b'] },
          { key: 'legacy', operator: 'DoesNotExist' },
          { key: 'gpu', operator: 'Exists' },
        ],
      },
    ],
    ['zone notin (x)', { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['x'] }] }],
  ])('node selector %j', (text, sel) => expect(parseSelectorFlag(text)).toEqual(sel));

  it.each(['a=b=c', 'in (x)', 'k in a', '=v'])('rejects node selector %j', (text) => {
    expect(() => parseSelectorFlag(text)).toThrow(/--node-selector/);
  });
});

describe('--revision-history-limit', () => {
  it('is at least 1', async () => {
    const { parsePositiveInt } = await import('../src/policy/policy.js');
    expect(parsePositiveInt('3', '--revision-history-limit')).toBe(3);
    expect(() => parsePositiveInt('0', '--revision-history-limit')).toThrow(
      '--revision-history-limit: must be a positive integer (at least 1) (got "0")',
    );
  });
});
