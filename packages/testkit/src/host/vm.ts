/**
 * Real-kernel VM harness: runs a command inside a throw-away QEMU guest booted from the machine's
 * Debian kernel (`/boot/vmlinuz-*`), with the host's root file system shared read-only over 9p, so
 * node, iproute2, FRR and this checkout are all present inside. The build machines' own kernel lacks
 * VRF, 802.1Q VLAN and dummy devices; the guest kernel has them (see shared/notes/real-kernel-vm.md).
 *
 * Inside the guest: `/tmp` and `/run` are fresh tmpfs (the root is read-only; a working directory under
 * the host's /tmp, such as a CI checkout, is bind-mounted back at its own path), the job directory is
 * writable at `/tmp/job`, the working directory is the caller's, PATH is the caller's, and the
 * modules named in `modules` (default: vrf, 8021q, dummy, veth, vxlan, bridge, macvlan) are loaded.
 *
 * Usage from a test (gate it with describePrivileged and `vmPrerequisites()`):
 *   const r = await runInVm({ command: ['node', 'dist/check.js'], timeoutMs: 120_000 });
 *   expect(r.exitCode, r.output).toBe(0);
 * or with a shell script: `runInVm({ script: 'ip link add v type vrf table 10 && ip -j link' })`.
 *
 * Software emulation (TCG) is used on purpose: KVM guests hang at boot on these machines. Expect
 * ~10–20 s to boot and code to run several times slower than on the host; keep in-VM work small.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface VmOptions {
  /** Shell script (sh) to run in the guest. Exactly one of `script` and `command` is required. */
  script?: string;
  /** argv to run in the guest (no shell). */
  command?: string[];
  /** Working directory inside the guest (default: the caller's cwd; the host tree is visible read-only). */
  cwd?: string;
  /** Extra environment variables for the guest command. */
  env?: Record<string, string>;
  /** Kill the guest after this long (default 180 s). */
  timeoutMs?: number;
  /** Kernel modules to load before the command (modprobe names). */
  modules?: string[];
  /** Guest memory in MiB (default 1024). */
  memoryMiB?: number;
  /** Kernel to boot (default: newest /boot/vmlinuz-*). */
  kernel?: string;
  /** Called with the command's output as it grows (read from the job share twice a second). */
  onOutput?: (chunk: string) => void;
  /** A file or folder the guest wrote under /tmp/job (`from`, its guest path), copied to `to` on this machine at the end. */
  copyOut?: { from: string; to: string };
  /** Aborting it powers the guest off at once (QEMU killed): the result says timedOut false, exitCode null. */
  signal?: AbortSignal;
}

export interface VmResult {
  /** Exit code of the command, or null when it never finished (timeout, guest crash). */
  exitCode: number | null;
  /** Combined stdout and stderr of the command. */
  output: string;
  /** Serial console of the guest (kernel messages, init errors): for diagnosing a failed boot. */
  console: string;
  timedOut: boolean;
  durationMs: number;
}

export const DEFAULT_VM_MODULES = ['vrf', '8021q', 'dummy', 'veth', 'vxlan', 'bridge', 'macvlan'];

/** Modules the initramfs loads (in this order) to reach the 9p root. */
const BOOT_MODULES = [
  'virtio_ring',
  'virtio',
  'virtio_pci_legacy_dev',
  'virtio_pci_modern_dev',
  'virtio_pci',
  'netfs',
  'fscache',
  '9pnet',
  '9pnet_virtio',
  '9p',
];

const QEMU = 'qemu-system-x86_64';
const BUSYBOX = '/usr/bin/busybox';

/** The newest Debian kernel image under /boot, or undefined. */
export function findKernel(): string | undefined {
  if (!existsSync('/boot')) return undefined;
  const images = readdirSync('/boot')
    .filter((f) => /^vmlinuz-\d/.test(f))
    .sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
  const last = images.at(-1);
  return last ? join('/boot', last) : undefined;
}

