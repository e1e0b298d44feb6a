/**
 * A Node deleted and re-created under the same name while its NodeConfig survived (issue 35): the
 * NodeConfig records the Node's uid (annotation, else its owner reference); another uid means the
 * status is the old node's. The planner treats that node as gone, collects its NodeConfig, and hands
 * the new Node nothing on the strength of the old status.
 */
import { NODE_UID_ANNOTATION, type NodeConfig } from '@nodenet/api';
import { describe, expect, it } from 'vitest';
import { plan } from '@nodenet/configurator';
import { A, B, completed, done, input, nc, node, ofType, rev } from './fixtures.js';

const r1 = completed(rev(1, A));
const r2 = rev(2, B);
const writtenFor = (x: NodeConfig, uid: string, how: 'annotation' | 'owner'): NodeConfig => ({
  ...x,
  metadata: {
    ...x.metadata,
    ...(how === 'annotation'
      ? { annotations: { ...x.metadata.annotations, [NODE_UID_ANNOTATION]: uid } }
      : { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: x.metadata.name, uid }] }),
  },
});
const onRev1 = (name: string, uid: string, how: 'annotation' | 'owner' = 'annotation') =>
  writtenFor(nc(name, A, { number: 1, status: done(A) }), uid, how);
const planFor = (ncs: NodeConfig[]) =>
  plan(
    input({
      policy: { updateLimit: { kind: 'count', count: 2 } },
      revisions: [r2, r1],
      nodes: [node('n00', { uid: 'u0' }), node('n01', { uid: 'u1-new' })],
      nodeConfigs: ncs,
    }),
  );

describe('a Node re-created under its name', () => {
  it.each(['annotation', 'owner'] as const)(
    'its old NodeConfig (uid by %s) is collected and the old status answers nothing',
    (how) => {
      const p = planFor([onRev1('n00', 'u0'), onRev1('n01', 'u1-old', how)]);
      expect(ofType(p.actions, 'assign').map((a) => a.node)).toEqual(['n00']);
      expect(ofType(p.actions, 'deleteNodeConfig')).toEqual([
        { type: 'deleteNodeConfig', name: 'n01', reason: expect.stringMatching(/n01 was re-created/) },
      ]);
    },
  );

  it('the same Node (same uid, or none recorded) moves as before', () => {
    const p = planFor([onRev1('n00', 'u0'), onRev1('n01', 'u1-new')]);
    expect(ofType(p.actions, 'assign').map((a) => a.node)).toEqual(['n00', 'n01']);
    const unknown = planFor([onRev1('n00', 'u0'), nc('n01', A, { number: 1, status: done(A) })]);
    expect(ofType(unknown.actions, 'assign').map((a) => a.node)).toEqual(['n00', 'n01']);
  });
});
