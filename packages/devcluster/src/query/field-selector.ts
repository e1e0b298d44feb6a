/**
 * Field selectors parsed exactly as apimachinery's `fields.ParseSelector` parses them
 * (k8s.io/apimachinery/pkg/fields/selector.go), because two parts of the server read the same
 * text and must agree: the authorizer, which takes a list or watch pinned by `metadata.name=x` to
 * be a request for the object `x` (RequestInfo), and the list / watch filter that then decides
 * what the client receives. A different split in either (on every comma, or only outside
 * parentheses) would let one name be authorized and others be returned.
 *
 * - Terms are split on commas not escaped with a backslash; empty terms are skipped; terms are
 *   sorted (the first `metadata.name` term after sorting is the one a request is pinned to).
 * - A term splits at the first `!=`, `==` or `=`; nothing is trimmed.
 * - A value unescapes `\\`, `\,` and `\=`; any other escape, a trailing backslash, or an unescaped
 *   `,` or `=` is an error.
 */
import { badRequest } from '../objects/errors.js';

export interface FieldRequirement {
  field: string;
  value: string;
  negate: boolean;
}

/** Splits on commas not escaped by a backslash (the backslash stays in the term). */
function splitTerms(selector: string): string[] {
  if (selector === '') return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

const OPERATORS = ['!=', '==', '='] as const;

function splitTerm(term: string): { field: string; op: string; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++)
    for (const op of OPERATORS)
      if (term.startsWith(op, i)) return { field: term.slice(0, i), op, rhs: term.slice(i + op.length) };
  return undefined;
}

/** A field selector error, worded as apimachinery words it (the API server answers 400 with it). */
export class FieldSelectorError extends Error {
  override name = 'FieldSelectorError';
}

function unescapeValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=')
        throw new FieldSelectorError(`invalid field selector: invalid escape sequence: \\${c}`);
      out += c;
      inSlash = false;
    } else if (c === '\\') inSlash = true;
    else if (c === ',' || c === '=')
      // Go formats the rune with %v: its code point.
      throw new FieldSelectorError(
        `invalid field selector: unescaped character in value: ${c.codePointAt(0)}`,
      );
    else out += c;
  }
  if (inSlash) throw new FieldSelectorError('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** Parses a field selector; throws FieldSelectorError with apimachinery's message. */
export function parseFieldSelector(selector: string): FieldRequirement[] {
  const terms = splitTerms(selector).sort();
  const reqs: FieldRequirement[] = [];
  for (const term of terms) {
    if (term === '') continue;
    const parts = splitTerm(term);
    if (!parts) throw new FieldSelectorError(`invalid selector: '${selector}'; can't understand '${term}'`);
    reqs.push({ field: parts.field, value: unescapeValue(parts.rhs), negate: parts.op === '!=' });
  }
  return reqs;
}

/** `RequiresExactMatch`: the value of the first (sorted) equality term on `field`. */
export function requiresExactMatch(reqs: FieldRequirement[], field: string): string | undefined {
  return reqs.find((r) => r.field === field && !r.negate)?.value;
}

/** `fields.EscapeValue`: a literal value as a selector value. */
export const escapeFieldValue = (v: string): string =>
  v.replaceAll('\\', '\\\\').replaceAll(',', '\\,').replaceAll('=', '\\=');

/** `path.IsValidPathSegmentName`: what RequestInfo accepts as a name from a field selector. */
export const isValidPathSegmentName = (name: string): boolean =>
  name !== '.' && name !== '..' && !name.includes('/') && !name.includes('%');

/**
 * The name a list or watch request is for, as kube-apiserver's RequestInfo reads it: the exact
 * `metadata.name` of a field selector that parses (one that does not leaves the request unnamed,
 * so it needs the right to list everything, and its handler then refuses it with 400).
 */
export function pinnedName(selector: string | null | undefined): string | undefined {
  if (!selector) return undefined;
  let reqs: FieldRequirement[];
  try {
    reqs = parseFieldSelector(selector);
  } catch {
    return undefined;
  }
  const name = requiresExactMatch(reqs, 'metadata.name');
  return name !== undefined && isValidPathSegmentName(name) ? name : undefined;
}

/**
 * The field selector a list or watch is served with: on the legacy `/watch/<plural>/<name>` path
 * the name is a `metadata.name` requirement, and a field selector the request also sends must
 * require that same name (kube-apiserver's ListResource).
 */
export function effectiveFieldSelector(
  selector: string | null,
  routeName: string | undefined,
): string | null {
  if (routeName === undefined) return selector;
  if (selector) {
    let reqs: FieldRequirement[];
    try {
      reqs = parseFieldSelector(selector);
    } catch (e) {
      throw badRequest((e as Error).message);
    }
    if (reqs.length > 0) {
      if (requiresExactMatch(reqs, 'metadata.name') !== routeName)
        throw badRequest("fieldSelector metadata.name doesn't match requested name");
      return selector;
    }
  }
  return `metadata.name=${escapeFieldValue(routeName)}`;
}
