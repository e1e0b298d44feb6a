/**
 * `npm start -- --vm`: the demo inside a throw-away QEMU guest booted from Debian's kernel
 * (@nodenet/testkit runInVm), for machines whose own kernel has no VRF: inside, VRF, VLAN and dummy
 * devices work, so the agents' VRF paths do too. The guest sees this machine's root read-only (node,
 * FRR and this checkout are all there) and plays the story once with real agents; its output is
 * shown as it comes and its logs are copied to demo-logs/ at the end. The guest has no network to
 * this machine, so there is no "look around" phase: the story plays and the guest powers off.
 *
 * decideVm is pure (what to run, or why not); runDemoInVm does it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { findKernel, runInVm, vmPrerequisites } from '@nodenet/testkit';

/** What the machine offers for a VM (vmFacts reads it). */
export interface VmFacts {
  root: boolean;
  /** Commands and files the VM needs that are not here (qemu, busybox, a kernel and its modules). */
  missing: string[];
  kernel?: string;
}

export type VmPlan =
  | { ok: false; why: string }
  | {
      ok: true;
      kernel: string;
      /** The guest's command: the demo, once, real agents, logs to the job share. */
      command: string[];
      /** Where the guest writes its logs (the writable job share) and where they are copied. */
      guestLogs: string;
      memoryMiB: number;
      timeoutMs: number;
      /** What it does, said before it starts. */
      explain: string[];
    };

/** Guest memory: devcluster, the configurator, 4 agents and 8 FRR daemons. */
const VM_MEMORY_MIB = 3072;
/** Emulation runs code several times slower: the whole story gets this long before the guest is stopped. */
const VM_TIMEOUT_MS = 45 * 60_000;
const GUEST_LOGS = '/tmp/job/logs';

export function vmFacts(): VmFacts {
  const need = vmPrerequisites();
  const onPath = (cmd: string): boolean =>
    (process.env.PATH ?? '').split(':').some((d) => d !== '' && existsSync(join(d, cmd)));
  const missing = [...need.commands.filter((c) => !onPath(c)), ...need.files.filter((f) => !existsSync(f))];
  const kernel = findKernel();
  return { root: process.getuid?.() === 0, missing, ...(kernel ? { kernel } : {}) };
}

/** What `--vm` runs on a machine with `facts`, or why it cannot. */
export function decideVm(facts: VmFacts): VmPlan {
  const lacks = [...(facts.root ? [] : ['root privileges']), ...facts.missing];
  if (lacks.length > 0 || facts.kernel === undefined)
    return {
      ok: false,
      why: `--vm needs ${lacks.length ? lacks.join(', ') : 'a kernel image in /boot'} (packages qemu-system-x86, busybox-static, linux-image-amd64; see test/vm/README.md)`,
    };
  return {
    ok: true,
    kernel: facts.kernel,
    command: ['node', '--import', 'tsx', 'demo/main.ts', '--agents', 'real', '--once', '--in-vm', GUEST_LOGS],
    guestLogs: GUEST_LOGS,
    memoryMiB: VM_MEMORY_MIB,
    timeoutMs: VM_TIMEOUT_MS,
    explain: [
      `vm: booting ${facts.kernel} under QEMU (software emulation) with this machine's files read-only;`,
      '  inside it the kernel has VRF, so the agents, FRR and every VRF path are real. The story plays',
      '  once with real agents (slow under emulation: several minutes), then the VM powers off. Its',
      '  output follows; its logs are copied to demo-logs/ at the end. No kubectl from here: the VM has',
      '  no network to this machine. Ctrl-C stops the VM at once (nothing of it is left on this machine).',
    ],
  };
}

/** Runs the planned guest; 0 when the story's every step happened in it. */
export async function runDemoInVm(
  plan: Extract<VmPlan, { ok: true }>,
  opts: { repo: string; logDir: string; log: (line: string) => void; signal: AbortSignal },
): Promise<number> {
  for (const l of plan.explain) opts.log(l);
  const r = await runInVm({
    command: plan.command,
    cwd: opts.repo,
    kernel: plan.kernel,
    memoryMiB: plan.memoryMiB,
    timeoutMs: plan.timeoutMs,
    copyOut: { from: plan.guestLogs, to: opts.logDir },
    // Whole lines come (runInVm): each marked as the guest's.
    onOutput: (chunk) => void process.stdout.write(chunk.replace(/^(?=.)/gm, 'vm│ ')),
    signal: opts.signal,
  });
  const took = `${Math.round(r.durationMs / 1000)} s`;
  if (r.timedOut) opts.log(`vm: stopped after ${took} (limit ${plan.timeoutMs / 60_000} min)`);
  else if (r.exitCode === null)
    opts.log(
      `vm: the guest ended without an exit code after ${took}; its console:\n${r.console.slice(-2000)}`,
    );
  else opts.log(`vm: the demo in the VM exited ${r.exitCode} after ${took}`);
  return r.exitCode ?? 1;
}