/** Prerequisites for describePrivileged: root, qemu, busybox (static) and a kernel with its modules. */
export function vmPrerequisites(): { root: true; commands: string[]; files: string[] } {
  const kernel = findKernel();
  const files = [BUSYBOX, kernel ?? '/boot/vmlinuz-<version> (package linux-image-amd64)'];
  if (kernel) files.push(join('/lib/modules', kernelVersion(kernel), 'modules.dep'));
  return { root: true, commands: [QEMU], files };
}

function kernelVersion(kernel: string): string {
  return kernel.replace(/^.*vmlinuz-/, '');
}

/** Absolute paths of the boot modules, looked up in modules.dep (exact basename). */
function bootModulePaths(version: string): string[] {
  const base = join('/lib/modules', version);
  const dep = readFileSync(join(base, 'modules.dep'), 'utf8');
  const byName = new Map<string, string>();
  for (const line of dep.split('\n')) {
    const file = line.split(':')[0];
    if (!file) continue;
    const name = file.replace(/^.*\//, '').replace(/\.ko(\.[a-z]+)?$/, '');
    byName.set(name.replace(/-/g, '_'), join(base, file));
  }
  const builtin = new Set(
    readFileSync(join(base, 'modules.builtin'), 'utf8')
      .split('\n')
      .map((l) => l.replace(/^.*\//, '').replace(/\.ko$/, '').replace(/-/g, '_')),
  );
  const paths: string[] = [];
  for (const m of BOOT_MODULES) {
    const path = byName.get(m);
    if (path) {
      if (!path.endsWith('.ko'))
        throw new Error(`vm: module ${m} is compressed (${path}); busybox insmod needs .ko`);
      paths.push(path);
    } else if (!builtin.has(m)) {
      throw new Error(`vm: module ${m} not found for kernel ${version}`);
    }
  }
  return paths;
}

// ------------------------------------------------------------------ initramfs (cpio newc, written here)

interface CpioEntry {
  name: string;
  mode: number;
  data?: Buffer;
}

/** A minimal "newc" cpio archive: the kernel unpacks it uncompressed, so no gzip/cpio tools needed. */
function cpio(entries: CpioEntry[]): Buffer {
  const parts: Buffer[] = [];
  const pad4 = (n: number): Buffer => Buffer.alloc((4 - (n % 4)) % 4);
  let ino = 1;
  const push = (name: string, mode: number, data: Buffer): void => {
    const nameBuf = Buffer.from(`${name}\0`);
    const hex = (v: number): string => v.toString(16).padStart(8, '0');
    const header =
      '070701' + [ino++, mode, 0, 0, 1, 0, data.length, 0, 0, 0, 0, nameBuf.length, 0].map(hex).join('');
    parts.push(Buffer.from(header), nameBuf, pad4(110 + nameBuf.length), data, pad4(data.length));
  };
  for (const e of entries) push(e.name, e.mode, e.data ?? Buffer.alloc(0));
  push('TRAILER!!!', 0, Buffer.alloc(0));
  return Buffer.concat(parts);
}

const DIR = 0o040755;
const FILE = 0o100755;

function initScript(modules: string[]): string {
  return `#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in ${modules.map((m) => `/modules/${m.replace(/^.*\//, '')}`).join(' ')}; do insmod "$m" || echo "vm-init: insmod $m failed"; done
fail() { echo "vm-init: $*"; echo o > /proc/sysrq-trigger; sleep 5; }
# cache=loose: the root is read-only here, and without a cache every stat goes to the host; node
# resolving a module tree (hundreds of files) spends most of its time there under emulation.
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose hostroot /newroot || fail "mount hostroot"
# The host's /tmp stays reachable at /mnt (read-only): a checkout under /tmp is exposed at its own path below.
mount -o bind /newroot/tmp /newroot/mnt || fail "bind host /tmp"
mount -t tmpfs tmpfs /newroot/tmp || fail "tmpfs /tmp"
mount -t tmpfs tmpfs /newroot/run || fail "tmpfs /run"
mkdir -p /newroot/tmp/job
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 job /newroot/tmp/job || fail "mount job"
mount -o move /proc /newroot/proc
mount -o move /sys /newroot/sys
mount -o move /dev /newroot/dev
exec switch_root /newroot /bin/sh /tmp/job/stage2.sh
`;
}

const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

function stage2Script(opts: {
  cwd: string;
  env: Record<string, string>;
  modules: string[];
  runLine: string;
}): string {
  const exports = Object.entries(opts.env)
    .map(([k, v]) => {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k))
        throw new Error(`vm: invalid environment variable name ${JSON.stringify(k)}`);
      return `export ${k}=${shellQuote(v)}`;
    })
    .join('\n');
  return `#!/bin/sh
# PID 1 of the guest after switch_root: prepare, run the job, record its exit code, power off.
mkdir -p /dev/pts /dev/shm 2>/dev/null
mount -t devpts devpts /dev/pts 2>/dev/null
mount -t tmpfs tmpfs /dev/shm 2>/dev/null
${exports}
export HOME=/tmp
ip link set lo up
for m in ${opts.modules.map(shellQuote).join(' ')}; do modprobe "$m" >/dev/null 2>&1 || echo "vm: modprobe $m failed" >> /tmp/job/output; done
case ${shellQuote(opts.cwd)} in
  /tmp/job|/tmp/job/*) ;;
  /tmp/*) d=${shellQuote(opts.cwd)}; mkdir -p "$d" && mount --bind "/mnt/\${d#/tmp/}" "$d" || echo "vm: cannot expose $d" >> /tmp/job/output ;;
esac
cd ${shellQuote(opts.cwd)} || echo "vm: cannot cd to ${opts.cwd.replace(/[^\w./-]/g, '?')}" >> /tmp/job/output
${opts.runLine} >> /tmp/job/output 2>&1 < /dev/null
echo $? > /tmp/job/exit.tmp && mv /tmp/job/exit.tmp /tmp/job/exit
sync
echo o > /proc/sysrq-trigger
sleep 10
`;
}

/** The initramfs: busybox, the first-stage init and the kernel modules the guest boots with. */
function writeInitrd(job: string, version: string): string {
  const modulePaths = bootModulePaths(version);
  const entries: CpioEntry[] = ['bin', 'proc', 'sys', 'dev', 'newroot', 'modules'].map((d) => ({
    name: d,
    mode: DIR,
  }));
  entries.push({ name: 'bin/busybox', mode: FILE, data: readFileSync(BUSYBOX) });
  entries.push({ name: 'init', mode: FILE, data: Buffer.from(initScript(modulePaths)) });
  for (const p of modulePaths)
    entries.push({ name: `modules/${p.replace(/^.*\//, '')}`, mode: 0o100644, data: readFileSync(p) });
  const initrd = join(job, 'initramfs.cpio');
  writeFileSync(initrd, cpio(entries));
  return initrd;
}

/** QEMU's command line: software emulation, the host's root read-only and the job folder over 9p. */
function qemuArgs(vm: { kernel: string; initrd: string; job: string; memoryMiB: number }): string[] {
  const { kernel, initrd, job } = vm;
  return [
    '-accel',
    'tcg',
    '-m',
    String(vm.memoryMiB),
    '-smp',
    '1',
    '-nographic',
    '-no-reboot',
    '-nodefaults',
    '-serial',
    'stdio',
    '-kernel',
    kernel,
    '-initrd',
    initrd,
    '-fsdev',
    'local,id=root,path=/,security_model=none,readonly=on,multidevs=remap',
    '-device',
    'virtio-9p-pci,fsdev=root,mount_tag=hostroot',
    '-fsdev',
    `local,id=job,path=${job},security_model=none,multidevs=remap`,
    '-device',
    'virtio-9p-pci,fsdev=job,mount_tag=job',
    '-append',
    'console=ttyS0 panic=-1 edd=off quiet loglevel=3 rdinit=/init',
  ];
}

/** Boots a guest, runs the command, returns its exit code and output. Never throws for a failing command. */
export async function runInVm(opts: VmOptions): Promise<VmResult> {
  if ((opts.script === undefined) === (opts.command === undefined)) {
    throw new Error('runInVm: pass exactly one of `script` and `command`');
  }
  const kernel = opts.kernel ?? findKernel();
  if (!kernel) throw new Error('runInVm: no /boot/vmlinuz-* (install linux-image-amd64)');
  const version = kernelVersion(kernel);
  const timeoutMs = opts.timeoutMs ?? 180_000;
  const job = mkdtempSync(join(tmpdir(), 'nodenet-vm-'));
  const started = Date.now();
  try {
    const initrd = writeInitrd(job, version);

    let runLine: string;
    if (opts.script !== undefined) {
      writeFileSync(join(job, 'script.sh'), opts.script);
      runLine = 'sh /tmp/job/script.sh';
    } else {
      runLine = opts.command!.map(shellQuote).join(' ');
    }
    const env = { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin', ...opts.env };
    if (!env.PATH.includes('/sbin')) env.PATH += ':/usr/sbin:/sbin';
    writeFileSync(
      join(job, 'stage2.sh'),
      stage2Script({
        cwd: opts.cwd ?? process.cwd(),
        env,
        modules: opts.modules ?? DEFAULT_VM_MODULES,
        runLine,
      }),
      { mode: 0o755 },
    );
    writeFileSync(join(job, 'output'), '');

    const args = qemuArgs({ kernel, initrd, job, memoryMiB: opts.memoryMiB ?? 1024 });
    const follow = opts.onOutput ? followOutput(join(job, 'output'), opts.onOutput) : undefined;
    const { console: serial, timedOut } = await runQemu(args, timeoutMs, opts.signal).finally(() =>
      follow?.stop(),
    );
    const exitFile = join(job, 'exit');
    const exitCode = existsSync(exitFile) ? Number(readFileSync(exitFile, 'utf8').trim()) : null;
    return {
      exitCode: Number.isFinite(exitCode) ? exitCode : null,
      output: readFileSync(join(job, 'output'), 'utf8'),
      console: serial,
      timedOut,
      durationMs: Date.now() - started,
    };
  } finally {
    if (opts.copyOut) copyFromJob(job, opts.copyOut);
    rmSync(job, { recursive: true, force: true });
  }
}

function copyFromJob(job: string, c: { from: string; to: string }): void {
  if (!c.from.startsWith('/tmp/job/'))
    throw new Error(`runInVm: copyOut.from must be under /tmp/job: ${c.from}`);
  const src = join(job, c.from.slice('/tmp/job/'.length));
  if (existsSync(src)) cpSync(src, c.to, { recursive: true });
}

/**
 * Passes the whole lines appended to `file` to `onChunk` every 500 ms (whole lines: a character is
 * never cut in two), and the rest when stopped.
 */
function followOutput(file: string, onChunk: (chunk: string) => void): { stop(): void } {
  let offset = 0;
  const read = (all: boolean): void => {
    try {
      const bytes = readFileSync(file);
      const end = all ? bytes.length : bytes.lastIndexOf(0x0a) + 1;
      if (end > offset) onChunk(bytes.subarray(offset, end).toString('utf8'));
      offset = Math.max(offset, end);
    } catch {
      /* not there yet */
    }
  };
  const timer = setInterval(() => read(false), 500);
  return {
    stop: () => {
      clearInterval(timer);
      read(true);
    },
  };
}

function runQemu(
  args: string[],
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<{ console: string; timedOut: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(QEMU, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const keep = (chunk: Buffer): void => {
      out += chunk.toString('utf8');
      // Bound memory: a looping guest can print forever.
      if (out.length > 1_000_000) out = out.slice(-500_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    const abort = (): void => void child.kill('SIGKILL');
    if (signal?.aborted) abort();
    signal?.addEventListener('abort', abort, { once: true });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`runInVm: cannot start ${QEMU}: ${err.message}`));
    });
    child.on('close', () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
      resolve({ console: out, timedOut });
    });
  });
}
