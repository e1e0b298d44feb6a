import { createHash } from 'node:crypto';

/**
 * Canonical JSON: object keys sorted at every level, `undefined` members dropped, no whitespace.
 * Arrays keep their order; callers sort the arrays whose order carries no meaning (see merge.ts).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    // fromEntries defines own properties: a key such as `__proto__` (a label key in a selector)
    // stays a key instead of replacing the prototype and vanishing from the hash.
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

export const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The hash a revision's `spec.hash` carries: sha256 of the canonical JSON of its config. */
export const hashConfig = (config: unknown): string => sha256Hex(canonicalJson(config));
