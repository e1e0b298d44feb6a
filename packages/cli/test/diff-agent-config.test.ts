/** `kubectl nodenet diff` shows an FRR template change per node (issue #36). */
import { describe, expect, it } from 'vitest';
import { API_VERSION, buildConfig, type AgentConfiguration, type Inputs } from '@nodenet/api';
import { DEPLOY_TEMPLATE } from '@nodenet/testkit';
import { diffNodes, renderDiff } from '../src/views/diff.js';

/** The shipped template. */
const TEMPLATE = DEPLOY_TEMPLATE;

const agentConfig = (name: string, spec: AgentConfiguration['spec']): AgentConfiguration => ({
  apiVersion: API_VERSION,
  kind: 'AgentConfiguration',
  metadata: { name },
  spec,
});
const side = (label: string, agentConfiguration: AgentConfiguration[]) => ({
  label,
  ...buildConfig({ vrf: [], layer2: [], routingTable: [], agentConfiguration } satisfies Inputs),
});
const nodes = [
  { name: 'rack-a-1', labels: { uplink: 'a' } },
  { name: 'rack-b-1', labels: { uplink: 'b' } },
];

describe('kubectl nodenet diff: AgentConfiguration', () => {
  it('shows a template change on the nodes it selects, as the lines that go and come', () => {
    const a = { matchLabels: { uplink: 'a' } };
    const d = diffNodes(
      side('before', [agentConfig('rack-a', { frrTemplate: TEMPLATE, nodeSelector: a })]),
      side('after', [
        agentConfig('rack-a', {
          frrTemplate: TEMPLATE.replace(
            'exit\n!\n{{ bgp_vrfs }}',
            ' neighbor FABRIC bfd\nexit\n!\n{{ bgp_vrfs }}',
          ),
          nodeSelector: a,
        }),
      ]),
      nodes,
    );
    expect(d.changedNodes).toBe(1);
    expect(d.nodes[0]!.changes).toEqual([
      expect.objectContaining({
        section: 'AgentConfiguration',
        name: 'rack-a',
        change: 'changed',
        fields: ['frrTemplate'],
        values: [{ field: 'frrTemplate', from: '(no line)', to: '"neighbor FABRIC bfd"' }],
      }),
    ]);
    expect(d.nodes[1]!.changes).toEqual([]);
    expect(renderDiff(d)).toContain('neighbor FABRIC bfd');
  });

  it('says when a node starts or stops taking its template from an AgentConfiguration', () => {
    const d = diffNodes(
      side('before', []),
      side('after', [agentConfig('default', { frrTemplate: TEMPLATE })]),
      nodes,
    );
    expect(
      d.nodes.map((n) => n.changes.map((c) => `${c.section} ${c.name} ${c.change}: ${c.cause}`)),
    ).toEqual([
      ['AgentConfiguration default added: selects this node (was: the agent bootstrap template)'],
      ['AgentConfiguration default added: selects this node (was: the agent bootstrap template)'],
    ]);
  });
});
