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
