/**
 * CEL in devcluster: `x-kubernetes-validations` evaluated against objects with the wording of
 * apiextensions-apiserver, rules that do not compile refused with the CRD, and the evaluator's
 * int semantics for JSON integers.
 */
import { describe, expect, it } from 'vitest';
import {
  CelError,
  compileCel,
  evaluateCelBool,
  checkSchemaSupported,
  validate,
  type Schema,
} from '@nodenet/devcluster';

const item: Schema = {
  type: 'object',
  properties: { cidr: { type: 'string' }, ge: { type: 'integer' }, le: { type: 'integer' } },
  'x-kubernetes-validations': [
    {
      rule: '!has(self.ge) || !has(self.le) || self.ge <= self.le',
      message: 'le must be at least ge',
      fieldPath: '.le',
    },
    {
      rule: 'self.cidr != ""',
      messageExpression: "'cidr of ' + string(self.le) + ' is empty'",
      reason: 'FieldValueRequired',
    },
  ],
};
const spec: Schema = { type: 'object', properties: { import: { type: 'array', items: item } } };

describe('x-kubernetes-validations', () => {
  it('passes an object every rule accepts', () => {
    expect(validate({ import: [{ cidr: '10.0.0.0/8', ge: 16, le: 24 }] }, spec, 'spec')).toEqual([]);
  });

  it('names the field (path + fieldPath) and the message, as the API server does', () => {
    expect(validate({ import: [{ cidr: '10.0.0.0/8', ge: 24, le: 16 }] }, spec, 'spec')).toEqual([
      {
        type: 'FieldValueInvalid',
        field: 'spec.import[0].le',
        message: 'Invalid value: "object": le must be at least ge',
      },
    ]);
  });

  it('uses messageExpression and reason', () => {
    expect(validate({ import: [{ cidr: '', le: 7 }] }, spec, 'spec')).toEqual([
      { type: 'FieldValueRequired', field: 'spec.import[0]', message: 'Required value: cidr of 7 is empty' },
    ]);
  });

  it('does not run rules on a node that already fails its structural schema', () => {
    const errs = validate({ import: [{ cidr: 5, ge: 24, le: 16 }] }, spec, 'spec');
    expect(errs.map((e) => e.field)).toEqual(['spec.import[0].cidr']);
  });

  it('refuses a CRD whose rule does not compile, naming the rule', () => {
    const bad: Schema = { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.a >' }] };
    const problems = checkSchemaSupported(bad);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /^openAPIV3Schema\.x-kubernetes-validations\[0\]\.rule: Invalid value: "self\.a >": compilation failed: /,
    );
  });
});

describe('CEL evaluator', () => {
  it('treats JSON integers as int and evaluates bindings for admission policies', () => {
    expect(evaluateCelBool('self.count == 1 && self.ratio > 0.5', { self: { count: 1, ratio: 0.75 } })).toBe(
      true,
    );
    expect(
      evaluateCelBool(
        "request.userInfo.extra['authentication.kubernetes.io/node-name'][0] == object.metadata.name",
        {
          request: { userInfo: { extra: { 'authentication.kubernetes.io/node-name': ['node-1'] } } },
          object: { metadata: { name: 'node-1' } },
        },
      ),
    ).toBe(true);
  });

  it('reports a non-bool rule result and an unknown function as typed errors', () => {
    expect(() => evaluateCelBool('1 + 1', {})).toThrow(CelError);
    expect(() => compileCel('nosuch(1)')({})).toThrow(/evaluation failed: found no matching overload/);
  });
});
