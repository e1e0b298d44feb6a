import type { LabelSelector, LabelSelectorRequirement } from './schema.js';

export const SELECTOR_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;

/**
 * The value of label `key` in `labels`, or undefined: own labels only, so a key such as
 * `constructor` or `toString` never reads Object.prototype's member.
 */
export const labelOf = (labels: Readonly<Record<string, string>>, key: string): string | undefined =>
  Object.hasOwn(labels, key) ? labels[key] : undefined;

/**
 * Kubernetes LabelSelector semantics: all matchLabels and all matchExpressions must hold; an empty or
 * absent selector matches every node. The selector is assumed valid (see validateInputs).
 */
export function matchesSelector(
  selector: LabelSelector | undefined,
  labels: Record<string, string>,
): boolean {
  if (!selector) return true;
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    // Own labels only: a key such as `constructor` must not match Object.prototype's member.
    if (labelOf(labels, key) !== value) return false;
  }
  return (selector.matchExpressions ?? []).every((req) => matchesRequirement(req, labels));
}

function matchesRequirement(req: LabelSelectorRequirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, req.key);
  const value = labels[req.key];
  switch (req.operator) {
    case 'In':
      return has && (req.values ?? []).includes(value as string);
    case 'NotIn':
      return !has || !(req.values ?? []).includes(value as string);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    default:
      // Unknown operators never match: a node is better left without a network than given one by mistake.
      return false;
  }
}

/**
 * The terms of a selector in kubectl's syntax (`k=v,k in (a,b),!k`): split on the commas outside
 * parentheses, trimmed, empty ones dropped. Each user (the configurator's flag, devcluster's list
 * filter) then parses a term with its own errors.
 */
export function selectorTerms(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

/** A LabelSelector in kubectl's `-l` syntax; `(all nodes)` when absent or empty. */
export function selectorText(sel: LabelSelector | undefined): string {
  if (!sel) return '(all nodes)';
  const parts = Object.entries(sel.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of sel.matchExpressions ?? []) {
    const values = `(${(e.values ?? []).join(',')})`;
    if (e.operator === 'In') parts.push(`${e.key} in ${values}`);
    else if (e.operator === 'NotIn') parts.push(`${e.key} notin ${values}`);
    else if (e.operator === 'Exists') parts.push(e.key);
    else if (e.operator === 'DoesNotExist') parts.push(`!${e.key}`);
    else parts.push(`${e.key} ${e.operator} ${values}`);
  }
  return parts.length ? parts.join(',') : '(all nodes)';
}

/**
 * Why an object's `spec.nodeSelector` selects nothing (a typo in a label?), or undefined: it has no
 * selector, or some node matches. One text for the configurator's `Selected=False` condition and
 * devcluster's apply-time warning.
 */
export function noNodeMatches(
  spec: unknown,
  nodes: readonly Readonly<Record<string, string>>[],
): string | undefined {
  const selector = selectorOf(spec);
  if (selector === undefined || nodes.some((labels) => matchesSelector(selector, labels))) return undefined;
  return `nodeSelector ${selectorText(selector)} matches none of the ${nodes.length} node(s)`;
}

/** `spec.nodeSelector` when it is an object (a LabelSelector), else undefined. */
export function selectorOf(spec: unknown): LabelSelector | undefined {
  const sel = (spec as { nodeSelector?: unknown } | null | undefined)?.nodeSelector;
  return typeof sel === 'object' && sel !== null && !Array.isArray(sel) ? (sel as LabelSelector) : undefined;
}
