import type { LabelSelector, LabelSelectorRequirement } from '../resources/schema.js';

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
  const { matchLabels, matchExpressions } = selector;
  // Plain loops: every node of a build asks about every selector, so no array per question.
  if (matchLabels !== undefined)
    for (const key of Object.keys(matchLabels)) {
      // Own labels only: a key such as `constructor` must not match Object.prototype's member.
      if (labelOf(labels, key) !== matchLabels[key]) return false;
    }
  if (matchExpressions !== undefined)
    for (const req of matchExpressions) if (!matchesRequirement(req, labels)) return false;
  return true;
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
  return typeof sel === 'object' && sel !== null && !Array.isArray(sel) ? sel : undefined;
}

/**
 * Whether every label set `narrow` matches is also matched by `wide`, decided from the selectors'
 * text alone (no nodes): each requirement of `wide` must follow from one requirement of `narrow`
 * (`k=v` follows from `k=v` or `k In (v)`; `k In S` from `k=v` or `k In T` with v ∈ S, T ⊆ S;
 * `k NotIn S` from `k=v` / `k In T` outside S, `k NotIn T` with T ⊇ S, or `k DoesNotExist`;
 * `k Exists` from `k=v`, `k In T` or `k Exists`; `k DoesNotExist` from itself). Sound, and complete
 * for the cases people write (the wide selector's terms repeated or narrowed in the narrow one); an
 * absent or empty `wide` is implied by anything. Deterministic and node-independent, so a check that
 * uses it gives the same answer whatever nodes exist today. Selectors are assumed valid.
 */
export function selectorImplies(narrow: LabelSelector | undefined, wide: LabelSelector | undefined): boolean {
  if (!wide) return true;
  const terms = selectorRequirements(narrow);
  const wanted = selectorRequirements(wide);
  return wanted.every((w) => terms.some((n) => requirementImplies(n, w)));
}

/** matchLabels as `k In (v)` requirements, then matchExpressions. */
function selectorRequirements(sel: LabelSelector | undefined): LabelSelectorRequirement[] {
  if (!sel) return [];
  return [
    ...Object.entries(sel.matchLabels ?? {}).map(([key, value]) => ({
      key,
      operator: 'In',
      values: [value],
    })),
    ...(sel.matchExpressions ?? []),
  ];
}

function requirementImplies(n: LabelSelectorRequirement, w: LabelSelectorRequirement): boolean {
  if (n.key !== w.key) return false;
  const nv = n.values ?? [];
  const wv = w.values ?? [];
  switch (w.operator) {
    case 'In':
      return n.operator === 'In' && nv.length > 0 && nv.every((v) => wv.includes(v));
    case 'NotIn':
      return (
        (n.operator === 'In' && nv.every((v) => !wv.includes(v))) ||
        (n.operator === 'NotIn' && wv.every((v) => nv.includes(v))) ||
        n.operator === 'DoesNotExist'
      );
    case 'Exists':
      return (n.operator === 'In' && nv.length > 0) || n.operator === 'Exists';
    case 'DoesNotExist':
      return n.operator === 'DoesNotExist';
    default:
      return false;
  }
}

/**
 * Whether no label set can match both selectors, decided from their text alone (no nodes): some key
 * has requirements in the two that contradict (`k In S` and `k In T` with S, T disjoint; `k In S`
 * and `k NotIn T` with S ⊆ T; `k In S` or `k Exists` and `k DoesNotExist`). Sound; selectors that
 * say nothing about a common key may match one node and are not disjoint. Deterministic and
 * node-independent, so a conflict it finds does not come and go with node labels.
 */
export function selectorsDisjoint(a: LabelSelector | undefined, b: LabelSelector | undefined): boolean {
  const as = selectorRequirements(a);
  const bs = selectorRequirements(b);
  return as.some((x) => bs.some((y) => x.key === y.key && (excludes(x, y) || excludes(y, x))));
}

/** Whether no value (or absence) of the key satisfies both requirements, `x` taken first. */
function excludes(x: LabelSelectorRequirement, y: LabelSelectorRequirement): boolean {
  const xv = x.values ?? [];
  const yv = y.values ?? [];
  if (x.operator === 'In' && y.operator === 'In') return !xv.some((v) => yv.includes(v));
  if (x.operator === 'In' && y.operator === 'NotIn') return xv.every((v) => yv.includes(v));
  if ((x.operator === 'In' || x.operator === 'Exists') && y.operator === 'DoesNotExist') return true;
  return false;
}
