/**
 * deploy/ is the kustomize base users install. These checks keep it in step with the code: it renders
 * with kubectl's own kustomize, the agent and configurator accept the arguments it passes, and the
 * health config and FRR template it ships pass the agent's parsers.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, parse } from 'yaml';
import {
  buildProgram,
  parseHealthConfig,
  parseTemplate,
  resolveOptions,
  type RawOptions,
} from '@nodenet/agent';
import { validateInputs, type AgentConfiguration } from '@nodenet/api';

const root = fileURLToPath(new URL('../../', import.meta.url));

interface Container {
  args: string[];
  env?: { name: string; value?: string }[];
}
interface Doc {
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: { template?: { spec: { containers: Container[] } } };
}

describe('deploy/', () => {
  const rendered = execFileSync('kubectl', ['kustomize', `${root}deploy`], { encoding: 'utf8' });
  const docs = parseAllDocuments(rendered).map((d) => d.toJSON() as Doc);
  const byKind = (kind: string): Doc[] => docs.filter((d) => d.kind === kind);

  it('renders the namespace, RBAC, configurator and agent', () => {
    expect(byKind('Deployment').map((d) => d.metadata.name)).toEqual(['nodenet-configurator']);
    expect(byKind('DaemonSet').map((d) => d.metadata.name)).toEqual(['nodenet-agent']);
    expect(
      byKind('ClusterRole')
        .map((d) => d.metadata.name)
        .sort(),
    ).toEqual([
      'nodenet-agent',
      'nodenet-configurator',
      'nodenet-network-admin',
      'nodenet-peering-author',
      'nodenet-rollout-operator',
    ]);
    // Everything namespaced is in nodenet-system, but the agent's Events Role and binding: Events
    // about cluster-scoped objects (its NodeConfig, its Node) must be in `default`; and the BGP
    // password namespace's own salt Secret and Secret roles (bgp-passwords.yaml).
    const inDefault = ['Role nodenet-agent-events', 'RoleBinding nodenet-agent-events'];
    const inPasswords = [
      'Secret nodenet-bgp-password-salt',
      'Role nodenet-agent-bgp-passwords',
      'RoleBinding nodenet-agent-bgp-passwords',
      'Role nodenet-configurator-bgp-passwords',
      'RoleBinding nodenet-configurator-bgp-passwords',
    ];
    for (const d of docs.filter(
      // kustomize does not know AgentConfiguration is cluster-scoped and gives it a namespace too;
      // kubectl and the API server drop it (least-privilege.test.ts applies deploy/).
      (d) => !['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'AgentConfiguration'].includes(d.kind),
    )) {
      const what = `${d.kind} ${d.metadata.name}`;
      expect(d.metadata.namespace, what).toBe(
        inDefault.includes(what)
          ? 'default'
          : inPasswords.includes(what)
            ? 'nodenet-bgp-passwords'
            : 'nodenet-system',
      );
    }
    expect(byKind('Namespace').map((d) => d.metadata.name)).toEqual([
      'nodenet-bgp-passwords',
      'nodenet-system',
    ]);
    expect(
      docs.filter((d) => d.metadata.namespace === 'default').map((d) => `${d.kind} ${d.metadata.name}`),
    ).toEqual(inDefault);
  });

  it('binds metrics and health to the pod address, never every host interface (hostNetwork, issue #37)', () => {
    const listens = [...byKind('DaemonSet'), ...byKind('Deployment')].flatMap((d) =>
      d.spec!.template!.spec.containers.flatMap((c) =>
        c.args.filter((a) => /^--(metrics|health)-addr=/.test(a)).map((a) => `${d.metadata.name} ${a}`),
      ),
    );
    expect(listens.sort()).toEqual([
      'nodenet-agent --health-addr=$(POD_IP):9463',
      'nodenet-agent --metrics-addr=$(POD_IP):9462',
      'nodenet-configurator --health-addr=$(POD_IP):9465',
      'nodenet-configurator --metrics-addr=$(POD_IP):9464',
    ]);
    for (const d of [...byKind('DaemonSet'), ...byKind('Deployment')])
      expect(d.spec!.template!.spec.containers[0]!.env, d.metadata.name).toContainEqual({
        name: 'POD_IP',
        valueFrom: { fieldRef: { fieldPath: 'status.podIP' } },
      });
  });

  it('passes the agent arguments it accepts', () => {
    const container = byKind('DaemonSet')[0]!.spec!.template!.spec.containers[0]!;
    const env = Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value ?? '10.0.0.7']));
    // Kubernetes expands $(VAR) from the container's env before the process starts.
    const args = container.args.map((a) =>
      a.replace(/\$\(([A-Z_]+)\)/g, (_m, name: string) => env[name] ?? ''),
    );
    const raw = buildProgram()
      .exitOverride()
      .parse(['node', 'nodenet-agent', ...args])
      .opts<RawOptions>();
    const options = resolveOptions({ ...raw, nodeName: 'node-1' });
    // The template and the checks come from the AgentConfiguration: a template edit is no DaemonSet change.
    expect(options.frr.template).toBeUndefined();
    expect(options.healthConfig).toBeUndefined();
    expect(options.stateDir).toBe('/var/lib/nodenet');
    // The next node's agent waits for a confirm window after this one became ready.
    const ds = byKind('DaemonSet')[0]! as Doc & { spec: { minReadySeconds?: number } };
    expect(ds.spec.minReadySeconds ?? 0).toBeGreaterThanOrEqual(options.confirm.windowMs / 1000);
  });

  it('ships the AgentConfiguration `default` made from deploy/agent/, which the configurator and the agent accept', () => {
    const [object] = byKind('AgentConfiguration') as unknown as AgentConfiguration[];
    expect(object?.metadata.name).toBe('default');
    expect(object!.spec.frrTemplate).toBe(readFileSync(`${root}deploy/agent/frr.conf.tpl`, 'utf8'));
    expect(object!.spec.healthChecks).toEqual(parse(readFileSync(`${root}deploy/agent/health.yaml`, 'utf8')));
    expect(object!.spec.nodeSelector).toBeUndefined();
    expect(validateInputs({ vrf: [], layer2: [], routingTable: [], agentConfiguration: [object!] })).toEqual(
      [],
    );
    expect(parseHealthConfig(object!.spec.healthChecks).startupTaints).toEqual([
      'node.nodenet.io/network-unavailable',
    ]);
  });

  it('ships a health config and an FRR template the agent accepts', () => {
    const health = parseHealthConfig(parse(readFileSync(`${root}deploy/agent/health.yaml`, 'utf8')));
    expect(health.startupTaints).toEqual(['node.nodenet.io/network-unavailable']);
    expect(() => parseTemplate(readFileSync(`${root}deploy/agent/frr.conf.tpl`, 'utf8'))).not.toThrow();
  });

  it('runs the configurator with flags it knows', () => {
    const container = byKind('Deployment')[0]!.spec!.template!.spec.containers[0]!;
    const help = execFileSync(process.execPath, [`${root}packages/configurator/dist/main.js`, '--help'], {
      encoding: 'utf8',
    });
    for (const arg of container.args) expect(help).toContain(arg.split('=')[0]);
  });
});
