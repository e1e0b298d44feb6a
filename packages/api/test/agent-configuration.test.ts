/**
 * AgentConfiguration (issue #36) in @nodenet/api: validation (template syntax, health checks, one
 * object per node by blame order), the merge into the revision and each node's NodeConfig.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  buildConfig,
  nodeConfigSpec,
  validateInputs,
  type AgentConfiguration,
  type AgentConfigurationSpec,
  type Inputs,
} from '@nodenet/api';
import { inForceKeys } from '../src/validation/validate.js';

/** The shipped template (deploy/agent/frr.conf.tpl): what an AgentConfiguration starts from. */
const TEMPLATE = readFileSync(new URL('../../../deploy/agent/frr.conf.tpl', import.meta.url), 'utf8');
const lineOf = (text: string, needle: string): number =>
  text.split('\n').findIndex((l) => l.includes(needle)) + 1;

const agentConfig = (
  name: string,
  spec: Partial<AgentConfigurationSpec> = {},
  created = '2026-01-01T00:00:00Z',
): AgentConfiguration => ({
  apiVersion: 'network.nodenet.io/v1alpha1',
  kind: 'AgentConfiguration',
  metadata: { name, creationTimestamp: created },
  spec: { frrTemplate: TEMPLATE, ...spec },
});
const inputs = (...agentConfiguration: AgentConfiguration[]): Inputs => ({
  vrf: [],
  layer2: [],
  routingTable: [],
  agentConfiguration,
});
const messages = (i: Inputs, inForce?: Set<string>): string[] =>
  validateInputs(i, inForce ? { inForce } : {}).map((p) => p.message);

describe('AgentConfiguration validation', () => {
  it('accepts a template with every placeholder and health checks of the agent file schema', () => {
    const ok = agentConfig('default', {
      healthChecks: {
        interfaces: ['eth0'],
        tcp: {
          targets: [
            { host: '10.0.0.1', port: 179, name: 'spine-1' },
            { host: 'spine.example', port: 179 },
          ],
        },
        frr: { bgpSessions: [{ peer: 'eth0' }] },
        startupTaints: ['node.nodenet.io/network-unavailable'],
      },
    });
    expect(messages(inputs(ok))).toEqual([]);
  });

  it('two objects that may select one node: the newer is refused, naming the holder', () => {
    const older = agentConfig('default', {}, '2026-01-01T00:00:00Z');
    const newer = agentConfig(
      'rack-b',
      { nodeSelector: { matchLabels: { uplink: 'b' } } },
      '2026-01-02T00:00:00Z',
    );
    expect(messages(inputs(newer, older))).toEqual([
      'AgentConfiguration rack-b: spec.nodeSelector: may select the same nodes as AgentConfiguration default (nodeSelector (all nodes)); a node takes its FRR template and health checks from one AgentConfiguration: give each a selector the other excludes (e.g. a label In different values, or DoesNotExist) (got "uplink=b")',
    ]);
    // The one in force keeps its claim, even when it was created later.
    expect(
      messages(
        inputs(newer, older),
        inForceKeys({ vrf: [], layer2: [], routingTable: [], agentConfig: [{ name: 'rack-b' }] }),
      ),
    ).toEqual([
      expect.stringMatching(
        /^AgentConfiguration default: spec.nodeSelector: may select the same nodes as AgentConfiguration rack-b /,
      ),
    ]);
  });

  it('selectors that exclude each other do not conflict', () => {
    const a = agentConfig('default', {
      nodeSelector: { matchExpressions: [{ key: 'uplink', operator: 'NotIn', values: ['b'] }] },
    });
    const b = agentConfig(
      'rack-b',
      { nodeSelector: { matchLabels: { uplink: 'b' } } },
      '2026-01-02T00:00:00Z',
    );
    const c = agentConfig(
      'no-uplink',
      { nodeSelector: { matchExpressions: [{ key: 'uplink', operator: 'DoesNotExist' }] } },
      '2026-01-03T00:00:00Z',
    );
    expect(messages(inputs(a, b))).toEqual([]);
    expect(messages(inputs(b, c))).toEqual([]);
    // NotIn (b) and DoesNotExist can both match a node without the label.
    expect(messages(inputs(a, c))).toEqual([
      expect.stringMatching(
        /^AgentConfiguration no-uplink: spec.nodeSelector: may select the same nodes as AgentConfiguration default /,
      ),
    ]);
  });

  it('a template the agent could not fill is refused, naming the line', () => {
    expect(
      messages(inputs(agentConfig('default', { frrTemplate: TEMPLATE.replace('{{ asn }}', '{{ as }}') }))),
    ).toEqual([
      `AgentConfiguration default: spec.frrTemplate: line ${lineOf(TEMPLATE, '{{ asn }}')}: unknown placeholder {{ as }} (values: asn, router_id; sections: vrfs, prefix_lists, route_maps, bgp_default, bgp_default_ipv4, bgp_default_ipv6, bgp_vrfs)`,
    ]);
    expect(
      messages(
        inputs(agentConfig('default', { frrTemplate: TEMPLATE.replace(/^\{\{ bgp_vrfs \}\}\n/m, '') })),
      ),
    ).toEqual([
      'AgentConfiguration default: spec.frrTemplate: missing section placeholder(s): {{ bgp_vrfs }}',
    ]);
  });

  it('health checks outside the agent file schema are refused, naming the field', () => {
    const bad = agentConfig('default', {
      healthChecks: {
        tcp: { targets: [{ host: '1:2', port: 179 }] },
        frr: { enabled: false, bgpSessions: [{ peer: 'eth0' }] },
      },
    });
    expect(messages(inputs(bad))).toEqual([
      'AgentConfiguration default: spec.healthChecks.tcp.targets[0].host: must be an IP address or a DNS name (got "1:2")',
      'AgentConfiguration default: spec.healthChecks.frr.bgpSessions: cannot be checked with frr.enabled: false (got 1)',
    ]);
    const port = agentConfig('default', {
      healthChecks: { tcp: { targets: [{ host: '10.0.0.1', port: 70000 }] } },
    });
    expect(messages(inputs(port))).toEqual([
      expect.stringMatching(/^AgentConfiguration default: spec.healthChecks.tcp.targets\[0\].port: /),
    ]);
  });
});

