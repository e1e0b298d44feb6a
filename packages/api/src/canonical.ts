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
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}

export const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The hash a revision's `spec.hash` carries: sha256 of the canonical JSON of its config. */
export const hashConfig = (config: unknown): string => sha256Hex(canonicalJson(config));
