/**
 * Label selectors (a Layer-2 network's `nodeSelector`): operators and their values, and Kubernetes
 * label syntax for every key and value, so that a typo is refused instead of silently matching no
 * node. Value syntax and list sizes are in the schema; keys of `matchLabels` have no schema.
 */
import type { ResourceKind } from '../names/kubernetes.js';
import { labelKeyProblem } from '../grammar/patterns.js';
import type { LabelSelector } from '../resources/schema.js';
import { SELECTOR_OPERATORS } from '../config/selector.js';
import { problem, type Problem } from './problem.js';

export function checkSelector(kind: ResourceKind, name: string, path: string, sel: LabelSelector): Problem[] {
  const out: Problem[] = [];
  for (const key of Object.keys(sel.matchLabels ?? {})) {
    const bad = labelKeyProblem(key);
    if (bad) out.push(problem({ kind, name }, `${path}.matchLabels`, key, `key: ${bad}`));
  }
  (sel.matchExpressions ?? []).forEach((req, i) => {
    const at = `${path}.matchExpressions[${i}]`;
    const values = req.values ?? [];
    const badKey = labelKeyProblem(req.key);
    if (badKey) out.push(problem({ kind, name }, `${at}.key`, req.key, badKey));
    if (!(SELECTOR_OPERATORS as readonly string[]).includes(req.operator)) {
      out.push(
        problem(
          { kind, name },
          `${at}.operator`,
          req.operator,
          `must be one of ${SELECTOR_OPERATORS.join(', ')}`,
        ),
      );
    } else if ((req.operator === 'In' || req.operator === 'NotIn') && values.length === 0) {
      out.push(
        problem({ kind, name }, `${at}.values`, req.values, `must be non-empty for operator ${req.operator}`),
      );
    } else if ((req.operator === 'Exists' || req.operator === 'DoesNotExist') && values.length > 0) {
      out.push(
        problem({ kind, name }, `${at}.values`, req.values, `must be empty for operator ${req.operator}`),
      );
    }
  });
  return out;
}
