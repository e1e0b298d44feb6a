/**
 * Least privilege, proven: deploy/ rendered with `kubectl kustomize` and applied to devcluster with
 * authorization and admission on; the real configurator and one simulated agent per node run with
 * the identities deploy/ gives them (pod-bound ServiceAccount tokens). A full rollout completes with
 * no call refused; what they must not do is refused with kube-apiserver's own words; and
 * `kubectl auth can-i` answers for the shipped roles as a real cluster would. The real agent does
 * the same in test/agent/agent-least-privilege.test.ts (privileged).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeApiError, KubeClient, loadKubeConfig, makeClients, type Clients } from '@nodenet/kube';
import { SimulatedAgents, fleetQueries, layer2Input, waitFor } from '@nodenet/testkit';
import {
  AGENT_SA,
  CONFIGURATOR_SA,
  NS,
  RbacCluster,
  repoRoot,
  refusals,
  saUser,
  spawnConfigurator,
  type LoggedProcess,
} from './support/rbac-cluster.js';

const NODES = ['node-1', 'node-2', 'node-3'];
const POLICY = 'nodenet-agent-own-node';
/** The BGP password namespace deploy/bgp-passwords.yaml makes (issue 41). */
const PASSWORDS_NS = 'nodenet-bgp-passwords';
const EVENTS_POLICY = 'nodenet-agent-events';
const denied = (resource: string, name: string, message: string, policy = POLICY): string =>
  `${resource} "${name}" is forbidden: ValidatingAdmissionPolicy '${policy}' with binding '${policy}' denied request: ${message}`;
const NO_METADATA =
  'the agent may not change the metadata of its Node (labels, annotations, finalizers, ownerReferences)';
const ONLY_TAINTS = 'the agent may change only its own (node.nodenet.io/) taints on its Node';

/** The status code and Status message of a refused call. */
async function refusal(call: Promise<unknown>): Promise<{ statusCode: number; message: string }> {
  try {
    await call;
  } catch (e) {
    if (e instanceof KubeApiError) return { statusCode: e.statusCode, message: e.serverMessage };
    throw e;
  }
  throw new Error('the call was allowed');
}

const clientsByNode = new Map<string, Clients>();
const agentClients = (node: string): Clients => {
  let clients = clientsByNode.get(node);
  if (!clients) {
    clients = makeClients(new KubeClient(loadKubeConfig(agentKubeconfig.get(node)!)));
    clientsByNode.set(node, clients);
  }
  return clients;
};

let c: RbacCluster;
const agentKubeconfig = new Map<string, string>();
const agents: SimulatedAgents[] = [];
let configuratorKubeconfig: string;
let configurator: LoggedProcess;

beforeAll(async () => {
  c = new RbacCluster();
  await c.start();
  for (const n of NODES) {
    await c.addNode(n);
    agentKubeconfig.set(n, await c.agentKubeconfig(n));
  }
  await c.createPod('nodenet-configurator-7d4b9', CONFIGURATOR_SA, 'node-1');
  configuratorKubeconfig = await c.podTokenKubeconfig(CONFIGURATOR_SA, 'nodenet-configurator-7d4b9');
  for (const n of NODES) {
    // Each agent only answers for its own node, with its own node-bound token.
    const a = new SimulatedAgents({
      kubeconfigPath: agentKubeconfig.get(n)!,
      // Long enough for liveness Lease renewals (issue 40) in the agents' namespace, as deploy/ has it.
      behaviour: (node) => (node === n ? { kind: 'ok', delayMs: 400 } : { kind: 'never' }),
      liveness: { namespace: NS, heartbeatMs: 150 },
    });
    await a.start();
    agents.push(a);
  }
  configurator = spawnConfigurator(configuratorKubeconfig);
}, 60_000);

afterAll(async () => {
  await configurator?.stop();
  for (const a of agents) await a.stop();
  await c?.stop();
});

