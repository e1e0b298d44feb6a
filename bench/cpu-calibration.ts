/**
 * A fixed piece of CPU-bound work (sha256 over 64 MiB), timed: bench/frr-vm.ts runs it on the host
 * and inside the VM, and the ratio is how much slower the emulated CPU is. Figures measured in the
 * VM are divided by it to estimate what the same work costs on the host's CPU.
 */
import { createHash } from 'node:crypto';

export function calibrationMs(): number {
  const block = Buffer.alloc(1 << 20, 7);
  const t0 = performance.now();
  const h = createHash('sha256');
  for (let i = 0; i < 64; i++) h.update(block);
  h.digest();
  return performance.now() - t0;
}
