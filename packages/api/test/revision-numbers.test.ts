/**
 * The revision numbers an agent names in its status (docs/agent-status.md): the schema keeps them
 * (an API server prunes fields the CRD does not name), the rows read them, and an older agent's
 * node still shows the configurator's label.
 */
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import {
  APPLIED_NUMBER_LABEL,
  appliedNumber,
  customResourceDefinition,
  labelledRevisionNumber,
  NodeConfigStatus,
  REVISION_NUMBER_LABEL,
  type NetworkConfigRevision,
  type NodeConfig,
} from '@nodenet/api';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

const nodeConfig = (labels: Record<string, string>, status?: NodeConfig['status']): NodeConfig => ({
  apiVersion: 'network.nodenet.io/v1alpha1',
  kind: 'NodeConfig',
  metadata: { name: 'n', labels },
  spec: { revision: B, vrf: [], layer2: [], routingTable: [] },
  ...(status ? { status } : {}),
});

const revision = (number: number, hash: string): NetworkConfigRevision =>
  ({ metadata: { name: `rev-${number}` }, spec: { number, hash } }) as unknown as NetworkConfigRevision;

describe('status.revisionNumber and status.appliedRevisionNumber', () => {
  it('the schema takes positive integers and refuses anything else', () => {
    expect(Value.Check(NodeConfigStatus, { revisionNumber: 7, appliedRevisionNumber: 6 })).toBe(true);
    expect(Value.Check(NodeConfigStatus, { revisionNumber: 0 })).toBe(false);
    expect(Value.Check(NodeConfigStatus, { appliedRevisionNumber: '6' })).toBe(false);
  });

  it('the NodeConfig CRD names both in its status schema, and its row columns read them', () => {
    const crd = customResourceDefinition('NodeConfig') as any;
    const version = crd.spec.versions[0];
    const status = version.schema.openAPIV3Schema.properties.status.properties;
    expect(status.revisionNumber).toMatchObject({ type: 'integer', minimum: 1 });
    expect(status.appliedRevisionNumber).toMatchObject({ type: 'integer', minimum: 1 });
    const paths = version.additionalPrinterColumns.map((c: any) => `${c.name}=${c.jsonPath}`);
    expect(paths).toEqual(
      expect.arrayContaining([
        'Answered=.status.revisionNumber',
        'Status=.status.configStatus',
        'Applied=.status.appliedRevisionNumber',
      ]),
    );
  });

  it("the number on the host: the agent's, else an older agent's label, else the one revision with the hash", () => {
    const revs = [revision(2, A), revision(3, B)];
    const status = { lastAppliedRevision: A, appliedRevisionNumber: 2 };
    expect(appliedNumber(nodeConfig({ [APPLIED_NUMBER_LABEL]: '1' }, status), revs)).toBe(2);
    expect(appliedNumber(nodeConfig({ [APPLIED_NUMBER_LABEL]: '1' }, { lastAppliedRevision: A }), revs)).toBe(
      1,
    );
    expect(appliedNumber(nodeConfig({}, { lastAppliedRevision: A }), revs)).toBe(2);
    // No claim about the host (RestoreFailed): a number left without its hash is not taken.
    expect(appliedNumber(nodeConfig({}, { appliedRevisionNumber: 2 }), revs)).toBeUndefined();
  });

  it('the revision number a NodeConfig carries is its label, a positive integer', () => {
    expect(labelledRevisionNumber(nodeConfig({ [REVISION_NUMBER_LABEL]: '7' }))).toBe(7);
    expect(labelledRevisionNumber(nodeConfig({ [REVISION_NUMBER_LABEL]: '' }))).toBeUndefined();
    expect(labelledRevisionNumber(nodeConfig({ [REVISION_NUMBER_LABEL]: 'x' }))).toBeUndefined();
    expect(labelledRevisionNumber(nodeConfig({}))).toBeUndefined();
  });
});
