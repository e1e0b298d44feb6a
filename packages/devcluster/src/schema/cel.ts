/**
 * CEL for devcluster: the `x-kubernetes-validations` rules of CRD schemas (variables `self` and
 * `oldSelf`) and ValidatingAdmissionPolicy expressions (`object`, `oldObject`, `request`, …).
 *
 * Evaluation is @marcbachmann/cel-js: a maintained, zero-dependency CEL implementation with macros
 * (`has`, `all`, `exists`, `map`, `filter`), string functions (`matches`, `startsWith`, `contains`)
 * and an API for extension functions; chosen over writing an evaluator and over @bufbuild/cel,
 * which needs the protobuf runtime. Integers in JSON become CEL `int` (BigInt), as the API server
 * types integer fields, so `self.le <= 32` and `self.count == 1` compare as on a real cluster.
 * Kubernetes' IP and CIDR libraries (`isCIDR`, `cidr()`, `ip()`, …) are registered from cel-net.ts.
 */
import { Environment } from '@marcbachmann/cel-js';
import { registerNetLibraries } from './cel-net.js';

export class CelError extends Error {
  readonly code = 'CelError';
  constructor(
    readonly expression: string,
    readonly phase: 'compile' | 'evaluate',
    detail: string,
  ) {
    super(`${phase === 'compile' ? 'compilation failed' : 'evaluation failed'}: ${detail}`);
    this.name = 'CelError';
  }
}

export type CelProgram = (bindings: Record<string, unknown>) => unknown;

const env = new Environment({ unlistedVariablesAreDyn: true, homogeneousAggregateLiterals: false });
registerNetLibraries(env);
const compiled = new Map<string, CelProgram>();

/** Parses `expression` once (cached); throws CelError('compile') naming the problem. */
export function compileCel(expression: string): CelProgram {
  const hit = compiled.get(expression);
  if (hit) return hit;
  let parsed: ReturnType<typeof env.parse>;
  try {
    parsed = env.parse(expression);
  } catch (err) {
    throw new CelError(expression, 'compile', firstLine(err));
  }
  const program: CelProgram = (bindings) => {
    try {
      return parsed(toCel(bindings) as Record<string, unknown>);
    } catch (err) {
      throw new CelError(expression, 'evaluate', firstLine(err));
    }
  };
  compiled.set(expression, program);
  return program;
}

/** Evaluates a rule that must yield a bool; anything else is an evaluation error. */
export function evaluateCelBool(expression: string, bindings: Record<string, unknown>): boolean {
  const result = compileCel(expression)(bindings);
  if (typeof result !== 'boolean') {
    throw new CelError(expression, 'evaluate', `expected a bool, got ${typeof result}`);
  }
  return result;
}

/** JSON → CEL values: integers become int (BigInt); everything else maps as is. */
function toCel(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(toCel);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, toCel(v)]),
    );
  }
  return value;
}

const firstLine = (err: unknown): string => String((err as Error).message ?? err).split('\n')[0] ?? '';
