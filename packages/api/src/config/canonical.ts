import { createHash } from 'node:crypto';

/**
 * Canonical JSON: object keys sorted at every level, `undefined` members dropped, no whitespace.
 * Arrays keep their order; callers sort the arrays whose order carries no meaning (see config/merge.ts).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sorted(value));
}

/**
 * The value with keys sorted at every level and undefined members dropped, sharing every part
 * that already is (copy on write): a revision's config is hashed on every build and most of its
 * objects need no copy, so the cost is the key check and the native JSON.stringify, not
 * allocation. Objects that are not plain (a Date) are always copied, as a plain copy they
 * serialise like one.
 */
function sorted(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      const s = sorted(v);
      if (s !== v && copy === undefined) copy = value.slice(0, i);
      copy?.push(s);
    }
    return copy ?? value;
  }
  const obj = value as Record<string, unknown>;
  const proto: unknown = Object.getPrototypeOf(obj);
  const own = Object.keys(obj);
  const keys = sortedKeys(own);
  // No prototype: a key such as `__proto__` (a label key in a selector) stays an own key instead of
  // replacing the prototype and vanishing from the hash. Made at the first member that differs
  // (the members before it are the object's own, in place); never for an object that already is.
  const plain = proto === Object.prototype || proto === null;
  let out = plain ? undefined : (Object.create(null) as Record<string, unknown>);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    const v = obj[k];
    const s = v === undefined ? undefined : sorted(v);
    if (out === undefined && (k !== own[i] || v === undefined || s !== v)) {
      out = Object.create(null) as Record<string, unknown>;
      for (let j = 0; j < i; j++) out[keys[j] as string] = obj[keys[j] as string];
    }
    if (out !== undefined && s !== undefined) out[k] = s;
  }
  return out ?? obj;
}

/**
 * Keys in the order the sorted copy enumerates them: JavaScript lists integer-like keys (array
 * indices) first, ascending, then the others in insertion order, which was sorted. Kept exactly,
 * so that hashes already stored on revisions and NodeConfigs do not change.
 */
function sortedKeys(own: readonly string[]): readonly string[] {
  // Most objects already are (an API server writes keys sorted): no copy, no sort.
  let ordered = true;
  for (let i = 1; i < own.length && ordered; i++) ordered = (own[i - 1] as string) < (own[i] as string);
  if (ordered && !own.some(isArrayIndex)) return own;
  const keys = [...own].sort();
  // Integer-like keys are rare; the first-character test in isArrayIndex keeps this check cheap.
  if (!keys.some(isArrayIndex)) return keys;
  const first = keys.filter(isArrayIndex).sort((a, b) => Number(a) - Number(b));
  return [...first, ...keys.filter((k) => !isArrayIndex(k))];
}

const isArrayIndex = (k: string): boolean => {
  const c = k.charCodeAt(0);
  return c >= 48 && c <= 57 && /^(0|[1-9][0-9]*)$/.test(k) && Number(k) < 4294967295;
};

/**
 * Whether two values have the same canonical JSON, without writing it: key order and undefined
 * members do not matter, array order does. Values JSON cannot carry (functions, NaN) are not
 * expected here; they compare by identity.
 */
export function canonicalEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const y = b as unknown[];
    if (a.length !== y.length) return false;
    for (let i = 0; i < a.length; i++) if (!canonicalEqual(a[i] ?? null, y[i] ?? null)) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let n = 0;
  for (const k of Object.keys(x)) {
    if (x[k] === undefined) continue;
    n++;
    if (!canonicalEqual(x[k], y[k])) return false;
  }
  for (const k of Object.keys(y)) if (y[k] !== undefined) n--;
  return n === 0;
}

export const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The hash a revision's `spec.hash` carries: sha256 of the canonical JSON of its config. */
export const hashConfig = (config: unknown): string => sha256Hex(canonicalJson(config));
