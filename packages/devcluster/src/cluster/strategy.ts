/**
 * What a request body must be to be stored, per type (the apiserver's "strategy"): decoding against
 * the URL's type, defaulting, pruning and validation, and the CRD-specific defaults and checks.
 */
import type { UserInfo } from './admission.js';
import { badRequest, invalid, type FieldError } from '../objects/errors.js';
import { validateMetadata, validateName } from '../objects/metadata.js';
import { apiVersionOf, type ResourceType } from '../resources/resources.js';
import { applyDefaults, prune } from '../schema/schema.js';
import { checkSchemaSupported, validate } from '../schema/schema-validate.js';
import { clone, isObject, type KObject } from '../objects/types.js';
import { patchStrictError, type PatchStrictness } from './patch-strict.js';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export interface WriteOptions {
  dryRun?: boolean;
  /** `?fieldManager=`; required for server-side apply. */
  fieldManager?: string;
  fieldValidation?: FieldValidation;
  /** Filled with warnings to send back as `Warning` headers. */
  warnings?: string[];
  /** Who writes (admission policies see it as request.userInfo); the server itself when absent. */
  user?: UserInfo;
  /** Paths of keys the JSON body holds twice (`json-duplicates.ts`). */
  duplicateFields?: string[];
  /** The repeated keys of a server-side apply body, as `line 3: key "a" already set in map`. */
  applyDuplicateKeys?: string[];
  /** Set by a patch (not an apply): its strict decoding problems and how they are refused. */
  patch?: PatchStrictness;
}

/** A copy of the body with apiVersion and kind checked against (and set to) the URL's type. */
export function decodeBody(t: ResourceType, body: unknown): KObject {
  if (!isObject(body)) throw badRequest(`the body of the request was not a ${t.kind} object`);
  const obj = clone(body) as KObject;
  if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
  if (!isObject(obj.metadata)) throw badRequest('metadata must be an object');
  const expected = apiVersionOf(t);
  if (obj.kind !== undefined && obj.kind !== t.kind)
    throw badRequest(
      `the kind in the data (${String(obj.kind)}) does not match the expected kind (${t.kind})`,
    );
  if (obj.apiVersion !== undefined && obj.apiVersion !== expected)
    throw badRequest(
      `the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${expected})`,
    );
  obj.apiVersion = expected;
  obj.kind = t.kind;
  return obj;
}

/** Decodes and checks a body in a converting type's own form, then converts it to the stored form. */
export function toStorage(t: ResourceType, body: unknown): KObject {
  const obj = decodeBody(t, body);
  const errs = t.validateBuiltin?.(obj) ?? [];
  if (errs.length) throw invalid(t.kind, t.group, obj.metadata.name ?? '', errs);
  return t.convert ? t.convert.toStorage(obj) : obj;
}

/** Defaulting, pruning and validation; throws 422 (or 400 for strict unknown fields). */
export function admit(t: ResourceType, obj: KObject, opts: WriteOptions): void {
  // Strict decoding problems as kube-apiserver lists them for an unstructured body: duplicate
  // keys (found while decoding the body or the patch), then unknown fields (found while pruning).
  const problems = opts.patch
    ? [...opts.patch.problems]
    : (opts.duplicateFields ?? []).map((p) => `duplicate field "${p}"`);
  if (t.crd && t.schema) {
    applyDefaults(obj, t.schema);
    problems.push(...prune(obj, t.schema).map((p) => `unknown field "${p}"`));
  }
  if (problems.length) {
    const mode = opts.fieldValidation ?? 'Warn';
    if (mode === 'Strict' && opts.patch) throw patchStrictError(opts.patch.value(), problems);
    if (mode === 'Strict')
      throw badRequest(
        `${t.kind} in version "${t.version}" cannot be handled as a ${t.kind}: strict decoding error: ${problems.join(', ')}`,
      );
    if (mode === 'Warn') opts.warnings?.push(...problems);
  }
  const errs: FieldError[] = validateMetadata(obj, t.plural === 'namespaces');
  if (t.schema) errs.push(...validate(obj, t.schema));
  if (t.validateBuiltin) errs.push(...t.validateBuiltin(obj));
  if (isCrdType(t)) errs.push(...validateCrd(obj));
  if (errs.length) throw invalid(t.kind, t.group, obj.metadata.name ?? '', errs);
}