describe('AgentConfiguration in the revision and the NodeConfig', () => {
  it('a config without any hashes as before; a template change changes the hash', () => {
    const none = buildConfig(inputs());
    expect(buildConfig({ vrf: [], layer2: [], routingTable: [] }).hash).toBe(none.hash);
    const one = buildConfig(inputs(agentConfig('default')));
    const two = buildConfig(inputs(agentConfig('default', { frrTemplate: `${TEMPLATE}! changed\n` })));
    expect(new Set([none.hash, one.hash, two.hash]).size).toBe(3);
    expect(one.bytes).toBeGreaterThan(none.bytes + TEMPLATE.length);
  });

  it('each node gets the object that selects it, without the selector; none selects: no `agent`', () => {
    const a = agentConfig('rack-a', {
      nodeSelector: { matchLabels: { uplink: 'a' } },
      healthChecks: { interfaces: ['eth0'] },
    });
    const b = agentConfig('rack-b', {
      nodeSelector: { matchLabels: { uplink: 'b' } },
      frrTemplate: `${TEMPLATE}! b\n`,
    });
    const rev = buildConfig(inputs(a, b));
    expect(nodeConfigSpec(rev, { uplink: 'a' }).agent).toEqual({
      name: 'rack-a',
      frrTemplate: TEMPLATE,
      healthChecks: { interfaces: ['eth0'] },
    });
    expect(nodeConfigSpec(rev, { uplink: 'b' }).agent).toEqual({
      name: 'rack-b',
      frrTemplate: `${TEMPLATE}! b\n`,
    });
    expect('agent' in nodeConfigSpec(rev, {})).toBe(false);
  });
});
