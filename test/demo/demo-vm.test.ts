/**
 * `npm start -- --vm` (demo/vm.ts): what it decides to run, or why it cannot, from what the machine
 * offers. The boot itself, the followed output and the copied logs are test/vm/vm.test.ts's (runInVm);
 * a whole story in the VM takes many minutes under emulation and is not run in CI.
 */
import { describe, expect, it } from 'vitest';
import { decideVm } from '../../demo/vm.js';

describe('npm start -- --vm decides what to run in the VM', () => {
  it('with root, qemu, busybox and a kernel: the story once, real agents, logs to the job share, said before it starts', () => {
    const plan = decideVm({ root: true, missing: [], kernel: '/boot/vmlinuz-6.1.0-56-amd64' });
    expect(plan.ok).toBe(true);
    if (!plan.ok) return;
    expect(plan.kernel).toBe('/boot/vmlinuz-6.1.0-56-amd64');
    expect(plan.command).toEqual([
      'node',
      '--import',
      'tsx',
      'demo/main.ts',
      '--agents',
      'real',
      '--once',
      '--in-vm',
      plan.guestLogs,
    ]);
    expect(plan.guestLogs.startsWith('/tmp/job/')).toBe(true);
    const said = plan.explain.join('\n');
    expect(said).toContain('/boot/vmlinuz-6.1.0-56-amd64 under QEMU');
    expect(said).toContain('VRF');
    expect(said).toMatch(/Ctrl-C stops the VM/);
  });

  it('without what it needs: one reason naming each missing part and the packages', () => {
    const plan = decideVm({ root: false, missing: ['qemu-system-x86_64', '/usr/bin/busybox'] });
    expect(plan).toEqual({
      ok: false,
      why: expect.stringMatching(
        /^--vm needs root privileges, qemu-system-x86_64, \/usr\/bin\/busybox \(packages qemu-system-x86, busybox-static, linux-image-amd64/,
      ),
    });
    expect(decideVm({ root: true, missing: [] })).toEqual({
      ok: false,
      why: expect.stringContaining('--vm needs a kernel image in /boot'),
    });
  });
});
