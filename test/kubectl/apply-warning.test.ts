/**
 * A node selector that matches no node is warned about at apply time (issue 27, item 6): devcluster
 * answers the write with an admission warning (`Warning: 299 - "…"`, as kube-apiserver relays a
 * webhook's), which the real kubectl prints on stderr; the object is stored all the same. Once a node
 * matches, the same apply is silent.
 */
import { fileURLToPath } from 'node:url';
import { startDevCluster, type DevCluster } from '@nodenet/devcluster';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const CRDS_DIR = fileURLToPath(new URL('../../crds/', import.meta.url));
let dc: DevCluster;
beforeEach(async () => {
  dc = await startDevCluster({ crdsDir: CRDS_DIR });
});
afterEach(async () => dc.stop());

const apply = (yaml: string) =>
  execa('kubectl', ['--kubeconfig', dc.kubeconfigPath, 'apply', '-f', '-'], {
    input: yaml,
    reject: false,
    timeout: 30_000,
  });

const node = (name: string, rack: string): string =>
  `apiVersion: v1\nkind: Node\nmetadata: {name: ${name}, labels: {rack: ${rack}}}\n`;
const typo = (mtu: number): string =>
  'apiVersion: network.nodenet.io/v1alpha1\nkind: Layer2NetworkConfiguration\nmetadata: {name: storage}\n' +
  `spec: {id: 101, vni: 20101, mtu: ${mtu}, nodeSelector: {matchLabels: {rack: r9}}}\n`;

describe('kubectl apply of a selector that matches no node', () => {
  it('prints a Warning naming the object and the selector, stores it, and is silent once a node matches', async () => {
    expect((await apply(node('node-1', 'r1') + '---\n' + node('node-2', 'r2'))).exitCode).toBe(0);
    let r = await apply(typo(1500));
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('layer2networkconfiguration.network.nodenet.io/storage created');
    expect(r.stderr).toBe(
      'Warning: Layer2NetworkConfiguration storage: nodeSelector rack=r9 matches none of the 2 node(s)',
    );
    // An update (kubectl apply's patch) is warned about too.
    r = await apply(typo(9000));
    expect(r.stdout).toBe('layer2networkconfiguration.network.nodenet.io/storage configured');
    expect(r.stderr).toContain('Warning: Layer2NetworkConfiguration storage: nodeSelector rack=r9');

    expect((await apply(node('node-3', 'r9'))).exitCode).toBe(0);
    r = await apply(typo(1500));
    expect(r.stdout).toBe('layer2networkconfiguration.network.nodenet.io/storage configured');
    expect(r.stderr).toBe('');
  });
});

// Issue 38: a reused VLAN or overlapping gateways were stored with no word; the configurator then
// refuses the object (Accepted=False) and only `status` says so.
describe('kubectl apply of an object that clashes with one stored', () => {
  const l2 = (name: string, id: number, gateway: string): string =>
    'apiVersion: network.nodenet.io/v1alpha1\nkind: Layer2NetworkConfiguration\n' +
    `metadata: {name: ${name}}\nspec: {id: ${id}, vni: ${20000 + id}, anycastMac: '02:00:00:00:00:01', anycastGateways: [${gateway}]}\n`;

  it('warns about a reused VLAN and overlapping gateways, naming the holder; stores it; the holder is not warned', async () => {
    expect((await apply(l2('web', 100, '10.100.0.1/24'))).stderr).toBe('');
    let r = await apply(l2('web-copy', 100, '10.101.0.1/24'));
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('layer2networkconfiguration.network.nodenet.io/web-copy created');
    expect(r.stderr).toMatch(
      /^Warning: Layer2NetworkConfiguration web-copy: spec\.id: is already used by Layer2NetworkConfiguration web .*\(the configurator refuses it and keeps what is in force\)$/m,
    );
    r = await apply(l2('overlap', 102, '10.100.0.129/25'));
    expect(r.stderr).toMatch(
      /^Warning: Layer2NetworkConfiguration overlap: .*overlaps 10\.100\.0\.0\/24 of Layer2NetworkConfiguration web in the default VRF/m,
    );
    // The object that holds the claim is applied again: nothing to warn about.
    expect((await apply(l2('web', 100, '10.100.0.1/24'))).stderr).toBe('');
  });
});
