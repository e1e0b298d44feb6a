/**
 * What every validation rule returns: one `Problem` per fault, naming the kind, the object, the field
 * path and the value, so that `Accepted=False` and the Event tell a person exactly what to fix.
 */
import { NodenetError, preview } from '../errors.js';
import type { ResourceKind } from '../names/kubernetes.js';

export interface Problem {
  kind: ResourceKind;
  /** metadata.name of the object at fault. */
  name: string;
  /** Field path inside the object, e.g. `spec.import[2].cidr`. */
  field: string;
  /** The offending value (undefined for a missing field). */
  value: unknown;
  reason: string;
  /** `<kind> <name>: <field>: <reason> (got <value>)`, the text used in conditions, events and logs. */
  message: string;
}

/** Thrown where a caller needs an exception rather than a list. */
export class ValidationError extends NodenetError {
  constructor(readonly problems: Problem[]) {
    super(
      'InvalidInput',
      problems.length === 1
        ? (problems[0] as Problem).message
        : `${problems.length} problems:\n${problems.map((p) => `- ${p.message}`).join('\n')}`,
    );
  }
}

/** The object a problem is about. */
export interface ProblemObject {
  kind: ResourceKind;
  name: string;
}

export function problem(
  { kind, name }: ProblemObject,
  field: string,
  value: unknown,
  reason: string,
): Problem {
  // A short prefix of the value: a message quoting a megabyte would not fit in the input's status.
  const got = value === undefined ? '' : ` (got ${preview(value)})`;
  return { kind, name, field, value, reason, message: `${kind} ${name}: ${field}: ${reason}${got}` };
}

/**
 * Records `value` as the holder of `key` unless another holder came first; returns that earlier
 * holder, which is what every "duplicates …" / "already used by …" check reports. Callers visit
 * objects in blame order (see `blameOrder`), so the first holder is the one that keeps the claim.
 */
export function claim<K, V>(holders: Map<K, V>, key: K, value: V): V | undefined {
  const earlier = holders.get(key);
  if (earlier === undefined) holders.set(key, value);
  return earlier;
}
