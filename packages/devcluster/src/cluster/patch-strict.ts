/**
 * Strict decoding of a PATCH body as kube-apiserver does it
 * (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go, `applyJSPatch`,
 * `strategicPatchObject`, `applyPatchToObject`): under `fieldValidation=Strict` or `Warn` a JSON
 * patch is decoded strictly into its operation structs (problems prefixed `json patch `), a merge
 * or strategic merge patch into a map; duplicate keys are found there. Unknown fields come later,
 * from decoding the patched object. Strict refuses the patch with a 422 naming the field `patch`
 * (not the 400 of a create or update), its value the patched object's JSON (merge, JSON patch) or
 * the patch as Go prints a map (strategic merge patch); Warn sends each problem as a warning.
 * Server-side apply differs: a strict YAML decode of the body after the apply (`applyPatcher`).
 */
import type { PatchType } from '../objects/patch.js';
import { invalid, type ApiError } from '../objects/errors.js';
import { isObject } from '../objects/types.js';
import { plainText } from '../objects/text.js';

/** What `admit` needs to refuse or warn about a patch's strict decoding problems. */
export interface PatchStrictness {
  /** Problems found decoding the patch itself, in document order. */
  problems: string[];
  /** The value kube-apiserver names in its error: computed only when it refuses. */
  value: () => string;
}

export function patchStrictness(
  type: Exclude<PatchType, 'apply'>,
  duplicates: readonly string[],
  patchBody: unknown,
  patched: unknown,
): PatchStrictness {
  const prefix = type === 'json' ? 'json patch ' : '';
  return {
    problems: duplicates.map((p) => `${prefix}duplicate field "${p}"`),
    value: () => (type === 'strategic' ? goMapString(patchBody) : goJson(patched)),
  };
}

/** The 422 kube-apiserver returns for a strictly decoded patch: `"" is invalid: patch: ...`. */
export function patchStrictError(value: string, problems: readonly string[]): ApiError {
  return invalid('', '', '', [
    {
      type: 'FieldValueInvalid',
      field: 'patch',
      message: `Invalid value: ${goQuote(value)}: strict decoding error: ${problems.join(', ')}`,
    },
  ]);
}

/** JSON as Go's encoding/json writes a map: keys sorted, `<`, `>`, `&` escaped. */
function goJson(v: unknown): string {
  const sorted = (x: unknown): unknown =>
    Array.isArray(x)
      ? x.map(sorted)
      : isObject(x)
        ? Object.fromEntries(
            Object.keys(x)
              .sort()
              .map((k) => [k, sorted(x[k])]),
          )
        : x;
  return JSON.stringify(sorted(v))
    .replaceAll('<', '\\u003c')
    .replaceAll('>', '\\u003e')
    .replaceAll('&', '\\u0026');
}

/** A decoded JSON value as Go's `%+v` prints a `map[string]interface{}`. */
function goMapString(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goMapString).join(' ')}]`;
  if (isObject(v))
    return `map[${Object.keys(v)
      .sort()
      .map((k) => `${k}:${goMapString(v[k])}`)
      .join(' ')}]`;
  return plainText(v);
}

/** Go's `%q` for the printable text these values are (JSON's quoting, which agrees there). */
function goQuote(s: string): string {
  return JSON.stringify(s);
}
