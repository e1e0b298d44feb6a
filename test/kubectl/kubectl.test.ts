/**
 * kubectl compatibility of devcluster: the real kubectl binary, as an independent client, against the
 * real nodenet-devcluster binary with the generated CRDs from crds/.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SAMPLES = path.join(ROOT, 'test/kubectl/samples');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nodenet-kubectl-'));
const kubeconfig = path.join(tmp, 'kubeconfig');
let server: ResultPromise | undefined;

/** kubectl with this suite's kubeconfig and a private discovery cache. */
function kubectl(...args: string[]) {
  return execa('kubectl', ['--kubeconfig', kubeconfig, '--cache-dir', path.join(tmp, 'cache'), ...args], {
    reject: false,
    timeout: 30_000,
  });
}

async function ok(...args: string[]): Promise<string> {
  const r = await kubectl(...args);
  if (r.exitCode !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.exitCode}): ${r.stderr}`);
  return r.stdout;
}

/** Splits `kubectl get` output into rows of whitespace-separated cells (header first). */
function table(out: string): string[][] {
  return out
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s{2,}/));
}

describe('kubectl against nodenet-devcluster', () => {
  beforeAll(async () => {
    await execa('npx', ['tsc', '-b', 'packages/devcluster'], { cwd: ROOT });
    server = execa('node', ['packages/devcluster/dist/main.js', '--port', '0', '--kubeconfig', kubeconfig], {
      cwd: ROOT,
      reject: false,
    });
    await new Promise<void>((resolve, reject) => {
      server?.stdout?.on('data', (d: Buffer) => {
        if (d.toString().includes('listening on http://127.0.0.1:')) resolve();
      });
      void server?.then((r) => reject(new Error(`devcluster exited early: ${r.stderr}`)));
    });
  });

  afterAll(async () => {
    server?.kill('SIGTERM');
    const r = await server;
    fs.rmSync(tmp, { recursive: true, force: true });
    expect(r?.exitCode).toBe(0); // clean stop on SIGTERM
  });

  it('applies crds/ and waits for them to be established', async () => {
    const out = await ok('apply', '-f', path.join(ROOT, 'crds'));
    expect(out).toContain(
      'customresourcedefinition.apiextensions.k8s.io/layer2networkconfigurations.network.nodenet.io created',
    );
    const waited = await ok('wait', '--for', 'condition=established', 'crd', '--all', '--timeout=20s');
    expect(
      waited
        .trim()
        .split('\n')
        .filter((l) => l.includes('condition met')).length,
    ).toBe(fs.readdirSync(path.join(ROOT, 'crds')).filter((f) => f.endsWith('.yaml')).length);
  });

  it('applies sample inputs: created, then unchanged, then configured', async () => {
    const first = await ok('apply', '-f', path.join(SAMPLES, 'inputs.yaml'));
    expect(first).toContain('layer2networkconfiguration.network.nodenet.io/vlan100 created');
    expect(first).toContain('vrfrouteconfiguration.network.nodenet.io/tenant-a created');
    expect(first).toContain('routingtable.network.nodenet.io/taas-5 created');
    const again = await ok('apply', '-f', path.join(SAMPLES, 'inputs.yaml'));
    expect(again).toContain('layer2networkconfiguration.network.nodenet.io/vlan100 unchanged');
    const changed = fs
      .readFileSync(path.join(SAMPLES, 'inputs.yaml'), 'utf8')
      .replace('vni: 10100', 'vni: 10101');
    const file = path.join(tmp, 'changed.yaml');
    fs.writeFileSync(file, changed);
    const third = await ok('apply', '-f', file);
    expect(third).toContain('layer2networkconfiguration.network.nodenet.io/vlan100 configured');
    expect(
      await ok('get', 'layer2', 'vlan100', '-o', 'jsonpath={.spec.vni} {.spec.mtu} {.metadata.generation}'),
    ).toBe('10101 1500 2');
  });

  it('shows the CRD printer columns in kubectl get (and -o wide)', async () => {
    const rows = table(await ok('get', 'layer2'));
    expect(rows[0]).toEqual(['NAME', 'VLAN', 'VNI', 'VRF', 'MTU', 'ACCEPTED', 'APPLIED', 'AGE']);
    expect(rows[1]?.slice(0, 5)).toEqual(['vlan100', '100', '10101', 'tenanta', '1500']);
    const wide = table(await ok('get', 'layer2', '-o', 'wide'));
    expect(wide[0]).toContain('GATEWAYS');
    const all = await ok('get', 'nodenet');
    expect(all).toContain('vrfrouteconfiguration.network.nodenet.io/tenant-a');
    expect(all).toContain('routingtable.network.nodenet.io/taas-5');
  });

  it('patches the status subresource and waits for a jsonpath condition', async () => {
    const status = {
      status: {
        conditions: [
          {
            type: 'Accepted',
            status: 'True',
            reason: 'Valid',
            message: 'ok',
            lastTransitionTime: '2025-01-01T00:00:00Z',
          },
        ],
      },
    };
    await ok(
      'patch',
      'layer2',
      'vlan100',
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify(status),
    );
    const waited = await ok(
      'wait',
      '--for=jsonpath={.status.conditions[?(@.type=="Accepted")].status}=True',
      'layer2/vlan100',
      '--timeout=10s',
    );
    expect(waited).toContain('condition met');
    expect(table(await ok('get', 'layer2', 'vlan100'))[1]?.[5]).toBe('True');
    // a spec change through /status is ignored
    await ok(
      'patch',
      'layer2',
      'vlan100',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"spec":{"vni":1}}',
    );
    expect(await ok('get', 'layer2', 'vlan100', '-o', 'jsonpath={.spec.vni}')).toBe('10101');
  });

  it('refuses an invalid object and names the field', async () => {
    const r = await kubectl('apply', '-f', path.join(SAMPLES, 'invalid-layer2.yaml'));
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toContain('The Layer2NetworkConfiguration "broken" is invalid');
    expect(r.stderr).toContain(
      'spec.vni: Invalid value: 0: spec.vni in body should be greater than or equal to 1',
    );
  });

  it('refuses objects breaking a CEL rule of the CRD (x-kubernetes-validations) and names the field', async () => {
    const apply = (yaml: string) =>
      execa(
        'kubectl',
        ['--kubeconfig', kubeconfig, '--cache-dir', path.join(tmp, 'cache'), 'apply', '-f', '-'],
        { input: yaml, reject: false, timeout: 30_000 },
      );
    const gatewaysNoMac = await apply(
      'apiVersion: network.nodenet.io/v1alpha1\nkind: Layer2NetworkConfiguration\nmetadata: {name: no-mac}\n' +
        'spec: {id: 300, vni: 30300, anycastGateways: [10.30.0.1/24]}\n',
    );
    expect(gatewaysNoMac.exitCode).not.toBe(0);
    expect(gatewaysNoMac.stderr).toContain('The Layer2NetworkConfiguration "no-mac" is invalid');
    expect(gatewaysNoMac.stderr).toContain(
      'spec.anycastMac: Required value: anycastMac is required when anycastGateways is set',
    );

    const leBelowGe = await apply(
      'apiVersion: network.nodenet.io/v1alpha1\nkind: VRFRouteConfiguration\nmetadata: {name: le-ge}\n' +
        'spec: {vrf: cel, vni: 900, seq: 10, import: [{cidr: 10.0.0.0/8, seq: 1, ge: 24, le: 16}]}\n',
    );
    expect(leBelowGe.exitCode).not.toBe(0);
    expect(leBelowGe.stderr).toContain('spec.import[0].le: Invalid value: "object": le must be at least ge');

    const v4Le = await apply(
      'apiVersion: network.nodenet.io/v1alpha1\nkind: VRFRouteConfiguration\nmetadata: {name: le-max}\n' +
        'spec: {vrf: cel, vni: 900, seq: 10, export: [{cidr: 10.0.0.0/8, seq: 1, le: 64}]}\n',
    );
    expect(v4Le.stderr).toContain(
      'spec.export[0].le: Invalid value: "object": le must be at most 32 for IPv4 and 128 for IPv6',
    );

    const table = await apply(
      'apiVersion: network.nodenet.io/v1alpha1\nkind: RoutingTable\nmetadata: {name: in-vrf-range}\nspec: {tableId: 1000}\n',
    );
    expect(table.stderr).toContain('spec.tableId: Invalid value: "object": tableId must be outside 100-4000');

    // Nothing refused was stored; a valid object with the same shapes is accepted.
    expect((await kubectl('get', 'layer2', 'no-mac')).exitCode).not.toBe(0);
    const good = await apply(
      'apiVersion: network.nodenet.io/v1alpha1\nkind: VRFRouteConfiguration\nmetadata: {name: le-ok}\n' +
        'spec: {vrf: cel, vni: 900, seq: 10, import: [{cidr: "::/0", seq: 1, ge: 44, le: 128}]}\n',
    );
    expect(good.stderr).toBe('');
    expect(good.exitCode).toBe(0);
  });

  it('refuses malformed prefixes, reserved VRF names and selector keys at apply time (CEL IP/CIDR library), naming the field', async () => {
    const apply = (yaml: string) =>
      execa(
        'kubectl',
        ['--kubeconfig', kubeconfig, '--cache-dir', path.join(tmp, 'cache'), 'apply', '-f', '-'],
        { input: `apiVersion: network.nodenet.io/v1alpha1\n${yaml}`, reject: false, timeout: 30_000 },
      );
    const refused = async (yaml: string, kindAndName: string, line: string): Promise<void> => {
      const r = await apply(yaml);
      expect(r.exitCode, r.stderr).not.toBe(0);
      expect(r.stderr).toContain(`The ${kindAndName} is invalid`);
      expect(r.stderr).toContain(line);
    };
    const notCidr = 'must be an IPv4 or IPv6 prefix in CIDR notation, e.g. 10.0.0.0/24 or 2001:db8::/64';
    await refused(
      'kind: Layer2NetworkConfiguration\nmetadata: {name: bad-gw}\n' +
        'spec: {id: 310, vni: 30310, anycastMac: "02:00:00:00:00:01", anycastGateways: [10.140.0.300/24]}\n',
      'Layer2NetworkConfiguration "bad-gw"',
      `spec.anycastGateways[0]: Invalid value: "string": ${notCidr}`,
    );
    await refused(
      'kind: VRFRouteConfiguration\nmetadata: {name: bad-import}\n' +
        'spec: {vrf: cel, vni: 900, seq: 10, import: [{cidr: 10.140.0.300/24, seq: 1}]}\n',
      'VRFRouteConfiguration "bad-import"',
      `spec.import[0].cidr: Invalid value: "string": ${notCidr}`,
    );
    await refused(
      'kind: VRFRouteConfiguration\nmetadata: {name: host-bits}\nspec: {vrf: cel, vni: 900, seq: 10, aggregate: [10.0.0.1/8]}\n',
      'VRFRouteConfiguration "host-bits"',
      'spec.aggregate[0]: Invalid value: "string": host bits must be clear: write the network address of the prefix',
    );
    await refused(
      'kind: VRFRouteConfiguration\nmetadata: {name: v4-in-v6}\nspec: {vrf: cel, vni: 900, seq: 10, aggregate: ["::1.2.3.0/120"]}\n',
      'VRFRouteConfiguration "v4-in-v6"',
      'spec.aggregate[0]: Invalid value: "string": an IPv6 address must not embed an IPv4 address in dotted form; write it in hex',
    );
    await refused(
      'kind: Layer2NetworkConfiguration\nmetadata: {name: gw-slash-1}\n' +
        'spec: {id: 311, vni: 30311, anycastMac: "02:00:00:00:00:01", anycastGateways: [10.10.0.1/1]}\n',
      'Layer2NetworkConfiguration "gw-slash-1"',
      'spec.anycastGateways[0]: Invalid value: "string": prefix length must be at least /8 for IPv4 and /48 for IPv6',
    );
    await refused(
      'kind: VRFRouteConfiguration\nmetadata: {name: proto}\nspec: {vrf: constructor, vni: 901, seq: 10}\n',
      'VRFRouteConfiguration "proto"',
      'spec.vrf: Invalid value: "string": must not be one of __proto__, constructor, toString, valueOf (reserved names)',
    );
    await refused(
      'kind: Layer2NetworkConfiguration\nmetadata: {name: bad-label}\n' +
        'spec: {id: 312, vni: 30312, nodeSelector: {matchExpressions: [{key: "rack!", operator: Exists}]}}\n',
      'Layer2NetworkConfiguration "bad-label"',
      'spec.nodeSelector.matchExpressions[0].key: Invalid value: "rack!": spec.nodeSelector.matchExpressions[0].key in body should match',
    );
    // Nothing refused was stored; the same fields with good values are accepted.
    expect((await kubectl('get', 'layer2', 'bad-gw')).exitCode).not.toBe(0);
    const good = await apply(
      'kind: Layer2NetworkConfiguration\nmetadata: {name: good-gw}\n' +
        'spec: {id: 313, vni: 30313, anycastMac: "02:00:00:00:00:01", anycastGateways: [10.140.0.1/24, "2001:db8:140::1/64"],' +
        ' nodeSelector: {matchLabels: {"example.com/role": worker}}}\n',
    );
    // Accepted; only warned about: no node carries the label its selector names (selector-warnings.ts).
    expect(good.stderr).toMatch(
      /^Warning: Layer2NetworkConfiguration good-gw: nodeSelector example\.com\/role=worker matches none of the \d+ node\(s\)$/,
    );
    expect(good.exitCode).toBe(0);
    await ok('delete', 'layer2', 'good-gw');
  });

  it('explains nodenet fields from the CRD schemas (OpenAPI v3), with their descriptions', async () => {
    const out = await ok('explain', 'layer2networkconfiguration.spec.vni');
    expect(out).toContain('KIND:       Layer2NetworkConfiguration');
    expect(out).toMatch(/FIELD: vni <integer>/);
    expect(out).toContain('L2 VNI.');
    const spec = await ok('explain', 'vrfrouteconfiguration.spec');
    expect(spec).toContain('routeTarget\t<string>');
  });

  it('applies a kind: List and the output of kubectl get -o yaml (client-side validation against OpenAPI v2)', async () => {
    const list = [
      'apiVersion: v1',
      'kind: List',
      'items:',
      '- apiVersion: network.nodenet.io/v1alpha1',
      '  kind: RoutingTable',
      '  metadata: {name: listed-table}',
      '  spec: {tableId: 4100}',
      '- apiVersion: v1',
      '  kind: ConfigMap',
      '  metadata: {name: listed-cm, namespace: default}',
      '  data: {a: b}',
      '',
    ].join('\n');
    const apply = (input: string) =>
      execa(
        'kubectl',
        ['--kubeconfig', kubeconfig, '--cache-dir', path.join(tmp, 'cache'), 'apply', '-f', '-'],
        {
          input,
          reject: false,
          timeout: 30_000,
        },
      );
    const first = await apply(list);
    expect(first.stderr).toBe('');
    expect(first.stdout).toContain('routingtable.network.nodenet.io/listed-table created');
    expect(first.stdout).toContain('configmap/listed-cm created');

    const dumped = await ok('get', 'taas,cm', '-A', '-o', 'yaml');
    expect(dumped).toContain('kind: List');
    const again = await apply(dumped);
    expect(again.stderr).toBe('');
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toContain('routingtable.network.nodenet.io/listed-table');

    // Client-side validation uses the served schema: the field and the type are named before anything is sent.
    const bad = await apply(list.replace('spec: {tableId: 4100}', 'spec: {tableId: "x", bogus: 1}'));
    expect(bad.exitCode).not.toBe(0);
    expect(bad.stderr).toContain('unknown field "bogus" in io.nodenet.network.v1alpha1.RoutingTable.spec');
    expect(bad.stderr).toContain(
      'invalid type for io.nodenet.network.v1alpha1.RoutingTable.spec.tableId: got "string", expected "integer"',
    );
  });

  it('cascades deletion to dependents (owner references)', async () => {
    const nodeFile = path.join(tmp, 'node.yaml');
    fs.writeFileSync(
      nodeFile,
      'apiVersion: v1\nkind: Node\nmetadata:\n  name: worker-1\n  labels: {kubernetes.io/hostname: worker-1}\n',
    );
    await ok('apply', '-f', nodeFile);
    expect(await ok('describe', 'node', 'worker-1')).toMatch(/Name:\s+worker-1/); // lists pods and events too
    const uid = await ok('get', 'node', 'worker-1', '-o', 'jsonpath={.metadata.uid}');
    const cmFile = path.join(tmp, 'dep.yaml');
    fs.writeFileSync(
      cmFile,
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: worker-1-dep\n  namespace: default\n  ownerReferences:\n  - {apiVersion: v1, kind: Node, name: worker-1, uid: ${uid}}\ndata: {a: b}\n`,
    );
    await ok('apply', '-f', cmFile);
    expect(await ok('get', 'cm', 'worker-1-dep', '-o', 'name')).toBe('configmap/worker-1-dep');
    await ok('delete', 'node', 'worker-1');
    await ok('wait', '--for=delete', 'configmap/worker-1-dep', '--timeout=10s');
    const gone = await kubectl('get', 'cm', 'worker-1-dep');
    expect(gone.stderr).toContain('NotFound');
  });

  it('creates built-in objects with kubectl create (protobuf request bodies) and labels them', async () => {
    expect(await ok('create', 'namespace', 'nodenet-demo')).toContain('namespace/nodenet-demo created');
    await ok('create', 'configmap', 'cfg', '-n', 'nodenet-demo', '--from-literal=a=1', '--from-literal=b=2');
    await ok('create', 'secret', 'generic', 'sec', '-n', 'nodenet-demo', '--from-literal=token=s3cr3t');
    await ok('create', 'serviceaccount', 'robot', '-n', 'nodenet-demo');
    expect(await ok('get', 'configmap', 'cfg', '-n', 'nodenet-demo', '-o', 'jsonpath={.data}')).toBe(
      '{"a":"1","b":"2"}',
    );
    const secret = await ok('get', 'secret', 'sec', '-n', 'nodenet-demo', '-o', 'jsonpath={.data.token}');
    expect(Buffer.from(secret, 'base64').toString()).toBe('s3cr3t');
    const cms = table(await ok('get', 'configmaps', '-n', 'nodenet-demo'));
    expect(cms[0]).toEqual(['NAME', 'DATA', 'AGE']);
    expect(cms[1]?.slice(0, 2)).toEqual(['cfg', '2']);
    await ok('label', 'namespace', 'nodenet-demo', 'team=net');
    expect(await ok('get', 'ns', '-l', 'team=net', '-o', 'name')).toBe('namespace/nodenet-demo');
    await ok('delete', 'namespace', 'nodenet-demo', '--wait=true', '--timeout=10s');
    expect((await kubectl('get', 'configmap', 'cfg', '-n', 'nodenet-demo')).stderr).toContain('NotFound');
  });

  it('streams changes with get -w', async () => {
    const watch = execa(
      'kubectl',
      ['--kubeconfig', kubeconfig, '--cache-dir', path.join(tmp, 'cache'), 'get', 'layer2', '-w'],
      { reject: false },
    );
    let out = '';
    const seen = (s: string) =>
      new Promise<void>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`timed out waiting for ${s}; got:\n${out}`)), 15_000);
        const check = () => {
          if (out.includes(s)) {
            clearTimeout(t);
            resolve();
          }
        };
        watch.stdout?.on('data', (d: Buffer) => {
          out += d.toString();
          check();
        });
        check();
      });
    await seen('vlan100');
    await ok('patch', 'layer2', 'vlan100', '--type=merge', '-p', '{"spec":{"vni":777}}');
    await seen('777');
    const f = path.join(tmp, 'l2b.yaml');
    fs.writeFileSync(
      f,
      'apiVersion: network.nodenet.io/v1alpha1\nkind: Layer2NetworkConfiguration\nmetadata: {name: vlan300}\nspec: {id: 300, vni: 30300}\n',
    );
    await ok('apply', '-f', f);
    await seen('vlan300');
    watch.kill('SIGTERM');
    await watch;
    const lines = out.trim().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+VLAN\s+VNI/);
    expect(lines.some((l) => /^vlan100\s+100\s+777\s/.test(l))).toBe(true);
  });

  it('describes a custom resource with its events and deletes with kubectl delete -f', async () => {
    const uid = await ok('get', 'layer2', 'vlan100', '-o', 'jsonpath={.metadata.uid}');
    const ev = path.join(tmp, 'event.yaml');
    fs.writeFileSync(
      ev,
      [
        'apiVersion: events.k8s.io/v1',
        'kind: Event',
        'metadata: {name: vlan100.accepted, namespace: default}',
        'eventTime: "2025-01-01T00:00:00.000000Z"',
        'reportingController: nodenet.io/configurator',
        'reportingInstance: configurator-0',
        'action: Validate',
        'reason: InputAccepted',
        'type: Normal',
        'note: accepted into revision 3',
        `regarding: {apiVersion: network.nodenet.io/v1alpha1, kind: Layer2NetworkConfiguration, name: vlan100, uid: ${uid}}`,
        '',
      ].join('\n'),
    );
    await ok('apply', '-f', ev);
    const d = await ok('describe', 'layer2', 'vlan100');
    expect(d).toMatch(/Name:\s+vlan100/);
    expect(d).toMatch(/Kind:\s+Layer2NetworkConfiguration/);
    expect(d).toMatch(/Normal\s+InputAccepted\s+.*accepted into revision 3/);
    const events = table(await ok('get', 'events'));
    expect(events[0]).toEqual(['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
    expect(events[1]?.slice(1)).toEqual([
      'Normal',
      'InputAccepted',
      'layer2networkconfiguration/vlan100',
      'accepted into revision 3',
    ]);
    const del = await ok('delete', '-f', path.join(SAMPLES, 'inputs.yaml'));
    expect(del).toContain('layer2networkconfiguration.network.nodenet.io "vlan100" deleted');
    expect((await ok('get', 'layer2', '-o', 'name')).trim()).toBe(
      'layer2networkconfiguration.network.nodenet.io/vlan300',
    );
  });
});
