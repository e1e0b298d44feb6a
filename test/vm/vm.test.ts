import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describePrivileged } from '../support/privileged.js';
import { runInVm, vmPrerequisites } from '@nodenet/testkit';

describePrivileged('real-kernel VM harness', vmPrerequisites(), () => {
  it('runs a script under the full kernel and returns its exit code and output, as it comes, and a folder it wrote', async () => {
    const out = mkdtempSync(join(tmpdir(), 'nodenet-vm-copy-'));
    const chunks: string[] = [];
    try {
      const r = await runInVm({
        script:
          'ip link add vr.vmt type vrf table 10 && ip -j -d link show vr.vmt && echo "cwd=$(pwd)"; ' +
          'mkdir -p /tmp/job/keep && echo kept > /tmp/job/keep/file; exit 7',
        timeoutMs: 120_000,
        onOutput: (c) => chunks.push(c),
        copyOut: { from: '/tmp/job/keep', to: join(out, 'keep') },
      });
      expect(r.exitCode, r.output + r.console).toBe(7);
      // VRF devices are exactly what the host kernel lacks: their creation proves the guest kernel ran it.
      expect(r.output).toContain('"info_kind":"vrf"');
      expect(r.output).toContain(`cwd=${process.cwd()}`);
      // What `npm start -- --vm` relies on (demo/vm.ts): the output followed, the logs copied out.
      expect(chunks.join('')).toBe(r.output);
      expect(readFileSync(join(out, 'keep', 'file'), 'utf8')).toBe('kept\n');
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 150_000);
});
