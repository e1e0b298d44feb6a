/** Validation of ObjectMeta, worded like k8s.io/apimachinery's validation messages. */
import type { FieldError } from './errors.js';
import { isObject, type KObject } from './types.js';

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

const invalidValue = (field: string, value: unknown, detail: string): FieldError => ({
  type: 'FieldValueInvalid',
  field,
  message: `Invalid value: ${JSON.stringify(value)}: ${detail}`,
});

export function validateName(name: string, dnsLabel: boolean, field = 'metadata.name'): FieldError[] {
  if (dnsLabel) {
    if (name.length > 63) return [invalidValue(field, name, 'must be no more than 63 characters')];
    if (!DNS1123_LABEL.test(name)) return [invalidValue(field, name, LABEL_MSG)];
  } else {
    if (name.length > 253) return [invalidValue(field, name, 'must be no more than 253 characters')];
    if (!DNS1123_SUBDOMAIN.test(name)) return [invalidValue(field, name, SUBDOMAIN_MSG)];
  }
  return [];
}

function validateQualifiedKey(key: string, field: string): FieldError[] {
  const slash = key.indexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined && (prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix)))
    return [invalidValue(field, key, `prefix part ${SUBDOMAIN_MSG}`)];
  if (name.length === 0 || name.length > 63 || !QUALIFIED_NAME.test(name))
    return [
      invalidValue(
        field,
        key,
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      ),
    ];
  return [];
}

export function validateMetadata(obj: KObject, dnsLabelName: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const m = obj.metadata;
  if (m.name) errs.push(...validateName(m.name, dnsLabelName));
  if (m.labels !== undefined) {
    if (!isObject(m.labels)) errs.push(invalidValue('metadata.labels', m.labels, 'must be a map of strings'));
    else
      for (const [k, v] of Object.entries(m.labels)) {
        errs.push(...validateQualifiedKey(k, 'metadata.labels'));
        if (typeof v !== 'string' || v.length > 63 || !LABEL_VALUE.test(v))
          errs.push(
            invalidValue(
              'metadata.labels',
              v,
              "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
            ),
          );
      }
  }
  if (m.annotations !== undefined) {
    if (!isObject(m.annotations))
      errs.push(invalidValue('metadata.annotations', m.annotations, 'must be a map of strings'));
    else
      for (const [k, v] of Object.entries(m.annotations)) {
        errs.push(...validateQualifiedKey(k.toLowerCase(), 'metadata.annotations'));
        if (typeof v !== 'string') errs.push(invalidValue(`metadata.annotations`, v, 'must be a string'));
      }
  }
  if (m.finalizers !== undefined) {
    if (!Array.isArray(m.finalizers))
      errs.push(invalidValue('metadata.finalizers', m.finalizers, 'must be a list of strings'));
    else
      m.finalizers.forEach((f, i) =>
        errs.push(...validateQualifiedKey(String(f), `metadata.finalizers[${i}]`)),
      );
  }
  if (m.ownerReferences !== undefined) {
    if (!Array.isArray(m.ownerReferences))
      errs.push(invalidValue('metadata.ownerReferences', m.ownerReferences, 'must be a list'));
    else
      m.ownerReferences.forEach((r, i) => {
        const f = `metadata.ownerReferences[${i}]`;
        if (!isObject(r)) return errs.push(invalidValue(f, r, 'must be an object'));
        if (!r.apiVersion)
          errs.push(invalidValue(`${f}.apiVersion`, r.apiVersion ?? '', 'version must not be empty'));
        if (!r.kind) errs.push(invalidValue(`${f}.kind`, r.kind ?? '', 'kind must not be empty'));
        if (!r.name) errs.push(invalidValue(`${f}.name`, r.name ?? '', 'name must not be empty'));
        if (!r.uid) errs.push(invalidValue(`${f}.uid`, r.uid ?? '', 'uid must not be empty'));
        return undefined;
      });
    const controllers = Array.isArray(m.ownerReferences)
      ? m.ownerReferences.filter((r) => isObject(r) && r.controller === true)
      : [];
    if (controllers.length > 1)
      errs.push(
        invalidValue(
          'metadata.ownerReferences',
          m.ownerReferences,
          'Only one reference can have Controller set to true',
        ),
      );
  }
  return errs;
}
