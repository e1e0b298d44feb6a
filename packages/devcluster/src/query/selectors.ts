/**
 * Label and field selectors in their query-string form (`?labelSelector=`, `?fieldSelector=`),
 * parsed once per request into predicates.
 */
import { selectorTerms } from '@nodenet/api';
import { badRequest } from '../objects/errors.js';
import {
  FieldSelectorError,
  parseFieldSelector as parseFields,
  requiresExactMatch,
  type FieldRequirement,
} from './field-selector.js';
import { isObject, type KObject } from '../objects/types.js';
import { plainText } from '../objects/text.js';

export type Predicate = (obj: KObject) => boolean;

type LabelRequirement =
  | { op: 'eq' | 'neq'; key: string; value: string }
  | { op: 'in' | 'notin'; key: string; values: string[] }
  | { op: 'exists' | 'notexists'; key: string }
  | { op: 'gt' | 'lt'; key: string; value: number };

const KEY_RE =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const VALUE_RE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function checkKey(key: string, selector: string): string {
  if (!KEY_RE.test(key))
    throw badRequest(`unable to parse requirement: invalid label key "${key}" in selector "${selector}"`);
  return key;
}

function checkValue(value: string, selector: string): string {
  if (value.length > 63 || !VALUE_RE.test(value))
    throw badRequest(
      `unable to parse requirement: invalid label value: "${value}" in selector "${selector}"`,
    );
  return value;
}

export function parseLabelSelector(selector: string): LabelRequirement[] {
  const reqs: LabelRequirement[] = [];
  for (const part of selectorTerms(selector)) {
    let m: RegExpMatchArray | null;
    if ((m = part.match(/^(\S+)\s+(in|notin)\s*\((.*)\)$/))) {
      const values = (m[3] ?? '')
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== '')
        .map((v) => checkValue(v, selector));
      reqs.push({ op: m[2] as 'in' | 'notin', key: checkKey(m[1] ?? '', selector), values });
    } else if ((m = part.match(/^!\s*(\S+)$/))) {
      reqs.push({ op: 'notexists', key: checkKey(m[1] ?? '', selector) });
    } else if ((m = part.match(/^([^=!<>\s]+)\s*(==|=|!=)\s*(\S*)$/))) {
      reqs.push({
        op: m[2] === '!=' ? 'neq' : 'eq',
        key: checkKey(m[1] ?? '', selector),
        value: checkValue(m[3] ?? '', selector),
      });
    } else if ((m = part.match(/^([^=!<>\s]+)\s*([<>])\s*(-?\d+)$/))) {
      reqs.push({ op: m[2] === '>' ? 'gt' : 'lt', key: checkKey(m[1] ?? '', selector), value: Number(m[3]) });
    } else if ((m = part.match(/^([^=!<>\s()]+)$/))) {
      reqs.push({ op: 'exists', key: checkKey(m[1] ?? '', selector) });
    } else {
      throw badRequest(
        `unable to parse requirement: found '${part}', expected: identifier in selector "${selector}"`,
      );
    }
  }
  return reqs;
}

export function matchLabels(reqs: LabelRequirement[], labels: Record<string, string> | undefined): boolean {
  const l = labels ?? {};
  for (const r of reqs) {
    const has = Object.prototype.hasOwnProperty.call(l, r.key);
    const v = l[r.key];
    switch (r.op) {
      case 'eq':
        if (!has || v !== r.value) return false;
        break;
      case 'neq':
        if (has && v === r.value) return false;
        break;
      case 'in':
        if (!has || !r.values.includes(v as string)) return false;
        break;
      case 'notin':
        if (has && r.values.includes(v as string)) return false;
        break;
      case 'exists':
        if (!has) return false;
        break;
      case 'notexists':
        if (has) return false;
        break;
      case 'gt':
      case 'lt': {
        if (!has || !/^-?\d+$/.test(v as string)) return false;
        const n = Number(v);
        if (r.op === 'gt' ? !(n > r.value) : !(n < r.value)) return false;
        break;
      }
    }
  }
  return true;
}

/** Value of a dotted field path (`metadata.name`, `involvedObject.uid`) as the selector compares it. */
function fieldValue(obj: KObject, path: string): string | undefined {
  let cur: unknown = obj;
  for (const seg of path.split('.')) {
    if (!isObject(cur)) return undefined;
    cur = cur[seg];
  }
  if (cur === undefined || cur === null) return undefined;
  return plainText(cur);
}

/**
 * Field selectors, parsed as apimachinery parses them (`field-selector.ts`). A field must be a
 * dotted path: `metadata.name` and `metadata.namespace` for every kind as on a real server; any
 * other path (for example `involvedObject.name`, used by `kubectl describe`) is compared against
 * the object's value, a superset of what the real server allows per kind. Anything else is
 * refused as kube-apiserver's field label conversion refuses it.
 */
export function parseFieldSelector(selector: string): FieldRequirement[] {
  let reqs: FieldRequirement[];
  try {
    reqs = parseFields(selector);
  } catch (e) {
    if (e instanceof FieldSelectorError) throw badRequest(e.message);
    throw e;
  }
  for (const r of reqs)
    if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(r.field))
      throw badRequest(`field label not supported: ${r.field}`);
  return reqs;
}

export function matchFields(reqs: FieldRequirement[], obj: KObject): boolean {
  for (const r of reqs) {
    const v = fieldValue(obj, r.field) ?? '';
    if (r.negate ? v === r.value : v !== r.value) return false;
  }
  return true;
}

/** Combined predicate for a request; undefined when nothing filters. */
export function selectorPredicate(labelSelector?: string, fieldSelector?: string): Predicate | undefined {
  const labels = labelSelector ? parseLabelSelector(labelSelector) : [];
  const fields = fieldSelector ? parseFieldSelector(fieldSelector) : [];
  if (labels.length === 0 && fields.length === 0) return undefined;
  return (obj) => matchLabels(labels, obj.metadata.labels) && matchFields(fields, obj);
}

/** The object name an equality requirement on `metadata.name` pins the selector to, if any. */
export function selectedName(fieldSelector: string | undefined): string | undefined {
  if (!fieldSelector) return undefined;
  return requiresExactMatch(parseFieldSelector(fieldSelector), 'metadata.name');
}
