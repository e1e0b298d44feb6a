/**
 * devcluster through a second, independent client: Debian's python3-kubernetes (22.6) runs
 * conformance.py against a devcluster with nodenet's CRDs. Installed by .ci/run; outside CI the
 * suite skips, saying why, when the module is missing.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startDevCluster, type DevCluster } from '@nodenet/devcluster';
import { describePrivileged } from '../support/privileged.js';

const PYTHON = '/usr/bin/python3';
const hasClient = (() => {
  try {
    execFileSync(PYTHON, ['-c', 'import kubernetes'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const CHECKS = [
  'custom_resource_crud',
  'core_kinds_crud',
  'status_subresource',
  'conflict_on_stale_update',
  'invalid_names_the_field',
  'label_selectors',
  'list_then_watch_in_order',
  'gone_then_relist',
];

describePrivileged(
  'devcluster through python3-kubernetes',
  {
    files: hasClient
      ? [PYTHON]
      : ['/usr/lib/python3/dist-packages/kubernetes (apt-get install python3-kubernetes)'],
  },
  () => {
    let dc: DevCluster;
    const dir = mkdtempSync(join(tmpdir(), 'nodenet-py-'));
    const kubeconfig = join(dir, 'kubeconfig');

    beforeAll(async () => {
      dc = await startDevCluster({
        port: 0,
        kubeconfigPath: kubeconfig,
        crdsDir: fileURLToPath(new URL('../../crds', import.meta.url)),
        historyLimit: 20,
      });
    });
    afterAll(async () => {
      await dc?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('passes every conformance check', async () => {
      const r = await execa(PYTHON, [fileURLToPath(new URL('conformance.py', import.meta.url))], {
        env: { KUBECONFIG: kubeconfig },
        reject: false,
        timeout: 120_000,
      });
      const lines = r.stdout.split('\n').filter((l) => /^(PASS|FAIL) /.test(l));
      expect(lines, r.stderr).toEqual(CHECKS.map((c) => `PASS ${c}`));
      expect(r.exitCode).toBe(0);
    });
  },
);
