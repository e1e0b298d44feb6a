/**
 * The dashboard's node cells (pure): the states the grid shows beyond `kubectl nodenet nodes`
 * (unchanged-moved, soaking, misconfigured agent), and that a push computes again only the cells
 * whose Node or NodeConfig changed, or all of them when a revision or the fleet pause did.
 */
import { describe, expect, it } from 'vitest';
import {
  AGENT_MISCONFIGURED_REASON,
  AGENT_READY_CONDITION,
  MOVE_ANNOTATION,
  REVISION_NUMBER_LABEL,
  type NetworkConfigRevision,
  type NodeConfig,
} from '@nodenet/api';
import type { Node } from '@nodenet/kube';
import type { ClusterState } from '../src/cluster/state.js';
import { NodeCells } from '../src/dashboard/cells.js';

const revision = (n: number, rv = '1'): NetworkConfigRevision =>
  ({
    metadata: { name: `rev-${n}`, resourceVersion: rv },
    spec: { number: n, hash: `h${n}`, config: { vrf: [], layer2: [], routingTable: [] } },
  }) as unknown as NetworkConfigRevision;

const node = (name: string, ready = true, rv = '1'): Node =>
  ({
    metadata: { name, resourceVersion: rv, labels: { rack: 'r1' } },
    status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  }) as unknown as Node;

/** A NodeConfig on revision `n`: provisioned, or confirming, or with a misconfigured agent. */
function nodeConfig(
  name: string,
  n: number,
  o: { move?: string; confirming?: boolean; misconfigured?: boolean; rv?: string } = {},
): NodeConfig {
  const conditions = [
    ...(o.confirming ? [{ type: 'Confirming', status: 'True', reason: 'Confirming', message: '' }] : []),
    ...(o.misconfigured
      ? [
          {
            type: AGENT_READY_CONDITION,
            status: 'False',
            reason: AGENT_MISCONFIGURED_REASON,
            message: 'frr.conf template: unknown field',
          },
        ]
      : []),
  ];
  return {
    metadata: {
      name,
      resourceVersion: o.rv ?? '1',
      labels: { [REVISION_NUMBER_LABEL]: String(n) },
      annotations: o.move ? { [MOVE_ANNOTATION]: o.move } : {},
    },
    spec: { revision: `h${n}` },
    status: {
      configStatus: o.confirming ? 'provisioning' : 'provisioned',
      lastAppliedRevision: `h${n}`,
      appliedRevisionNumber: n,
      conditions,
    },
  } as unknown as NodeConfig;
}

const state = (s: Partial<ClusterState>): ClusterState => ({
  revisions: [revision(1)],
  nodeConfigs: [],
  nodes: [],
  inputs: { vrf: [], layer2: [], routingTable: [] },
  fleetPaused: false,
  ...s,
});

describe('dashboard cells', () => {
  it('shows unchanged-moved, soaking and misconfigured-agent as their own states, beside the placement', () => {
    const s = state({
      nodes: ['a', 'b', 'c', 'd'].map((n) => node(n, n !== 'd')),
      nodeConfigs: [
        nodeConfig('a', 1, { move: 'unchanged' }),
        nodeConfig('b', 1, { confirming: true }),
        nodeConfig('c', 1, { misconfigured: true }),
        nodeConfig('d', 1, { misconfigured: true }),
      ],
    });
    const cells = new NodeCells().of(s, 'rack').cells;
    expect(cells.map((c) => [c.node, c.placement, c.state])).toEqual([
      ['a', 'up-to-date', 'unchanged-moved'],
      ['b', 'rolling-out', 'soaking'],
      ['c', 'unavailable', 'misconfigured-agent'],
      // The Node itself is down: that is what keeps it out, whatever its agent last said.
      ['d', 'unavailable', 'unavailable'],
    ]);
    expect(cells[0]!.line).toMatch(
      /^unchanged-moved: host config unchanged by revision 1, moved without a slot; on rev-1/,
    );
    expect(cells[2]!.line).toMatch(
      /^misconfigured-agent: .*agent misconfigured: frr\.conf template: unknown field/,
    );
    expect(cells.every((c) => c.wave === 'r1')).toBe(true);
  });

  it('computes again only the cells whose Node or NodeConfig changed, and all when a revision did', () => {
    const cells = new NodeCells();
    const nodes = ['a', 'b', 'c'].map((n) => node(n));
    const ncs = ['a', 'b', 'c'].map((n) => nodeConfig(n, 1));
    const first = cells.of(state({ nodes, nodeConfigs: ncs }), 'rack').cells;
    const second = cells.of(
      state({ nodes: [nodes[0]!, node('b', false, '2'), nodes[2]!], nodeConfigs: ncs }),
      'rack',
    ).cells;
    expect(second[0]).toBe(first[0]);
    expect(second[1]).not.toBe(first[1]);
    expect(second[1]!.state).toBe('unavailable');
    expect(second[2]).toBe(first[2]);
    // A new revision: every node is behind it now.
    const third = cells.of(
      state({
        revisions: [revision(1), revision(2)],
        nodes: [nodes[0]!, node('b', false, '2'), nodes[2]!],
        nodeConfigs: ncs,
      }),
      'rack',
    ).cells;
    expect(third.map((c) => c.state)).toEqual(['queued', 'unavailable', 'queued']);
    expect(third[0]).not.toBe(second[0]);
  });
});
