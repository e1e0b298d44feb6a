/**
 * The subset of Kubernetes JSONPath used by CRD printer columns (`additionalPrinterColumns[].jsonPath`):
 * `.a.b`, `['a.b']`, `[0]`, `[-1]`, `[*]`, `..` is not supported, filters `[?(@.k=="v")]` / `!=`,
 * optionally wrapped in `{...}`. Evaluation returns every match, in order.
 */
import { isObject } from '../objects/types.js';

type Step =
  | { kind: 'field'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'wildcard' }
  | { kind: 'filter'; path: string[]; op: '==' | '!=' | 'exists'; value: unknown };

export class JsonPathError extends Error {
  constructor(
    readonly expression: string,
    message: string,
  ) {
    super(`invalid JSONPath ${JSON.stringify(expression)}: ${message}`);
    this.name = 'JsonPathError';
  }
}

export function parseJsonPath(expr: string): Step[] {
  let s = expr.trim();
  if (s.startsWith('{') && s.endsWith('}')) s = s.slice(1, -1).trim();
  if (s.startsWith('$')) s = s.slice(1);
  const steps: Step[] = [];
  let i = 0;
  while (i < s.length) {
    const ch = s[i];
    if (ch === '.') {
      i++;
      let name = '';
      while (i < s.length && s[i] !== '.' && s[i] !== '[') {
        if (s[i] === '\\' && i + 1 < s.length) {
          name += s[i + 1];
          i += 2;
        } else name += s[i++];
      }
      if (name === '*') steps.push({ kind: 'wildcard' });
      else if (name !== '') steps.push({ kind: 'field', name });
    } else if (ch === '[') {
      const end = findClose(s, i);
      if (end < 0) throw new JsonPathError(expr, 'unterminated [');
      const inner = s.slice(i + 1, end).trim();
      i = end + 1;
      if (inner === '*') steps.push({ kind: 'wildcard' });
      else if (/^-?\d+$/.test(inner)) steps.push({ kind: 'index', index: Number(inner) });
      else if (/^'.*'$|^".*"$/.test(inner)) steps.push({ kind: 'field', name: inner.slice(1, -1) });
      else if (inner.startsWith('?(') && inner.endsWith(')'))
        steps.push(parseFilter(expr, inner.slice(2, -1).trim()));
      else throw new JsonPathError(expr, `unsupported subscript [${inner}]`);
    } else {
      throw new JsonPathError(expr, `unexpected ${JSON.stringify(ch)} at ${i}`);
    }
  }
  return steps;
}

function findClose(s: string, open: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = open; i < s.length; i++) {
    const c = s[i];
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[') depth++;
    else if (c === ']' && --depth === 0) return i;
  }
  return -1;
}

function parseFilter(expr: string, f: string): Step {
  const m = f.match(/^@((?:\.[A-Za-z0-9_-]+)+)\s*(?:(==|!=)\s*(.+))?$/);
  if (!m) throw new JsonPathError(expr, `unsupported filter ${f}`);
  const path = (m[1] ?? '').split('.').filter((p) => p !== '');
  if (!m[2]) return { kind: 'filter', path, op: 'exists', value: undefined };
  const raw = (m[3] ?? '').trim();
  let value: unknown;
  if (/^'.*'$/.test(raw)) value = raw.slice(1, -1);
  else {
    try {
      value = JSON.parse(raw);
    } catch {
      throw new JsonPathError(expr, `unsupported filter value ${raw}`);
    }
  }
  return { kind: 'filter', path, op: m[2] as '==' | '!=', value };
}

function get(v: unknown, path: string[]): unknown {
  let cur = v;
  for (const p of path) {
    if (!isObject(cur)) return undefined;
    cur = cur[p];
  }
  return cur;
}

export function evaluateJsonPath(steps: Step[], root: unknown): unknown[] {
  let current: unknown[] = [root];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of current) {
      switch (step.kind) {
        case 'field':
          if (isObject(v) && v[step.name] !== undefined) next.push(v[step.name]);
          break;
        case 'index':
          if (Array.isArray(v)) {
            const idx = step.index < 0 ? v.length + step.index : step.index;
            if (idx >= 0 && idx < v.length) next.push(v[idx]);
          }
          break;
        case 'wildcard':
          if (Array.isArray(v)) next.push(...(v as unknown[]));
          else if (isObject(v)) next.push(...Object.values(v));
          break;
        case 'filter':
          if (Array.isArray(v)) {
            for (const item of v) {
              const got = get(item, step.path);
              const ok =
                step.op === 'exists'
                  ? got !== undefined
                  : step.op === '=='
                    ? got === step.value
                    : got !== step.value;
              if (ok) next.push(item);
            }
          }
          break;
      }
    }
    current = next;
  }
  return current;
}
