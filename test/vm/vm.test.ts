import { expect, it } from 'vitest';
import { describePrivileged } from '../support/privileged.js';
import { runInVm, vmPrerequisites } from '@nodenet/testkit';

describePrivileged('real-kernel VM harness', vmPrerequisites(), () => {
  it('runs a script under the full kernel and returns its exit code and output', async () => {
    const r = await runInVm({
      script:
        'ip link add vr.vmt type vrf table 10 && ip -j -d link show vr.vmt && echo "cwd=$(pwd)"; exit 7',
      timeoutMs: 120_000,
    });
    expect(r.exitCode, r.output + r.console).toBe(7);
    // VRF devices are exactly what the host kernel lacks: their creation proves the guest kernel ran it.
    expect(r.output).toContain('"info_kind":"vrf"');
    expect(r.output).toContain(`cwd=${process.cwd()}`);
  }, 150_000);
});
