/** `kubectl nodenet diff` shows BGPPeering changes per node (issue #28). */
import { describe, expect, it } from 'vitest';
import { API_VERSION, buildConfig, type BGPPeering, type Inputs } from '@nodenet/api';
import { diffNodes } from '../src/views/diff.js';

const peering = (spec: BGPPeering['spec']): BGPPeering => ({
  apiVersion: API_VERSION,
  kind: 'BGPPeering',
  metadata: { name: 'router' },
  spec,
});
const inputs = (bgpPeering: BGPPeering[]): Inputs => ({ vrf: [], layer2: [], routingTable: [], bgpPeering });
const side = (label: string, i: Inputs) => ({ label, ...buildConfig(i) });

describe('kubectl nodenet diff: BGPPeering', () => {
  const nodes: { name: string; labels: Record<string, string> }[] = [
    { name: 'edge-1', labels: { edge: 'true' } },
    { name: 'worker-1', labels: {} },
  ];
  const base = { neighbor: { addresses: ['192.0.2.1'] }, remoteASN: 65010 };

  it('shows a new peering on exactly the nodes its selector reaches', () => {
    const d = diffNodes(
      side('before', inputs([])),
      side('after', inputs([peering({ ...base, nodeSelector: { matchLabels: { edge: 'true' } } })])),
      nodes,
    );
    expect(d.nodes.map((n) => [n.node, n.changes.map((c) => `${c.section} ${c.name} ${c.change}`)])).toEqual([
      ['edge-1', ['BGPPeering router added']],
      ['worker-1', []],
    ]);
  });

  it('shows a changed field with its old and new value', () => {
    const d = diffNodes(
      side('before', inputs([peering(base)])),
      side('after', inputs([peering({ ...base, holdTime: 9, keepaliveTime: 3 })])),
      nodes,
    );
    expect(d.nodes[0]!.changes).toMatchObject([
      {
        section: 'BGPPeering',
        change: 'changed',
        fields: ['holdTime', 'keepaliveTime'],
        values: [
          { field: 'holdTime', from: '(unset)', to: '9' },
          { field: 'keepaliveTime', from: '(unset)', to: '3' },
        ],
      },
    ]);
  });
});
