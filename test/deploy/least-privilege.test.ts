/**
 * Least privilege, proven: deploy/ rendered with `kubectl kustomize` and applied to devcluster with
 * authorization and admission on; the real configurator and one simulated agent per node run with
 * the identities deploy/ gives them (pod-bound ServiceAccount tokens). A full rollout completes with
 * no call refused; what they must not do is refused with kube-apiserver's own words; and
 * `kubectl auth can-i` answers for the shipped roles as a real cluster would. The real agent does
 * the same in test/agent/agent-least-privilege.test.ts (privileged).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimulatedAgents } from '../support/simulated-agent.js';
import { fleetQueries } from '../agent/support/agent-host.js';
import { layer2Input } from '../agent/support/agent-host.js';
import {
  AGENT_SA,
  CONFIGURATOR_SA,
  NS,
  RbacCluster,
  refusals,
  saUser,
  spawnConfigurator,
  type LoggedProcess,
} from './support/rbac-cluster.js';

const NODES = ['node-1', 'node-2', 'node-3'];
const POLICY = 'nodenet-agent-own-node';
const denied = (resource: string, name: string, message: string): string =>
  `Error from server (Forbidden): ${resource} "${name}" is forbidden: ValidatingAdmissionPolicy '${POLICY}' with binding '${POLICY}' denied request: ${message}`;

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
    agentKubeconfig.set(n, c.agentKubeconfig(n));
  }
  c.createPod('nodenet-configurator-7d4b9', CONFIGURATOR_SA, 'node-1');
  configuratorKubeconfig = c.podTokenKubeconfig(CONFIGURATOR_SA, 'nodenet-configurator-7d4b9');
  for (const n of NODES) {
    // Each agent only answers for its own node, with its own node-bound token.
    const a = new SimulatedAgents({
      kubeconfigPath: agentKubeconfig.get(n)!,
      behaviour: (node) => (node === n ? { kind: 'ok', delayMs: 20 } : { kind: 'never' }),
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
    expect(agents.flatMap((a) => a.writes.map((w) => w.node)).sort()).toEqual(expect.arrayContaining(NODES));
    expect(refusals(configurator.lines)).toEqual([]);
  }, 120_000);

  it("an agent writing another node's NodeConfig status is refused by the policy", () => {
    const r = c.kubectl(
      [
        'patch',
        'nodeconfig',
        'node-2',
        '--subresource=status',
        '--type=merge',
        '-p',
        '{"status":{"configStatus":"invalid"}}',
      ],
      { kubeconfig: agentKubeconfig.get('node-1')! },
    );
    expect(r.ok).toBe(false);
    expect(r.stderr.trim()).toBe(
      denied(
        'nodeconfigs.network.nodenet.io',
        'node-2',
        'agent on node node-1 may not write nodeconfigs node-2',
      ),
    );
  });

  it('an agent patching another Node is refused by the policy; on its own Node it may change only its taints', () => {
    const taint = '{"spec":{"taints":[{"key":"node.nodenet.io/network-unavailable","effect":"NoSchedule"}]}}';
    const other = c.kubectl(['patch', 'node', 'node-2', '-p', taint], {
      kubeconfig: agentKubeconfig.get('node-1')!,
    });
    expect(other.stderr.trim()).toBe(
      denied('nodes', 'node-2', 'agent on node node-1 may not write nodes node-2'),
    );

    const own = c.kubectl(['patch', 'node', 'node-1', '-p', taint], {
      kubeconfig: agentKubeconfig.get('node-1')!,
    });
    expect(own.stderr).toBe('');
    expect(own.ok).toBe(true);

    const foreign = c.kubectl(
      [
        'patch',
        'node',
        'node-1',
        '-p',
        '{"spec":{"taints":[{"key":"example.com/drain","effect":"NoExecute"}]}}',
      ],
      { kubeconfig: agentKubeconfig.get('node-1')! },
    );
    expect(foreign.stderr.trim()).toBe(
      denied('nodes', 'node-1', 'the agent may change only its own (node.nodenet.io/) taints on its Node'),
    );
    const label = c.kubectl(['label', 'node', 'node-1', 'role=edge'], {
      kubeconfig: agentKubeconfig.get('node-1')!,
    });
    expect(label.stderr.trim()).toBe(
      denied('nodes', 'node-1', 'the agent may change only its own (node.nodenet.io/) taints on its Node'),
    );
  });

  it("an agent may set its own NodenetAgentReady Node condition, not another node's nor the kubelet's", () => {
    const condition = (type: string): string =>
      JSON.stringify({ status: { conditions: [{ type, status: 'False', reason: 'AgentMisconfigured' }] } });
    const kc = { kubeconfig: agentKubeconfig.get('node-1')! };
    const own = c.kubectl(
      ['patch', 'node', 'node-1', '--subresource=status', '-p', condition('NodenetAgentReady')],
      kc,
    );
    expect(own.stderr).toBe('');
    const other = c.kubectl(
      ['patch', 'node', 'node-2', '--subresource=status', '-p', condition('NodenetAgentReady')],
      kc,
    );
    expect(other.stderr.trim()).toBe(
      denied('nodes', 'node-2', 'agent on node node-1 may not write nodes node-2'),
    );
    const kubelet = c.kubectl(
      ['patch', 'node', 'node-1', '--subresource=status', '-p', condition('Ready')],
      kc,
    );
    expect(kubelet.stderr.trim()).toBe(
      denied(
        'nodes',
        'node-1',
        'the agent may change only its own NodenetAgentReady condition in its Node status',
      ),
    );
  });

  it('an agent token not bound to a pod on a node is refused by the policy', () => {
    const unbound = c.dc.kubeconfigFor({
      token: c.kubectl(['create', 'token', AGENT_SA, '-n', NS]).stdout.trim(),
    });
    const r = c.kubectl(
      [
        'patch',
        'nodeconfig',
        'node-1',
        '--subresource=status',
        '--type=merge',
        '-p',
        '{"status":{"message":"x"}}',
      ],
      { kubeconfig: unbound },
    );
    expect(r.stderr.trim()).toBe(
      denied(
        'nodeconfigs.network.nodenet.io',
        'node-1',
        "the agent's token carries no node name (use a pod-bound ServiceAccount token)",
      ),
    );
  });

  it('the configurator is refused what it does not need: deleting Nodes, writing NodeConfig status, reading Secrets', () => {
    const kc = { kubeconfig: configuratorKubeconfig };
    const user = saUser(CONFIGURATOR_SA);
    expect(c.kubectl(['delete', 'node', 'node-3'], kc).stderr.trim()).toBe(
      `Error from server (Forbidden): nodes "node-3" is forbidden: User "${user}" cannot delete resource "nodes" in API group "" at the cluster scope`,
    );
    expect(
      c
        .kubectl(
          [
            'patch',
            'nodeconfig',
            'node-1',
            '--subresource=status',
            '--type=merge',
            '-p',
            '{"status":{"message":"x"}}',
          ],
          kc,
        )
        .stderr.trim(),
    ).toBe(
      `Error from server (Forbidden): nodeconfigs.network.nodenet.io "node-1" is forbidden: User "${user}" cannot patch resource "nodeconfigs/status" in API group "network.nodenet.io" at the cluster scope`,
    );
    expect(c.kubectl(['get', 'secrets', '-n', NS], kc).stderr.trim()).toBe(
      `Error from server (Forbidden): secrets is forbidden: User "${user}" cannot list resource "secrets" in API group "" in the namespace "${NS}"`,
    );
    expect(c.kubectl(['get', 'nodes'], kc).ok).toBe(true);
  });

  it('kubectl auth can-i answers for the shipped roles as a real cluster would', () => {
    const cases: [sa: string, args: string[], answer: 'yes' | 'no'][] = [
      [AGENT_SA, ['patch', 'nodeconfigs/status'], 'yes'],
      [AGENT_SA, ['update', 'nodeconfigs/status'], 'no'],
      [AGENT_SA, ['patch', 'nodeconfigs'], 'no'],
      [AGENT_SA, ['watch', 'nodeconfigs'], 'yes'],
      [AGENT_SA, ['get', 'nodes/node-1'], 'yes'],
      [AGENT_SA, ['patch', 'nodes'], 'yes'],
      [AGENT_SA, ['patch', 'nodes/status'], 'yes'],
      [AGENT_SA, ['delete', 'nodes'], 'no'],
      [AGENT_SA, ['create', 'events', '-n', 'default'], 'yes'],
      [AGENT_SA, ['list', 'secrets', '-n', NS], 'no'],
      [AGENT_SA, ['get', '/version'], 'yes'],
      [CONFIGURATOR_SA, ['create', 'nodeconfigs'], 'yes'],
      [CONFIGURATOR_SA, ['patch', 'nodeconfigs/status'], 'no'],
      [CONFIGURATOR_SA, ['update', 'networkconfigrevisions/status'], 'yes'],
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
    const answers = cases.map(([sa, args]) => {
      const r = c.kubectl(['auth', 'can-i', ...args, `--as=${saUser(sa)}`]);
      return `${sa} ${args.join(' ')}: ${r.stdout.trim()}`;
    });
    expect(answers).toEqual(cases.map(([sa, args, answer]) => `${sa} ${args.join(' ')}: ${answer}`));

    const list = c.kubectl(['auth', 'can-i', '--list', '-n', NS, `--as=${saUser(CONFIGURATOR_SA)}`]);
    const rows = list.stdout.split('\n').map((l) => l.trim().split(/\s+/).join(' '));
    expect(rows).toContain('leases.coordination.k8s.io [] [nodenet-configurator] [get update]');
    expect(rows).toContain('nodeconfigs.network.nodenet.io [] [] [list watch create patch delete]');
    expect(rows.some((r) => r.startsWith('nodeconfigs.network.nodenet.io/status'))).toBe(false);
  });

  it('an identity that may not impersonate is refused; an unauthenticated request gets 401', () => {
    const r = c.kubectl(['get', 'nodes', `--as=${saUser(AGENT_SA)}`], { kubeconfig: configuratorKubeconfig });
    expect(r.stderr.trim()).toBe(
      `Error from server (Forbidden): serviceaccounts "${AGENT_SA}" is forbidden: User "${saUser(CONFIGURATOR_SA)}" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "${NS}"`,
    );
    const anonymous = c.dc.kubeconfigFor({ token: 'not-a-token' });
    expect(c.kubectl(['get', 'nodes'], { kubeconfig: anonymous }).stderr.trim()).toBe(
      'error: You must be logged in to the server (Unauthorized)',
    );
  });
});
