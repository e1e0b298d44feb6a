/**
 * ValidatingAdmissionPolicy evaluation (admissionregistration.k8s.io/v1), pure: given a policy, the
 * bindings that name it and one request's attributes, the decision the API server would make.
 *
 * Implemented as kube-apiserver does: matchConstraints.resourceRules (groups, versions, operations,
 * resources with `*` and `sub/resource` forms, resourceNames), matchConditions (all must be true;
 * an error under failurePolicy Fail denies), variables (evaluated in order, each sees the earlier
 * ones), validations (first false one denies with its message or messageExpression, reason
 * defaulting to Invalid); only bindings with validationActions containing Deny deny. Not
 * implemented: namespace/object selectors, paramKind/paramRef, auditAnnotations, Warn and Audit.
 */
import type { AdmissionAttributes } from '../cluster/admission.js';
import { compileCel, CelError } from '../schema/cel.js';

export type { AdmissionAttributes, UserInfo } from '../cluster/admission.js';

interface ResourceRule {
  apiGroups?: string[];
  apiVersions?: string[];
  operations?: string[];
  resources?: string[];
  resourceNames?: string[];
}
interface NamedExpression {
  name: string;
  expression: string;
}
interface Validation {
  expression: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
}
export interface ValidatingAdmissionPolicy {
  metadata: { name: string };
  spec: {
    failurePolicy?: 'Fail' | 'Ignore';
    matchConstraints?: { resourceRules?: ResourceRule[] };
    matchConditions?: NamedExpression[];
    variables?: NamedExpression[];
    validations?: Validation[];
  };
}
export interface ValidatingAdmissionPolicyBinding {
  metadata: { name: string };
  spec: { policyName: string; validationActions?: string[] };
}

export type AdmissionDecision =
  { allowed: true } | { allowed: false; reason: string; message: string; policy: string; binding: string };

const listed = (values: string[] | undefined, value: string): boolean =>
  (values ?? []).some((v) => v === '*' || v === value);

function resourceMatches(rule: ResourceRule, a: AdmissionAttributes): boolean {
  if (!listed(rule.apiGroups, a.group) || !listed(rule.apiVersions, a.version)) return false;
  if (!listed(rule.operations, a.operation)) return false;
  if (rule.resourceNames?.length && !rule.resourceNames.includes(a.name)) return false;
  const full = a.subResource ? `${a.resource}/${a.subResource}` : a.resource;
  return (rule.resources ?? []).some((r) => {
    if (r === '*') return a.subResource === '';
    if (r === '*/*') return true;
    if (r.startsWith('*/')) return a.subResource === r.slice(2);
    if (r.endsWith('/*')) return a.resource === r.slice(0, -2);
    return r === full;
  });
}

/** The `request` variable as kube-apiserver builds it (admission.k8s.io/v1 AdmissionRequest). */
function requestOf(a: AdmissionAttributes): Record<string, unknown> {
  const gvr = { group: a.group, version: a.version, resource: a.resource };
  return {
    kind: gvr,
    resource: gvr,
    subResource: a.subResource,
    requestKind: gvr,
    requestResource: gvr,
    requestSubResource: a.subResource,
    name: a.name,
    namespace: a.namespace,
    operation: a.operation,
    userInfo: { uid: '', ...a.userInfo, extra: a.userInfo.extra ?? {} },
    dryRun: false,
  };
}

/** Decides one request against every policy bound with Deny. */
export function admit(
  policies: readonly ValidatingAdmissionPolicy[],
  bindings: readonly ValidatingAdmissionPolicyBinding[],
  a: AdmissionAttributes,
): AdmissionDecision {
  for (const binding of bindings) {
    if (!(binding.spec.validationActions ?? []).includes('Deny')) continue;
    const policy = policies.find((p) => p.metadata.name === binding.spec.policyName);
    if (!policy) continue;
    const denial = evaluatePolicy(policy, a);
    if (denial)
      return { allowed: false, ...denial, policy: policy.metadata.name, binding: binding.metadata.name };
  }
  return { allowed: true };
}

/** One policy: undefined when it admits the request, else why not. */
export function evaluatePolicy(
  policy: ValidatingAdmissionPolicy,
  a: AdmissionAttributes,
): { reason: string; message: string } | undefined {
  const { spec } = policy;
  if (!(spec.matchConstraints?.resourceRules ?? []).some((r) => resourceMatches(r, a))) return undefined;
  const failClosed = (spec.failurePolicy ?? 'Fail') === 'Fail';
  const bindings: Record<string, unknown> = {
    object: a.object ?? null,
    oldObject: a.oldObject ?? null,
    request: requestOf(a),
  };
  try {
    for (const c of spec.matchConditions ?? []) {
      if (compileCel(c.expression)(bindings) !== true) return undefined;
    }
    const variables: Record<string, unknown> = {};
    bindings.variables = variables;
    for (const v of spec.variables ?? []) variables[v.name] = compileCel(v.expression)(bindings);
    for (const v of spec.validations ?? []) {
      if (compileCel(v.expression)(bindings) === true) continue;
      const message = v.messageExpression
        ? String(compileCel(v.messageExpression)(bindings))
        : (v.message ?? `failed expression: ${v.expression}`);
      return { reason: v.reason ?? 'Invalid', message };
    }
    return undefined;
  } catch (err) {
    if (!failClosed) return undefined;
    const detail = err instanceof CelError ? `${err.message} (${err.expression})` : String(err);
    return { reason: 'Invalid', message: `policy '${policy.metadata.name}' failed: ${detail}` };
  }
}

/** The message kube-apiserver puts into the 422/403 Status for a denial. */
export function denialMessage(d: Extract<AdmissionDecision, { allowed: false }>): string {
  return `ValidatingAdmissionPolicy '${d.policy}' with binding '${d.binding}' denied request: ${d.message}`;
}
