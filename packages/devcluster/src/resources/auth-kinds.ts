/**
 * The kinds authorization and admission are configured with, served like on a real cluster:
 * RBAC (rbac.authorization.k8s.io/v1), ValidatingAdmissionPolicy and its binding
 * (admissionregistration.k8s.io/v1), and the create-only review kinds (authorization.k8s.io/v1)
 * that `kubectl auth can-i` posts. The review kinds are never stored; `endpoints.ts` answers them.
 */
import type { FieldError } from '../objects/errors.js';
import { builtin, type ResourceType } from './resources.js';
import { age, ageColumn, column, nameColumn } from './table.js';
import { isObject, type KObject } from '../objects/types.js';

const required = (field: string): FieldError => ({
  type: 'FieldValueRequired',
  field,
  message: 'Required value',
});

/** The checks of rbac validation that keep the authorizer's input well formed. */
function validateRules(o: KObject): FieldError[] {
  const errs: FieldError[] = [];
  const rules = o.rules ?? [];
  if (!Array.isArray(rules))
    return [{ type: 'FieldValueInvalid', field: 'rules', message: 'Invalid value: must be a list' }];
  rules.forEach((r, i) => {
    if (!isObject(r) || !Array.isArray(r.verbs) || r.verbs.length === 0)
      errs.push(required(`rules[${i}].verbs`));
    else if (
      Array.isArray(r.nonResourceURLs) &&
      r.nonResourceURLs.length &&
      Array.isArray(r.resources) &&
      r.resources.length
    )
      errs.push({
        type: 'FieldValueInvalid',
        field: `rules[${i}].nonResourceURLs`,
        message: `Invalid value: ${JSON.stringify(r.nonResourceURLs)}: rules cannot apply to both regular resources and non-resource URLs`,
      });
  });
  return errs;
}

function validateBinding(o: KObject): FieldError[] {
  const ref = o.roleRef;
  if (!isObject(ref)) return [required('roleRef')];
  const errs: FieldError[] = [];
  if (ref.kind !== 'Role' && ref.kind !== 'ClusterRole')
    errs.push({
      type: 'FieldValueNotSupported',
      field: 'roleRef.kind',
      message: `Unsupported value: ${JSON.stringify(ref.kind ?? '')}: supported values: "Role", "ClusterRole"`,
    });
  if (typeof ref.name !== 'string' || !ref.name) errs.push(required('roleRef.name'));
  return errs;
}

const roleTable = {
  columns: [nameColumn, column('Created At', 'date')],
  cells: (o: KObject) => [o.metadata.name, o.metadata.creationTimestamp],
};
const bindingTable = {
  columns: [nameColumn, column('Role'), ageColumn],
  cells: (o: KObject, now: number) => {
    const ref = isObject(o.roleRef) ? o.roleRef : {};
    return [
      o.metadata.name,
      `${String(ref.kind)}/${String(ref.name)}`,
      age(o.metadata.creationTimestamp, now),
    ];
  },
};
const RBAC = 'rbac.authorization.k8s.io';
const ADMISSION = 'admissionregistration.k8s.io';
const AUTHORIZATION = 'authorization.k8s.io';

export const AUTH_TYPES: ResourceType[] = [
  builtin({
    group: RBAC,
    version: 'v1',
    plural: 'roles',
    kind: 'Role',
    namespaced: true,
    validateBuiltin: validateRules,
    table: roleTable,
  }),
  builtin({
    group: RBAC,
    version: 'v1',
    plural: 'clusterroles',
    kind: 'ClusterRole',
    namespaced: false,
    validateBuiltin: validateRules,
    table: roleTable,
  }),
  builtin({
    group: RBAC,
    version: 'v1',
    plural: 'rolebindings',
    kind: 'RoleBinding',
    namespaced: true,
    validateBuiltin: validateBinding,
    table: bindingTable,
  }),
  builtin({
    group: RBAC,
    version: 'v1',
    plural: 'clusterrolebindings',
    kind: 'ClusterRoleBinding',
    namespaced: false,
    validateBuiltin: validateBinding,
    table: bindingTable,
  }),
  builtin({
    group: ADMISSION,
    version: 'v1',
    plural: 'validatingadmissionpolicies',
    kind: 'ValidatingAdmissionPolicy',
    namespaced: false,
    categories: ['api-extensions'],
    statusSubresource: true,
    generation: true,
  }),
  builtin({
    group: ADMISSION,
    version: 'v1',
    plural: 'validatingadmissionpolicybindings',
    kind: 'ValidatingAdmissionPolicyBinding',
    namespaced: false,
    categories: ['api-extensions'],
    generation: true,
  }),
  ...['SelfSubjectAccessReview', 'SubjectAccessReview', 'SelfSubjectRulesReview'].map((kind) =>
    builtin({
      group: AUTHORIZATION,
      version: 'v1',
      plural: `${kind.toLowerCase()}s`,
      kind,
      namespaced: false,
      verbs: ['create'],
    }),
  ),
  // `kubectl auth whoami`
  builtin({
    group: 'authentication.k8s.io',
    version: 'v1',
    plural: 'selfsubjectreviews',
    kind: 'SelfSubjectReview',
    namespaced: false,
    verbs: ['create'],
  }),
];

/** Review kinds: answered, never stored. */
export const isReviewType = (t: ResourceType): boolean =>
  t.group === AUTHORIZATION || (t.group === 'authentication.k8s.io' && t.plural === 'selfsubjectreviews');
