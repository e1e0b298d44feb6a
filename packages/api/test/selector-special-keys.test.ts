/**
 * Label keys that are names of Object.prototype members (`constructor`, `toString`, `__proto__`) are
 * ordinary keys: a selector or a wave label reads a node's own labels only (issue #25).
 */
import { describe, expect, it } from 'vitest';
import { canonicalJson, labelOf, matchesSelector } from '@nodenet/api';

describe('special label keys', () => {
  const plain = { role: 'worker' };
  const special = JSON.parse('{"constructor":"x","__proto__":"p","toString":"t"}') as Record<string, string>;

  it('labelOf reads own labels only', () => {
    expect(labelOf(plain, 'constructor')).toBeUndefined();
    expect(labelOf(plain, 'toString')).toBeUndefined();
    expect(labelOf(special, 'constructor')).toBe('x');
    expect(labelOf(special, '__proto__')).toBe('p');
  });

  it('Exists and DoesNotExist do not see Object.prototype members', () => {
    const exists = { matchExpressions: [{ key: 'constructor', operator: 'Exists' }] };
    const absent = { matchExpressions: [{ key: 'toString', operator: 'DoesNotExist' }] };
    expect(matchesSelector(exists, plain)).toBe(false);
    expect(matchesSelector(exists, special)).toBe(true);
    expect(matchesSelector(absent, plain)).toBe(true);
    expect(matchesSelector(absent, special)).toBe(false);
  });

  it('matchLabels compares own labels', () => {
    expect(matchesSelector({ matchLabels: { constructor: 'x' } }, plain)).toBe(false);
    expect(matchesSelector({ matchLabels: { constructor: 'x' } }, special)).toBe(true);
  });

  it('canonical JSON keeps a __proto__ key (it would otherwise vanish from the hash)', () => {
    const withProto = JSON.parse('{"b":1,"__proto__":{"x":1}}') as unknown;
    expect(canonicalJson(withProto)).toBe('{"__proto__":{"x":1},"b":1}');
    expect(canonicalJson(withProto)).not.toBe(canonicalJson({ b: 1 }));
  });
});
