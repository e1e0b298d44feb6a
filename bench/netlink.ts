/**
 * Benchmark of the netlink driver (issue 5): 500 Layer-2 networks (bridge + VXLAN + one gateway
 * address each) applied to an empty network namespace, next to an `ip -batch` file doing the same
 * in one process (goal ≤ 1.1×); then a converged re-apply of those 500 (goal ≤ 20 ms, zero
 * operations). Goals of issue 26.
 *
 * Usage (root): npx tsx bench/netlink.ts [--networks 500] [--repeat 3]
 * The driver part re-executes this script inside the namespace (`ip netns exec`), since netlink
 * sockets bind to the namespace of their process.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NodeLayer2Entry } from '@nodenet/api';

const args = process.argv.slice(2);
const opt = (name: string, def: number): number => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const N = opt('networks', 500);
const REPEAT = opt('repeat', 3);
const VTEP = '10.50.0.1';

const gateway = (i: number): string => `10.${128 + (i >> 8)}.${i & 255}.1/24`;
const vlan = (i: number): number => i + 1;
const vni = (i: number): number => 10_000 + i;

function layer2(): NodeLayer2Entry[] {
  return Array.from({ length: N }, (_, i) => ({
    name: `bench-${i}`,
    id: vlan(i),
    mtu: 1500,
    vni: vni(i),
    anycastGateways: [gateway(i)],
    advertiseNeighbors: false,
    createMacVLANInterface: false,
    neighSuppression: false,
  }));
}

/** The same end state as the driver produces, as iproute2 batch commands. */
function batchFile(): string {
  const lines: string[] = [];
  for (let i = 0; i < N; i++) {
    const br = `l2.${vlan(i)}`;
    const vx = `vx.${vni(i)}`;
    lines.push(`link add ${br} mtu 1500 type bridge`);
    lines.push(`link set ${br} up`);
    lines.push(
      `link add ${vx} mtu 1500 master ${br} type vxlan id ${vni(i)} local ${VTEP} dstport 4789 nolearning`,
    );
    lines.push(`link set ${vx} type bridge_slave learning off`);
    lines.push(`link set ${vx} up`);
    lines.push(`addr add ${gateway(i)} dev ${br}`);
  }
  return `${lines.join('\n')}\n`;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function inner(): Promise<void> {
  const { createNetlinkDriver } = await import('@nodenet/agent');
  const driver = createNetlinkDriver({ settings: { vtepAddress: VTEP } });
  const spec = { vrf: [], layer2: layer2(), routingTable: [] };
  const t0 = performance.now();
  const first = await driver.apply(spec);
  const applyMs = performance.now() - t0;
  const reapply: number[] = [];
  let reapplyOps = 0;
  // A running agent re-applies many times: report the median of 20 and, separately, the first (cold code).
  for (let r = 0; r < 20; r++) {
    const t = performance.now();
    const res = await driver.apply(spec);
    reapply.push(performance.now() - t);
    reapplyOps += res.operations;
  }
  driver.close();
  process.stdout.write(
    JSON.stringify({
      applyMs,
      operations: first.operations,
      reapplyMs: median(reapply),
      firstReapplyMs: reapply[0],
      reapplyOps,
    }),
  );
}

function ns(tag: string): string {
  const name = `nnnl-bench-${tag}-${process.pid}`;
  execFileSync('ip', ['netns', 'add', name]);
  return name;
}

/**
 * Removes the namespace after deleting its devices one by one: deleting a namespace that still holds
 * a thousand devices leaves the kernel tearing them down in the background, under the lock every
 * later run needs, which would skew the next measurement.
 */
function dropNs(name: string): void {
  const names = (
    JSON.parse(execFileSync('ip', ['-n', name, '-json', 'link', 'show'], { encoding: 'utf8' })) as {
      ifname: string;
    }[]
  )
    .map((l) => l.ifname)
    .filter((n) => n.startsWith('vx.') || n.startsWith('l2.'));
  const dir = mkdtempSync(join(tmpdir(), 'nodenet-bench-del-'));
  writeFileSync(join(dir, 'del.ip'), names.map((n) => `link del ${n}`).join('\n') + '\n');
  try {
    execFileSync('ip', ['-n', name, '-force', '-batch', join(dir, 'del.ip')], { stdio: 'ignore' });
  } catch {
    // -force keeps going; leftovers go with the namespace
  }
  rmSync(dir, { recursive: true, force: true });
  execFileSync('ip', ['netns', 'del', name]);
}

function linkCount(name: string): number {
  return (
    JSON.parse(execFileSync('ip', ['-n', name, '-json', 'link', 'show'], { encoding: 'utf8' })) as unknown[]
  ).length;
}

function outer(): void {
  const dir = mkdtempSync(join(tmpdir(), 'nodenet-bench-'));
  const file = join(dir, 'batch.ip');
  writeFileSync(file, batchFile());
  const self = fileURLToPath(import.meta.url);
  const ipMs: number[] = [];
  const driverMs: number[] = [];
  const reapplyMs: number[] = [];
  const firstReapplyMs: number[] = [];
  let ops = 0;
  let reapplyOps = 0;
  try {
    for (let r = 0; r < REPEAT; r++) {
      const a = ns(`ip${r}`);
      try {
        const t = performance.now();
        execFileSync('ip', ['-n', a, '-batch', file]);
        ipMs.push(performance.now() - t);
        if (linkCount(a) !== 2 * N + 1) throw new Error(`ip -batch made ${linkCount(a)} links`);
      } finally {
        dropNs(a);
      }
      const b = ns(`drv${r}`);
      try {
        const res = spawnSync(
          'ip',
          ['netns', 'exec', b, process.execPath, '--import', 'tsx', self, '--inner', '--networks', String(N)],
          {
            encoding: 'utf8',
            env: { ...process.env, TSX_TSCONFIG_PATH: 'tsconfig.test.json' },
          },
        );
        if (res.status !== 0) throw new Error(`driver run failed: ${res.stderr}`);
        const out = JSON.parse(res.stdout) as {
          applyMs: number;
          operations: number;
          reapplyMs: number;
          firstReapplyMs: number;
          reapplyOps: number;
        };
        if (linkCount(b) !== 2 * N + 1) throw new Error(`driver made ${linkCount(b)} links`);
        driverMs.push(out.applyMs);
        reapplyMs.push(out.reapplyMs);
        firstReapplyMs.push(out.firstReapplyMs);
        ops = out.operations;
        reapplyOps += out.reapplyOps;
      } finally {
        dropNs(b);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const ratio = median(driverMs) / median(ipMs);
  const result = {
    networks: N,
    repeat: REPEAT,
    ipBatchMs: Math.round(median(ipMs)),
    driverApplyMs: Math.round(median(driverMs)),
    driverOperations: ops,
    ratio: Number(ratio.toFixed(2)),
    ratioTarget: 1.1,
    convergedReapplyMs: Number(median(reapplyMs).toFixed(1)),
    convergedReapplyTargetMs: 20,
    firstConvergedReapplyMs: Number(median(firstReapplyMs).toFixed(1)),
    convergedReapplyOps: reapplyOps,
  };
  console.log(JSON.stringify(result, null, 2));
  console.log(
    `netlink: ${N} L2 networks: driver ${result.driverApplyMs} ms vs ip -batch ${result.ipBatchMs} ms (×${result.ratio}, goal ≤ 1.1); ` +
      `converged re-apply ${result.convergedReapplyMs} ms median, first ${result.firstConvergedReapplyMs} ms (goal ≤ 20 ms) with ${reapplyOps} operations (load ${loadavg()[0]!.toFixed(1)})`,
  );
}

if (args.includes('--inner')) await inner();
else outer();
