/**
 * The demo creates its objects as `kubectl apply` would (with the last-applied-configuration
 * annotation), so a newcomer's `kubectl apply -f examples/…` of the same file patches them quietly
 * (issue 38: it printed kubectl's "missing the kubectl.kubernetes.io/last-applied-configuration"
 * warning). devcluster and the real kubectl.
 */
import { fileURLToPath } from 'node:url';
import { startDevCluster, type DevCluster } from '@nodenet/devcluster';
import { KubeClient, loadKubeConfig, makeClients } from '@nodenet/kube';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyFile } from '../../demo/resources.js';

const example = (f: string): string => fileURLToPath(new URL(`../../examples/${f}`, import.meta.url));
let dc: DevCluster;
beforeEach(async () => {
  dc = await startDevCluster({ crdsDir: fileURLToPath(new URL('../../crds/', import.meta.url)) });
});
afterEach(async () => dc.stop());

describe('objects the demo creates', () => {
  it('take a later kubectl apply of the same file without a warning', async () => {
    const client = new KubeClient(loadKubeConfig(dc.kubeconfigPath));
    try {
      const clients = makeClients(client);
      await applyFile(clients, example('nodes.yaml'));
      await applyFile(clients, example('layer2-networks.yaml'));
    } finally {
      client.close();
    }
    for (const file of ['nodes.yaml', 'layer2-networks.yaml']) {
      const r = await execa('kubectl', ['--kubeconfig', dc.kubeconfigPath, 'apply', '-f', example(file)], {
        reject: false,
        timeout: 30_000,
      });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
    }
  });
});