export const isCrdType = (t: ResourceType): boolean =>
  t.plural === 'customresourcedefinitions' && t.group === 'apiextensions.k8s.io';

export const isNamespaceType = (t: ResourceType): boolean => t.plural === 'namespaces' && !t.group;

export function defaultCrd(obj: KObject): void {
  const spec = obj.spec;
  if (!isObject(spec)) return;
  if (!isObject(spec.conversion)) spec.conversion = { strategy: 'None' };
  if (isObject(spec.names)) {
    if (!spec.names.singular && typeof spec.names.kind === 'string')
      spec.names.singular = spec.names.kind.toLowerCase();
    if (!spec.names.listKind && typeof spec.names.kind === 'string')
      spec.names.listKind = `${spec.names.kind}List`;
  }
}
/** The checks of apiextensions validation that decide whether a CRD can be served. */
function validateCrd(obj: KObject): FieldError[] {
  const errs: FieldError[] = [];
  const req = (field: string): FieldError => ({
    type: 'FieldValueRequired',
    field,
    message: 'Required value',
  });
  const spec = obj.spec;
  if (!isObject(spec)) return [req('spec')];
  const names = isObject(spec.names) ? spec.names : undefined;
  if (typeof spec.group !== 'string' || !spec.group) errs.push(req('spec.group'));
  else if (!spec.group.includes('.'))
    errs.push({
      type: 'FieldValueInvalid',
      field: 'spec.group',
      message: `Invalid value: ${JSON.stringify(spec.group)}: should be a domain with at least one dot`,
    });
  if (!names) errs.push(req('spec.names'));
  else {
    if (typeof names.plural !== 'string' || !names.plural) errs.push(req('spec.names.plural'));
    else errs.push(...validateName(names.plural, true, 'spec.names.plural'));
    if (typeof names.kind !== 'string' || !names.kind) errs.push(req('spec.names.kind'));
  }
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster')
    errs.push({
      type: 'FieldValueNotSupported',
      field: 'spec.scope',
      message: `Unsupported value: ${JSON.stringify(spec.scope ?? '')}: supported values: "Cluster", "Namespaced"`,
    });
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  if (versions.length === 0) errs.push(req('spec.versions'));
  else if (versions.filter((v) => isObject(v) && v.storage === true).length !== 1)
    errs.push({
      type: 'FieldValueInvalid',
      field: 'spec.versions',
      message: `Invalid value: ${JSON.stringify(versions.map((v: unknown) => (isObject(v) ? v.name : v)))}: must have exactly one version marked as storage version`,
    });
  versions.forEach((v, i) => {
    if (!isObject(v) || typeof v.name !== 'string' || !v.name) errs.push(req(`spec.versions[${i}].name`));
    // A pattern or CEL rule that does not compile would fail every write of the type: refused now.
    const schema = isObject(v) && isObject(v.schema) ? v.schema.openAPIV3Schema : undefined;
    if (!isObject(schema)) return;
    for (const problem of checkSchemaSupported(schema, `spec.versions[${i}].schema.openAPIV3Schema`)) {
      const at = problem.indexOf(': ');
      errs.push({ type: 'FieldValueInvalid', field: problem.slice(0, at), message: problem.slice(at + 2) });
    }
  });
  if (
    names &&
    typeof names.plural === 'string' &&
    typeof spec.group === 'string' &&
    obj.metadata.name !== `${names.plural}.${spec.group}`
  )
    errs.push({
      type: 'FieldValueInvalid',
      field: 'metadata.name',
      message: `Invalid value: ${JSON.stringify(obj.metadata.name)}: must be spec.names.plural+"."+spec.group`,
    });
  return errs;
}
