/**
 * ValidatingAdmissionPolicy evaluation, exercised with the policies deploy/ ships: an agent may write
 * only its own NodeConfig's status, only its own (node.nodenet.io/) taints on its own Node (no
 * metadata, through the Node or nodes/status), and Events only about its own NodeConfig and Node.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import {
  admit,
  denialMessage,
  type AdmissionAttributes,
  type ValidatingAdmissionPolicy,
  type ValidatingAdmissionPolicyBinding,
} from '@nodenet/devcluster';

const file = fileURLToPath(new URL('../../../../deploy/agent-policy.yaml', import.meta.url));
const docs = parseAllDocuments(readFileSync(file, 'utf8')).map(
  (d) => d.toJSON() as { kind: string } & Record<string, unknown>,
);
const policies = docs.filter(
  (d) => d.kind === 'ValidatingAdmissionPolicy',
) as unknown as ValidatingAdmissionPolicy[];
const bindings = docs.filter(
  (d) => d.kind === 'ValidatingAdmissionPolicyBinding',
) as unknown as ValidatingAdmissionPolicyBinding[];

const agentOn = (node?: string): AdmissionAttributes['userInfo'] => ({
  username: 'system:serviceaccount:nodenet-system:nodenet-agent',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:nodenet-system', 'system:authenticated'],
  extra: node ? { 'authentication.kubernetes.io/node-name': [node] } : {},
});
const taint = (key: string) => ({ key, effect: 'NoSchedule' });
const node = (name: string, taints: { key: string; effect: string }[], labels = { zone: 'a' }) => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels, resourceVersion: '7' },
  spec: { taints },
});
const nodeConfig = (name: string, status: string) => ({
  apiVersion: 'network.nodenet.io/v1alpha1',
  kind: 'NodeConfig',
  metadata: { name },
  spec: {},
  status: { configStatus: status },
});

function statusPatch(user: AdmissionAttributes['userInfo'], name: string): AdmissionAttributes {
  return {
    operation: 'UPDATE',
    group: 'network.nodenet.io',
    version: 'v1alpha1',
    resource: 'nodeconfigs',
    subResource: 'status',
    name,
    namespace: '',
    userInfo: user,
    object: nodeConfig(name, 'invalid'),
    oldObject: nodeConfig(name, 'provisioned'),
  };
}
function nodePatch(
  user: AdmissionAttributes['userInfo'],
  oldObject: unknown,
  object: unknown,
): AdmissionAttributes {
  const name = (object as { metadata: { name: string } }).metadata.name;
  return {
    operation: 'UPDATE',
    group: '',
    version: 'v1',
    resource: 'nodes',
    subResource: '',
    name,
    namespace: '',
    userInfo: user,
    object,
    oldObject,
  };
}

const startup = 'node.nodenet.io/network-unavailable';

describe('the shipped agent admission policy', () => {
  it('ships two policies, each bound with Deny', () => {
    expect(policies.map((p) => p.metadata.name)).toEqual(['nodenet-agent-own-node', 'nodenet-agent-events']);
    expect(bindings.map((b) => b.spec)).toEqual([
      { policyName: 'nodenet-agent-own-node', validationActions: ['Deny'] },
      { policyName: 'nodenet-agent-events', validationActions: ['Deny'] },
    ]);
  });

  it('admits an agent writing its own NodeConfig status', () => {
    expect(admit(policies, bindings, statusPatch(agentOn('node-1'), 'node-1'))).toEqual({ allowed: true });
  });

  it("refuses an agent writing another node's NodeConfig status, naming both", () => {
    const d = admit(policies, bindings, statusPatch(agentOn('node-1'), 'node-2'));
    expect(d.allowed).toBe(false);
    if (d.allowed) return;
    expect(d.reason).toBe('Forbidden');
    expect(denialMessage(d)).toBe(
      "ValidatingAdmissionPolicy 'nodenet-agent-own-node' with binding 'nodenet-agent-own-node' denied request: agent on node node-1 may not write nodeconfigs node-2",
    );
  });

  it('refuses an agent whose token carries no node name', () => {
    const d = admit(policies, bindings, statusPatch(agentOn(), 'node-1'));
    expect(d).toMatchObject({ allowed: false, message: expect.stringContaining('no node name') });
  });

  it('refuses an agent writing its NodeConfig spec', () => {
    const a = { ...statusPatch(agentOn('node-1'), 'node-1'), subResource: '' };
    expect(admit(policies, bindings, a)).toMatchObject({
      allowed: false,
      message: 'the agent writes only the status of its NodeConfig',
    });
  });

  it('admits removing its own start-up taint from its own Node', () => {
    const before = node('node-1', [taint(startup), taint('example.com/other')]);
    const after = node('node-1', [taint('example.com/other')]);
    expect(admit(policies, bindings, nodePatch(agentOn('node-1'), before, after))).toEqual({ allowed: true });
    // A Node without spec.taints afterwards (all removed) is the same change.
    const bare = { ...node('node-1', []), spec: {} };
    expect(
      admit(policies, bindings, nodePatch(agentOn('node-1'), node('node-1', [taint(startup)]), bare)),
    ).toEqual({
      allowed: true,
    });
  });

  it('refuses patching another Node, even its nodenet taints', () => {
    const d = admit(
      policies,
      bindings,
      nodePatch(agentOn('node-1'), node('node-2', [taint(startup)]), node('node-2', [])),
    );
    expect(d).toMatchObject({ allowed: false, message: 'agent on node node-1 may not write nodes node-2' });
  });

  it('refuses changing taints it does not own, or any other spec field, on its own Node', () => {
    const own = agentOn('node-1');
    const before = node('node-1', [taint('example.com/other')]);
    const cases = [
      node('node-1', []),
      node('node-1', [taint('example.com/other'), taint('example.com/new')]),
      { ...before, spec: { ...before.spec, unschedulable: true } },
      { ...before, spec: { ...before.spec, podCIDR: '10.244.1.0/24' } },
      { ...before, spec: { ...before.spec, providerID: 'aws:///x/i-0' } },
    ];
    for (const after of cases) {
      expect(admit(policies, bindings, nodePatch(own, before, after))).toMatchObject({
        allowed: false,
        message: 'the agent may change only its own (node.nodenet.io/) taints on its Node',
      });
    }
  });

  it('refuses any metadata change of its own Node, through the Node or nodes/status', () => {
    const own = agentOn('node-1');
    const before = node('node-1', [taint(startup)]);
    const meta = (m: Record<string, unknown>) => ({ ...before, metadata: { ...before.metadata, ...m } });
    const cases = [
      meta({ labels: { zone: 'b' } }),
      meta({ annotations: { 'example.com/a': 'x' } }),
      meta({ finalizers: ['example.com/keep'] }),
      meta({ ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'node-2', uid: 'u' }] }),
    ];
    for (const subResource of ['', 'status'])
      for (const after of cases)
        expect(admit(policies, bindings, { ...nodePatch(own, before, after), subResource })).toMatchObject({
          allowed: false,
          message:
            'the agent may not change the metadata of its Node (labels, annotations, finalizers, ownerReferences)',
        });
    // What the server maintains itself is no change of the agent's.
    expect(admit(policies, bindings, nodePatch(own, before, meta({ resourceVersion: '8' })))).toEqual({
      allowed: true,
    });
  });

  it('admits Events about its own NodeConfig and Node; refuses Events about anything else', () => {
    const event = (
      about: Record<string, string>,
      extra: Record<string, unknown> = {},
    ): AdmissionAttributes => ({
      operation: 'CREATE',
      group: '',
      version: 'v1',
      resource: 'events',
      subResource: '',
      name: 'e',
      namespace: 'default',
      userInfo: agentOn('node-1'),
      object: {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: 'e', namespace: 'default' },
        involvedObject: about,
        ...extra,
      },
      oldObject: null,
    });
    const nc = (name: string) => ({ apiVersion: 'network.nodenet.io/v1alpha1', kind: 'NodeConfig', name });
    expect(admit(policies, bindings, event(nc('node-1')))).toEqual({ allowed: true });
    expect(admit(policies, bindings, event({ apiVersion: 'v1', kind: 'Node', name: 'node-1' }))).toEqual({
      allowed: true,
    });
    const refused = [
      event(nc('node-2')),
      event({ apiVersion: 'network.nodenet.io/v1alpha1', kind: 'NetworkConfigRevision', name: 'node-1' }),
      event({ apiVersion: 'v1', kind: 'Pod', name: 'node-1', namespace: 'default' }),
      event({ kind: 'NodeConfig', name: 'node-1' }),
    ];
    for (const a of refused)
      expect(admit(policies, bindings, a)).toMatchObject({
        allowed: false,
        message: 'agent on node node-1 may record Events only about its own NodeConfig and Node',
      });
    expect(
      admit(policies, bindings, event(nc('node-1'), { related: { kind: 'Node', name: 'node-2' } })),
    ).toMatchObject({
      allowed: false,
      message: "the agent's Events may not name a related object",
    });
  });

  it('admits its own NodenetAgentReady condition in its Node status; refuses touching the kubelet conditions or other fields', () => {
    const cond = (type: string, status: string) => ({ type, status });
    const withStatus = (name: string, conditions: unknown[], extra: Record<string, unknown> = {}) => ({
      ...node(name, []),
      status: { conditions, addresses: [{ type: 'InternalIP', address: '10.0.0.1' }], ...extra },
    });
    const statusWrite = (name: string, before: unknown, after: unknown) => ({
      ...nodePatch(agentOn('node-1'), before, after),
      name,
      subResource: 'status',
    });
    const before = withStatus('node-1', [cond('Ready', 'True')]);
    const own = withStatus('node-1', [cond('Ready', 'True'), cond('NodenetAgentReady', 'False')]);
    expect(admit(policies, bindings, statusWrite('node-1', before, own))).toEqual({ allowed: true });
    const message =
      'the agent may change only its own NodenetAgentReady and NodenetReady conditions in its Node status';
    const kubelet = withStatus('node-1', [cond('Ready', 'False')]);
    expect(admit(policies, bindings, statusWrite('node-1', before, kubelet))).toMatchObject({
      allowed: false,
      message,
    });
    const moved = withStatus('node-1', [cond('Ready', 'True')], { addresses: [] });
    expect(admit(policies, bindings, statusWrite('node-1', before, moved))).toMatchObject({
      allowed: false,
      message,
    });
    const other = withStatus('node-2', [cond('Ready', 'True'), cond('NodenetAgentReady', 'False')]);
    expect(admit(policies, bindings, statusWrite('node-2', withStatus('node-2', []), other))).toMatchObject({
      allowed: false,
      message: 'agent on node node-1 may not write nodes node-2',
    });
  });

  it('refuses an agent deleting its own Node with the policy message, not an evaluation error', () => {
    const a = {
      ...nodePatch(agentOn('node-1'), node('node-1', []), node('node-1', [])),
      operation: 'DELETE' as const,
      object: null,
    };
    expect(admit(policies, bindings, a)).toMatchObject({
      allowed: false,
      reason: 'Forbidden',
      message:
        'the agent only updates its own NodeConfig status and Node taints, and creates or updates its own Lease',
    });
  });

  it('refuses an agent creating or deleting NodeConfigs and Nodes', () => {
    for (const operation of ['CREATE', 'DELETE'] as const) {
      const a = { ...statusPatch(agentOn('node-1'), 'node-1'), operation, subResource: '' };
      expect(admit(policies, bindings, a).allowed).toBe(false);
    }
  });

  it('leaves every other user alone (the configurator writes any NodeConfig spec)', () => {
    const a = {
      ...statusPatch(agentOn(), 'node-2'),
      subResource: '',
      userInfo: { username: 'system:serviceaccount:nodenet-system:nodenet-configurator', groups: [] },
    };
    expect(admit(policies, bindings, a)).toEqual({ allowed: true });
  });

  it('does not apply without a Deny binding', () => {
    const audit = bindings.map((b) => ({ ...b, spec: { ...b.spec, validationActions: ['Audit'] } }));
    expect(admit(policies, audit, statusPatch(agentOn('node-1'), 'node-2'))).toEqual({ allowed: true });
  });
});