describe('deploy/ with authorization and admission on', () => {
  it('a full rollout completes with the shipped identities; no call of the configurator or an agent is refused', async () => {
    await c.admin.layer2.create(layer2Input('l2-100', 100, ['10.100.0.1/24']));
    const q = fleetQueries(c.admin);
    const rev = await q.firstRevisionEverywhere(NODES.length);
    await q.until('revision complete', async () => {
      const r = (await q.revisions())[0];
      return r?.status?.conditions?.some((x) => x.type === 'Complete' && x.status === 'True') ?? false;
    });
    expect(rev.spec.hash).toMatch(/^[0-9a-f]+$/);
    expect(agents.map((a) => a.writeErrors)).toEqual([0, 0, 0]);
    // Each agent created and renewed its own liveness Lease (agent-rbac.yaml, agent-policy.yaml).
    expect(agents.map((a) => a.leases.errors)).toEqual([0, 0, 0]);
    expect(agents.map((a, i) => a.leases.renewals.some((r) => r.node === NODES[i]))).toEqual([
      true,
      true,
      true,
    ]);
    expect(agents.flatMap((a) => a.writes.map((w) => w.node)).sort()).toEqual(expect.arrayContaining(NODES));
    expect(refusals(configurator.lines)).toEqual([]);
  }, 120_000);

  it("an agent writing another node's NodeConfig status is refused by the policy", async () => {
    // The agent's own call (a merge patch of the status subresource), with its own client.
    const err = await refusal(
      agentClients('node-1').nodeConfig.patchStatus('node-2', { status: { configStatus: 'invalid' } }),
    );
    expect(err).toEqual({
      statusCode: 403,
      message: denied(
        'nodeconfigs.network.nodenet.io',
        'node-2',
        'agent on node node-1 may not write nodeconfigs node-2',
      ),
    });
    await expect(
      agentClients('node-1').nodeConfig.patchStatus('node-1', { status: { message: 'own status' } }),
    ).resolves.toBeDefined();
  });

  it("an agent writing another node's liveness Lease is refused by the policy; its own it may create and update (issue 40)", async () => {
    const forbidden = (name: string) =>
      denied('leases.coordination.k8s.io', name, `agent on node node-1 may not write leases ${name}`);
    const planted = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'node-9', namespace: NS },
      spec: { holderIdentity: 'node-9' },
    };
    expect(await refusal(agentClients('node-1').lease.create(planted))).toEqual({
      statusCode: 403,
      message: forbidden('node-9'),
    });
    const other = await c.admin.lease.get('node-2', NS);
    expect(await refusal(agentClients('node-1').lease.update(other))).toEqual({
      statusCode: 403,
      message: forbidden('node-2'),
    });
    const own = await agentClients('node-1').lease.get('node-1', NS);
    await expect(agentClients('node-1').lease.update(own)).resolves.toBeDefined();
    expect((await refusal(agentClients('node-1').lease.delete('node-1', NS))).statusCode).toBe(403);
  });

  it('an agent patching another Node is refused by the policy; on its own Node it may change only its taints', async () => {
    // kubectl as the agent: it may read Nodes, so `kubectl patch` works as for a person.
    const kc = { kubeconfig: agentKubeconfig.get('node-1')! };
    const taint = '{"spec":{"taints":[{"key":"node.nodenet.io/network-unavailable","effect":"NoSchedule"}]}}';
    const other = await c.kubectl(['patch', 'node', 'node-2', '-p', taint], kc);
    expect(other.stderr.trim()).toBe(
      `Error from server (Forbidden): ${denied('nodes', 'node-2', 'agent on node node-1 may not write nodes node-2')}`,
    );
    const own = await c.kubectl(['patch', 'node', 'node-1', '-p', taint], kc);
    expect(own.stderr).toBe('');
    expect(own.ok).toBe(true);

    const onlyTaints = ONLY_TAINTS;
    const foreign = await c.kubectl(
      [
        'patch',
        'node',
        'node-1',
        '-p',
        '{"spec":{"taints":[{"key":"example.com/drain","effect":"NoExecute"}]}}',
      ],
      kc,
    );
    expect(foreign.stderr.trim()).toBe(
      `Error from server (Forbidden): ${denied('nodes', 'node-1', onlyTaints)}`,
    );
    const label = await c.kubectl(['label', 'node', 'node-1', 'role=edge'], kc);
    expect(label.stderr.trim()).toBe(
      `Error from server (Forbidden): ${denied('nodes', 'node-1', NO_METADATA)}`,
    );
  });

  it('on its own Node an agent changes no metadata and no spec but its taints, through the resource or nodes/status', async () => {
    const kc = { kubeconfig: agentKubeconfig.get('node-1')! };
    const node2 = await c.admin.node.get('node-2');
    const owner = { apiVersion: 'v1', kind: 'Node', name: 'node-2', uid: node2.metadata.uid };
    const cases: [what: string, args: string[], message: string][] = [
      ['finalizers', ['-p', '{"metadata":{"finalizers":["example.com/keep"]}}'], NO_METADATA],
      ['ownerReferences', ['-p', JSON.stringify({ metadata: { ownerReferences: [owner] } })], NO_METADATA],
      ['annotations', ['-p', '{"metadata":{"annotations":{"example.com/a":"x"}}}'], NO_METADATA],
      ['spec.podCIDR', ['-p', '{"spec":{"podCIDR":"10.244.9.0/24"}}'], ONLY_TAINTS],
      ['spec.providerID', ['-p', '{"spec":{"providerID":"aws:///x/i-0"}}'], ONLY_TAINTS],
      ['spec.unschedulable', ['-p', '{"spec":{"unschedulable":true}}'], ONLY_TAINTS],
    ];
    const answers: string[] = [];
    for (const [what, args] of cases) {
      const r = await c.kubectl(['patch', 'node', 'node-1', ...args], kc);
      answers.push(`${what}: ${r.stderr.trim()}`);
    }
    expect(answers).toEqual(
      cases.map(
        ([what, , message]) =>
          `${what}: Error from server (Forbidden): ${denied('nodes', 'node-1', message)}`,
      ),
    );
    // nodes/status keeps the metadata sent with it (its strategy resets only spec): the agent's own
    // call there (a strategic merge patch, as self-check.ts sends) may carry none either.
    const statusPatch = (metadata: Record<string, unknown>) =>
      agentClients('node-1').client.request('PATCH', '/api/v1/nodes/node-1/status', {
        body: { metadata },
        contentType: 'application/strategic-merge-patch+json',
      });
    const statusCases: Record<string, unknown>[] = [
      { labels: { role: 'edge' } },
      { annotations: { 'example.com/a': 'x' } },
      { finalizers: ['example.com/keep'] },
      { ownerReferences: [owner] },
    ];
    for (const metadata of statusCases)
      expect({ metadata, ...(await refusal(statusPatch(metadata))) }).toEqual({
        metadata,
        statusCode: 403,
        message: denied('nodes', 'node-1', NO_METADATA),
      });
    // What the policy stops would otherwise be stored: the admin's same status patch keeps the label.
    const admin = await c.kubectl([
      'patch',
      'node',
      'node-3',
      '--subresource=status',
      '-p',
      '{"metadata":{"labels":{"role":"edge"}}}',
    ]);
    expect(admin.stderr).toBe('');
    expect((await c.admin.node.get('node-3')).metadata.labels?.role).toBe('edge');
    const after = await c.admin.node.get('node-1');
    expect([after.metadata.finalizers, after.metadata.ownerReferences, after.metadata.labels?.role]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('an agent records Events only in default, only about its own NodeConfig and Node', async () => {
    const events = agentClients('node-1').event;
    let n = 0;
    const event = (namespace: string, about: Record<string, string>, extra: Record<string, unknown> = {}) =>
      events.create({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: `ev-${++n}`, namespace },
        involvedObject: about,
        reason: 'Aborted',
        message: 'x',
        type: 'Warning',
        source: { component: 'nodenet-agent' },
        ...extra,
      } as never);
    const nodeConfig = (name: string) => ({
      apiVersion: 'network.nodenet.io/v1alpha1',
      kind: 'NodeConfig',
      name,
    });
    const own = 'agent on node node-1 may record Events only about its own NodeConfig and Node';
    const forbidden = (message: string) => ({
      statusCode: 403,
      message: denied('events', `ev-${n}`, message, EVENTS_POLICY),
    });
    await expect(event('default', nodeConfig('node-1'))).resolves.toBeDefined();
    await expect(event('default', { apiVersion: 'v1', kind: 'Node', name: 'node-1' })).resolves.toBeDefined();
    expect(await refusal(event(NS, nodeConfig('node-1')))).toEqual({
      statusCode: 403,
      message: `events is forbidden: User "${saUser(AGENT_SA)}" cannot create resource "events" in API group "" in the namespace "${NS}"`,
    });
    const revision = {
      apiVersion: 'network.nodenet.io/v1alpha1',
      kind: 'NetworkConfigRevision',
      name: 'node-1',
    };
    expect(await refusal(event('default', revision))).toEqual(forbidden(own));
    expect(await refusal(event('default', nodeConfig('node-2')))).toEqual(forbidden(own));
    expect(await refusal(event('default', { apiVersion: 'v1', kind: 'Node', name: 'node-2' }))).toEqual(
      forbidden(own),
    );
    expect(
      await refusal(
        event('default', nodeConfig('node-1'), {
          related: { kind: 'Node', apiVersion: 'v1', name: 'node-2' },
        }),
      ),
    ).toEqual(forbidden("the agent's Events may not name a related object"));
  });

  it("an agent may set its own NodenetAgentReady Node condition, not another node's nor the kubelet's", async () => {
    // The agent's own call (self-check.ts): a strategic merge patch of nodes/status.
    const patch = (node: string, type: string) =>
      agentClients('node-1').client.request('PATCH', `/api/v1/nodes/${node}/status`, {
        body: {
          status: { conditions: [{ type, status: 'False', reason: 'AgentMisconfigured', message: 'x' }] },
        },
        contentType: 'application/strategic-merge-patch+json',
      });
    await expect(patch('node-1', 'NodenetAgentReady')).resolves.toBeDefined();
    await expect(patch('node-1', 'NodenetReady')).resolves.toBeDefined();
    expect(await refusal(patch('node-2', 'NodenetAgentReady'))).toEqual({
      statusCode: 403,
      message: denied('nodes', 'node-2', 'agent on node node-1 may not write nodes node-2'),
    });
    expect(await refusal(patch('node-1', 'Ready'))).toEqual({
      statusCode: 403,
      message: denied(
        'nodes',
        'node-1',
        'the agent may change only its own NodenetAgentReady and NodenetReady conditions in its Node status',
      ),
    });
  });

  it('an agent token not bound to a pod on a node is refused by the policy', async () => {
    const token = (await c.kubectl(['create', 'token', AGENT_SA, '-n', NS])).stdout.trim();
    const unbound = makeClients(new KubeClient(loadKubeConfig(c.dc.kubeconfigFor({ token }))));
    expect(await refusal(unbound.nodeConfig.patchStatus('node-1', { status: { message: 'x' } }))).toEqual({
      statusCode: 403,
      message: denied(
        'nodeconfigs.network.nodenet.io',
        'node-1',
        "the agent's token carries no node name (use a pod-bound ServiceAccount token)",
      ),
    });
  });

  it('the configurator is refused what it does not need: deleting Nodes, writing NodeConfig status, reading Secrets', async () => {
    const kc = { kubeconfig: configuratorKubeconfig };
    const user = saUser(CONFIGURATOR_SA);
    expect((await c.kubectl(['delete', 'node', 'node-3'], kc)).stderr.trim()).toBe(
      `Error from server (Forbidden): nodes "node-3" is forbidden: User "${user}" cannot delete resource "nodes" in API group "" at the cluster scope`,
    );
    // The configurator's own client: it cannot even try the agents' status write.
    const configurator = makeClients(new KubeClient(loadKubeConfig(configuratorKubeconfig)));
    expect(
      await refusal(configurator.nodeConfig.patchStatus('node-1', { status: { message: 'x' } })),
    ).toEqual({
      statusCode: 403,
      message: `nodeconfigs.network.nodenet.io "node-1" is forbidden: User "${user}" cannot patch resource "nodeconfigs/status" in API group "network.nodenet.io" at the cluster scope`,
    });
    expect((await c.kubectl(['get', 'secrets', '-n', NS], kc)).stderr.trim()).toBe(
      `Error from server (Forbidden): secrets is forbidden: User "${user}" cannot list resource "secrets" in API group "" in the namespace "${NS}"`,
    );
    expect((await c.kubectl(['get', 'nodes'], kc)).ok).toBe(true);
  });

  it('BGP passwords: the configurator fills the salt and builds a revision carrying only the hash; an agent reads password Secrets by name and no other Secret, and writes none', async () => {
    const b64 = (v: string): string => Buffer.from(v).toString('base64');
    const secret = (namespace: string, name: string) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace },
      data: { password: b64(`pw-${name}`) },
    });
    await c.admin.secret.create(secret(PASSWORDS_NS, 'bgp-appliance'));
    await c.admin.secret.create(secret(NS, 'not-a-password'));
    await c.admin.secret.create(secret('default', 'elsewhere'));
    // In a VRF of its own: the default VRF is the underlay, where this site allows no peering (issue #37).
    await c.admin.vrf.create({
      apiVersion: 'network.nodenet.io/v1alpha1',
      kind: 'VRFRouteConfiguration',
      metadata: { name: 'appliances' },
      spec: { vrf: 'appliances', vni: 5100, seq: 20 },
    });
    await c.admin.bgpPeering.create({
      apiVersion: 'network.nodenet.io/v1alpha1',
      kind: 'BGPPeering',
      metadata: { name: 'appliance' },
      spec: {
        neighbor: { addresses: ['192.0.2.9'], vrf: 'appliances' },
        remoteASN: 65100,
        passwordSecretRef: { name: 'bgp-appliance' },
      },
    });
    const q = fleetQueries(c.admin);
    const carrying = await q.until('a revision carrying the peering', async () =>
      (await q.revisions()).find((r) => r.spec.config.bgpPeering?.some((p) => p.name === 'appliance')),
    );
    const entry = carrying.spec.config.bgpPeering!.find((p) => p.name === 'appliance')!;
    expect(entry.password).toEqual({
      secret: 'bgp-appliance',
      key: 'password',
      hash: expect.stringMatching(/^hmac-sha256:[0-9a-f]{64}$/),
    });
    expect(JSON.stringify(carrying)).not.toContain('pw-bgp-appliance');
    expect(JSON.stringify(carrying)).not.toContain(b64('pw-bgp-appliance'));
    // The configurator's leader filled the salt through its `update` of that one Secret.
    const salt = await c.admin.secret.get('nodenet-bgp-password-salt', PASSWORDS_NS);
    expect(Buffer.from(salt.data?.salt ?? '', 'base64')).toHaveLength(32);
    // Its Secret calls (the informer's list and watch, the salt's get and update) were all allowed.
    expect(refusals(configurator.lines).filter((l) => l.includes('secrets'))).toEqual([]);

    const agent = agentClients('node-1').secret;
    const user = saUser(AGENT_SA);
    const cannot = (verb: string, ns: string, name?: string) => ({
      statusCode: 403,
      message: `secrets${name ? ` "${name}"` : ''} is forbidden: User "${user}" cannot ${verb} resource "secrets" in API group "" in the namespace "${ns}"`,
    });
    // What the agent's PasswordBook calls: get by name in the password namespace.
    expect((await agent.get('bgp-appliance', PASSWORDS_NS)).data?.password).toBe(b64('pw-bgp-appliance'));
    expect(await refusal(agent.get('not-a-password', NS))).toEqual(cannot('get', NS, 'not-a-password'));
    expect(await refusal(agent.get('elsewhere', 'default'))).toEqual(cannot('get', 'default', 'elsewhere'));
    expect(await refusal(agent.list({ namespace: PASSWORDS_NS }))).toEqual(cannot('list', PASSWORDS_NS));
    expect(await refusal(agent.create(secret(PASSWORDS_NS, 'planted')))).toEqual(
      cannot('create', PASSWORDS_NS),
    );
    const stored = await c.admin.secret.get('bgp-appliance', PASSWORDS_NS);
    expect(await refusal(agent.update({ ...stored, data: { password: b64('x') } }))).toEqual(
      cannot('update', PASSWORDS_NS, 'bgp-appliance'),
    );
    expect(await refusal(agent.delete('bgp-appliance', PASSWORDS_NS))).toEqual(
      cannot('delete', PASSWORDS_NS, 'bgp-appliance'),
    );
    // The configurator writes no Secret but the salt.
    const conf = makeClients(new KubeClient(loadKubeConfig(configuratorKubeconfig))).secret;
    expect((await refusal(conf.update({ ...stored, data: { password: b64('x') } }))).statusCode).toBe(403);
    expect((await refusal(conf.create(secret(PASSWORDS_NS, 'planted')))).statusCode).toBe(403);
  }, 120_000);

  it('kubectl auth can-i answers for the shipped roles as a real cluster would', async () => {
    const cases: [sa: string, args: string[], answer: 'yes' | 'no'][] = [
      [AGENT_SA, ['patch', 'nodeconfigs', '--subresource=status'], 'yes'],
      [AGENT_SA, ['update', 'nodeconfigs', '--subresource=status'], 'no'],
      [AGENT_SA, ['patch', 'nodeconfigs'], 'no'],
      [AGENT_SA, ['watch', 'nodeconfigs'], 'yes'],
      [AGENT_SA, ['get', 'nodeconfigs/node-1'], 'yes'],
      [AGENT_SA, ['get', 'nodes/node-1'], 'yes'],
      [AGENT_SA, ['patch', 'nodes'], 'yes'],
      [AGENT_SA, ['patch', 'nodes', '--subresource=status'], 'yes'],
      [AGENT_SA, ['delete', 'nodes'], 'no'],
      [AGENT_SA, ['create', 'events', '-n', 'default'], 'yes'],
      [AGENT_SA, ['create', 'events', '-n', NS], 'no'],
      [AGENT_SA, ['create', 'events', '-n', 'kube-system'], 'no'],
      [AGENT_SA, ['list', 'secrets', '-n', NS], 'no'],
      [AGENT_SA, ['get', 'secrets', '-n', NS], 'no'],
      [AGENT_SA, ['get', 'secrets', '-n', 'default'], 'no'],
      [AGENT_SA, ['get', 'secrets', '-A'], 'no'],
      [AGENT_SA, ['get', 'secrets/bgp-appliance', '-n', PASSWORDS_NS], 'yes'],
      [AGENT_SA, ['list', 'secrets', '-n', PASSWORDS_NS], 'no'],
      [AGENT_SA, ['watch', 'secrets', '-n', PASSWORDS_NS], 'no'],
      [AGENT_SA, ['create', 'secrets', '-n', PASSWORDS_NS], 'no'],
      [AGENT_SA, ['update', 'secrets/nodenet-bgp-password-salt', '-n', PASSWORDS_NS], 'no'],
      [AGENT_SA, ['patch', 'secrets', '-n', PASSWORDS_NS], 'no'],
      [AGENT_SA, ['delete', 'secrets', '-n', PASSWORDS_NS], 'no'],
      [CONFIGURATOR_SA, ['watch', 'secrets', '-n', PASSWORDS_NS], 'yes'],
      [CONFIGURATOR_SA, ['list', 'secrets', '-n', 'default'], 'no'],
      [CONFIGURATOR_SA, ['update', 'secrets/nodenet-bgp-password-salt', '-n', PASSWORDS_NS], 'yes'],
      [CONFIGURATOR_SA, ['update', 'secrets/bgp-appliance', '-n', PASSWORDS_NS], 'no'],
      [CONFIGURATOR_SA, ['create', 'secrets', '-n', PASSWORDS_NS], 'no'],
      [AGENT_SA, ['get', '/version'], 'yes'],
      [AGENT_SA, ['create', 'leases', '-n', NS], 'yes'],
      [AGENT_SA, ['update', 'leases/node-1', '-n', NS], 'yes'],
      [AGENT_SA, ['create', 'leases', '-n', 'default'], 'no'],
      [AGENT_SA, ['delete', 'leases/node-1', '-n', NS], 'no'],
      [AGENT_SA, ['list', 'leases', '-n', NS], 'no'],
      [CONFIGURATOR_SA, ['watch', 'leases', '-n', NS], 'yes'],
      [CONFIGURATOR_SA, ['list', 'leases', '-n', 'default'], 'no'],
      [CONFIGURATOR_SA, ['create', 'nodeconfigs'], 'yes'],
      [CONFIGURATOR_SA, ['patch', 'nodeconfigs', '--subresource=status'], 'no'],
      [CONFIGURATOR_SA, ['update', 'networkconfigrevisions', '--subresource=status'], 'yes'],
      [CONFIGURATOR_SA, ['delete', 'nodes'], 'no'],
      [CONFIGURATOR_SA, ['list', 'nodes'], 'yes'],
      [CONFIGURATOR_SA, ['update', 'leases/nodenet-configurator', '-n', NS], 'yes'],
      [CONFIGURATOR_SA, ['update', 'leases/other', '-n', NS], 'no'],
      [CONFIGURATOR_SA, ['create', 'leases', '-n', NS], 'yes'],
      [CONFIGURATOR_SA, ['create', 'leases', '-n', 'default'], 'no'],
      [CONFIGURATOR_SA, ['get', `namespaces/${NS}`, '-n', NS], 'yes'],
      [CONFIGURATOR_SA, ['get', 'namespaces/default'], 'no'],
      [CONFIGURATOR_SA, ['impersonate', 'serviceaccounts', '-n', NS], 'no'],
    ];
    const answers: string[] = [];
    for (const [sa, args] of cases) {
      const r = await c.kubectl(['auth', 'can-i', ...args, `--as=${saUser(sa)}`]);
      answers.push(`${sa} ${args.join(' ')}: ${r.stdout.trim()}`);
    }
    expect(answers).toEqual(cases.map(([sa, args, answer]) => `${sa} ${args.join(' ')}: ${answer}`));

    const list = await c.kubectl(['auth', 'can-i', '--list', '-n', NS, `--as=${saUser(CONFIGURATOR_SA)}`]);
    const rows = list.stdout.split('\n').map((l) => l.trim().split(/\s+/).join(' '));
    expect(rows).toContain('leases.coordination.k8s.io [] [nodenet-configurator] [get update]');
    // Its own Lease (create) and the agents' liveness Leases (list, watch), in one row.
    expect(rows.find((r) => r.startsWith('leases.coordination.k8s.io [] [] ['))).toMatch(
      /\[create list watch\]$|\[list watch create\]$/,
    );
    expect(rows).toContain('nodeconfigs.network.nodenet.io [] [] [list watch create patch delete]');
    expect(rows.some((r) => r.startsWith('nodeconfigs.network.nodenet.io/status'))).toBe(false);
  });

  it('an identity that may not impersonate is refused; an unauthenticated request gets 401', async () => {
    const r = await c.kubectl(['get', 'nodes', `--as=${saUser(AGENT_SA)}`], {
      kubeconfig: configuratorKubeconfig,
    });
    expect(r.stderr.trim()).toBe(
      `Error from server (Forbidden): serviceaccounts "${AGENT_SA}" is forbidden: User "${saUser(CONFIGURATOR_SA)}" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "${NS}"`,
    );
    const anonymous = c.dc.kubeconfigFor({ token: 'not-a-token' });
    expect((await c.kubectl(['get', 'nodes'], { kubeconfig: anonymous })).stderr.trim()).toBe(
      'error: You must be logged in to the server (Unauthorized)',
    );
  });

  it('a peering-only identity is refused on a network that does not admit it; its owner field can not be forged (issue #37)', async () => {
    // team-a's ServiceAccount with the shipped peering-author role and nothing else; team-b's too.
    const author = async (ns: string): Promise<{ kubeconfig: string }> => {
      for (const args of [
        ['create', 'namespace', ns],
        ['create', 'serviceaccount', 'lb', '-n', ns],
      ])
        expect((await c.kubectl(args)).stderr).toBe('');
      await bindClusterRole(`${ns}-lb`, 'nodenet-peering-author', {
        kind: 'ServiceAccount',
        name: 'lb',
        namespace: ns,
      });
      const token = await c.kubectl(['create', 'token', 'lb', '-n', ns]);
      return { kubeconfig: c.dc.kubeconfigFor({ token: token.stdout.trim() }) };
    };
    const teamA = await author('team-a');
    const teamB = await author('team-b');
    const userA = 'system:serviceaccount:team-a:lb';
    // The networks' owner (the admin): VRF tenant, a network that admits team-a and one that does not.
    await c.admin.vrf.create({
      apiVersion: 'network.nodenet.io/v1alpha1',
      kind: 'VRFRouteConfiguration',
      metadata: { name: 'tenant' },
      spec: { vrf: 'tenant', vni: 5000, seq: 10 },
    });
    const net = (name: string, id: number, admit?: string[]) =>
      c.admin.layer2.create({
        ...layer2Input(name, id, [`10.${id}.0.1/24`]),
        spec: {
          ...layer2Input(name, id, [`10.${id}.0.1/24`]).spec,
          vrf: 'tenant',
          ...(admit ? { peering: { admit } } : {}),
        },
      });
    await net('closed', 201);
    await net('open', 202, ['system:serviceaccounts:team-a']);
    const peeringYaml = (name: string, layer2: string, owner: string): string =>
      JSON.stringify({
        apiVersion: 'network.nodenet.io/v1alpha1',
        kind: 'BGPPeering',
        metadata: { name },
        spec: { listenRange: { layer2 }, remoteAS: 'external', owner },
      });
    const create = (who: { kubeconfig: string }, yaml: string) =>
      c.kubectl(['create', '-f', '-'], { ...who, input: yaml });
    const policyDenied = (name: string, verb: string, message: string): string =>
      `Error from server (Forbidden): ${verb}bgppeerings.network.nodenet.io "${name}" is forbidden: ValidatingAdmissionPolicy 'nodenet-peering-owner' with binding 'nodenet-peering-owner' denied request: ${message}`;

    // It may not write another owner's name, nor open a network for itself.
    expect(
      (await create(teamA, peeringYaml('forged', 'closed', 'system:serviceaccount:team-b:lb'))).stderr.trim(),
    ).toBe(
      policyDenied(
        'forged',
        'error when creating "STDIN": ',
        `spec.owner must be your own user name (${userA}): a BGPPeering names who manages it, and the network or VRF it uses must admit that owner`,
      ),
    );
    expect(
      (await c.kubectl(['auth', 'can-i', 'patch', 'layer2networkconfigurations'], teamA)).stdout.trim(),
    ).toBe('no');
    // In its own name: stored, but refused by the configurator on the network that does not admit it.
    expect((await create(teamA, peeringYaml('lb-closed', 'closed', userA))).ok).toBe(true);
    expect((await create(teamA, peeringYaml('lb-open', 'open', userA))).ok).toBe(true);
    const accepted = (name: string) =>
      waitFor(`${name} Accepted`, async () =>
        (await c.admin.bgpPeering.get(name)).status?.conditions?.find((x) => x.type === 'Accepted'),
      );
    expect(await accepted('lb-closed')).toMatchObject({
      status: 'False',
      message: expect.stringContaining(
        `BGPPeering lb-closed: spec.owner: is not admitted by Layer2NetworkConfiguration closed (its spec.peering.admit) (got "${userA}")`,
      ),
    });
    expect(await accepted('lb-open')).toMatchObject({ status: 'True' });
    // Another team may neither change nor delete it.
    const patched = await c.kubectl(
      [
        'patch',
        'bgppeering',
        'lb-open',
        '--type=merge',
        '-p',
        '{"spec":{"owner":"system:serviceaccount:team-b:lb"}}',
      ],
      teamB,
    );
    expect(patched.stderr.trim()).toBe(
      policyDenied(
        'lb-open',
        '',
        'only the owner of a BGPPeering (spec.owner) or a network admin may change or delete it',
      ),
    );
    expect((await c.kubectl(['delete', 'bgppeering', 'lb-open'], teamB)).stderr.trim()).toBe(
      policyDenied(
        'lb-open',
        '',
        'only the owner of a BGPPeering (spec.owner) or a network admin may change or delete it',
      ),
    );
    expect((await c.kubectl(['delete', 'bgppeering', 'lb-open', 'lb-closed'], teamA)).ok).toBe(true);
  }, 60_000);

  it('the right to pause is not the right to loosen the rollout: knobs need a rollout admin (issue #37)', async () => {
    await bindClusterRole('ops', 'nodenet-rollout-operator', {
      kind: 'User',
      apiGroup: 'rbac.authorization.k8s.io',
      name: 'ops@example.com',
    });
    const ops = { kubeconfig: c.dc.kubeconfigFor({ username: 'ops@example.com' }) };
    // The plugin's fleet pause and resume work with exactly this right (create, then merge patch).
    const plugin = (args: string[]) =>
      run(join(repoRoot, 'node_modules/.bin/kubectl-nodenet'), [...args, '--kubeconfig', ops.kubeconfig]);
    expect((await plugin(['pause'])).code).toBe(0);
    expect((await c.admin.rolloutPolicy.get('default')).spec).toEqual({ paused: true });
    const refused =
      'Error from server (Forbidden): rolloutpolicies.network.nodenet.io "default" is forbidden: ' +
      "ValidatingAdmissionPolicy 'nodenet-rollout-knobs' with binding 'nodenet-rollout-knobs' denied request: " +
      'only spec.paused may be changed with the right to pause; the rollout knobs (updateLimit, maxFailures, timeouts, waves) need the group nodenet:rollout-admins';
    for (const knob of [
      '{"updateLimit":"100%"}',
      '{"maxFailures":1000000}',
      '{"minSuccessTime":"0s"}',
      '{"disruptive":{"updateLimit":"100%"}}',
    ])
      expect(
        (
          await c.kubectl(
            ['patch', 'rolloutpolicy', 'default', '--type=merge', '-p', `{"spec":${knob}}`],
            ops,
          )
        ).stderr.trim(),
        knob,
      ).toBe(refused);
    expect((await plugin(['resume'])).code).toBe(0);
    expect((await c.admin.rolloutPolicy.get('default')).spec).toEqual({ paused: false });
    // A rollout admin may set a knob; the operator may still pause beside it, not remove it.
    const admin = {
      kubeconfig: c.dc.kubeconfigFor({ username: 'lead@example.com', groups: ['nodenet:rollout-admins'] }),
    };
    expect(
      (
        await c.kubectl(
          ['patch', 'rolloutpolicy', 'default', '--type=merge', '-p', '{"spec":{"updateLimit":"2"}}'],
          admin,
        )
      ).stderr,
    ).toBe('');
    // A bad value of the disruptive knob is refused by the schema, naming the field and the value (issue 39).
    expect(
      (
        await c.kubectl(
          [
            'patch',
            'rolloutpolicy',
            'default',
            '--type=merge',
            '-p',
            '{"spec":{"disruptive":{"from":"reboot"}}}',
          ],
          admin,
        )
      ).stderr.trim(),
    ).toBe(
      'The RolloutPolicy "default" is invalid: spec.disruptive.from: Unsupported value: "reboot": supported values: "none", "refilter", "session-reset", "l2-interruption", "vrf-rebuild"',
    );
    expect((await plugin(['pause'])).code).toBe(0);
    expect(
      (
        await c.kubectl(
          [
            'patch',
            'rolloutpolicy',
            'default',
            '--type=json',
            '-p',
            '[{"op":"remove","path":"/spec/updateLimit"}]',
          ],
          ops,
        )
      ).stderr.trim(),
    ).toBe(refused);
    expect((await plugin(['resume'])).code).toBe(0);
  }, 60_000);
});

/** Binds a shipped ClusterRole to one subject, as the admin. */
async function bindClusterRole(name: string, role: string, subject: Record<string, string>): Promise<void> {
  const binding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [subject],
  };
  expect((await c.kubectl(['create', '-f', '-'], { input: JSON.stringify(binding) })).stderr).toBe('');
}

/** A child process, asynchronously (the API server runs in this process): exit code and output. */
function run(file: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { encoding: 'utf8' }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
