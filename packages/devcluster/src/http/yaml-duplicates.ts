/**
 * Duplicate keys in a YAML (or JSON) server-side apply body, worded as kube-apiserver's strict YAML
 * decoder (go-yaml v2 `UnmarshalStrict`, via sigs.k8s.io/yaml) words them: `line 3: key "a"
 * already set in map`, the line being the repeated key's value's, in the order the decoder meets
 * them (a value's own duplicates before the key that holds it).
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';

export function yamlDuplicateKeys(text: string): string[] {
  const lines = new LineCounter();
  const doc = parseDocument(text, { uniqueKeys: false, lineCounter: lines });
  const found: string[] = [];
  const lineOf = (offset: number): number => lines.linePos(offset).line;
  // Iterative walk: a pair's value, then whether its key repeats one before it (as the decoder
  // meets them); no nesting depth the parser accepted can overflow the stack.
  const stack: ({ node: unknown } | { duplicate: string })[] = [{ node: doc.contents }];
  while (stack.length) {
    const top = stack.pop()!;
    if ('duplicate' in top) {
      found.push(top.duplicate);
      continue;
    }
    const node = top.node;
    if (isSeq(node)) for (const item of [...node.items].reverse()) stack.push({ node: item });
    if (!isMap(node)) continue;
    const seen = new Set<unknown>();
    const steps: ({ node: unknown } | { duplicate: string })[] = [];
    for (const pair of node.items) {
      steps.push({ node: pair.value });
      const key = isScalar(pair.key) ? pair.key.value : pair.key;
      if (!seen.has(key)) {
        seen.add(key);
        continue;
      }
      const at = (pair.value as Node | null)?.range?.[0] ?? (pair.key as Node | null)?.range?.[0] ?? 0;
      const shown = typeof key === 'string' ? JSON.stringify(key) : String(key);
      steps.push({ duplicate: `line ${lineOf(at)}: key ${shown} already set in map` });
    }
    stack.push(...steps.reverse());
  }
  return found;
}
