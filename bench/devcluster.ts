/**
 * Benchmark of devcluster (issue 3): write throughput through HTTP (sequential and concurrent
 * creates and merge patches of a CRD-validated resource) and how many concurrent watchers it serves
 * (N open watches, a burst of writes, every watcher must receive every event).
 * Targets: ≥ 2,000 writes/s and ≥ 1,000 concurrent watchers.
 *
 * The server runs as its own process (the real `nodenet-devcluster` binary with crds/), so the load
 * generator does not share its event loop. Usage:
 *   npx tsc -b packages/devcluster && npx tsx bench/devcluster.ts [--writes 4000] [--watchers 1000,2000] [--events 20]
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import os from 'node:os';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name: string, def: string): string => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? (args[i + 1] ?? def) : def;
};
const WRITES = Number(opt('writes', '4000'));
const WATCHERS = opt('watchers', '1000,2000').split(',').map(Number);
const EVENTS = Number(opt('events', '20'));
const PATH = '/apis/network.nodenet.io/v1alpha1/routingtables';

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
let port = 0;

function request(
  method: string,
  p: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: p,
        agent,
        headers: data ? { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(data) } : {},
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    if (data) req.write(data);
    req.end();
  });
}

const rt = (name: string, tableId: number) => ({
  apiVersion: 'network.nodenet.io/v1alpha1',
  kind: 'RoutingTable',
  metadata: { name, labels: { bench: 'yes' } },
  spec: { tableId },
});

async function timed(
  label: string,
  n: number,
  concurrency: number,
  op: (i: number) => Promise<{ status: number; text: string }>,
): Promise<Row> {
  let next = 0;
  let failed = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const i = next++;
        if (i >= n) return;
        const r = await op(i);
        if (r.status >= 300) {
          failed++;
          if (failed === 1) console.error(`${label}: HTTP ${r.status} ${r.text.slice(0, 200)}`);
        }
      }
    }),
  );
  const ms = performance.now() - t0;
  return {
    measure: label,
    value: Math.round((n / ms) * 1000),
    unit: 'writes/s',
    note: `${n} writes, concurrency ${concurrency}${failed ? `, ${failed} FAILED` : ''}`,
  };
}

interface Row {
  measure: string;
  value: number;
  unit: string;
  note: string;
}

/** Opens n watches from `rv`, then writes `events` patches; measures until every watcher got every event. */
async function watchers(n: number, events: number): Promise<Row> {
  const list = JSON.parse((await request('GET', `${PATH}?limit=1`)).text) as {
    metadata: { resourceVersion: string };
  };
  const rv = list.metadata.resourceVersion;
  const watchAgent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const received = new Array<number>(n).fill(0);
  const lastAt = new Array<number>(n).fill(0);
  const reqs: http.ClientRequest[] = [];
  let opened = 0;
  await new Promise<void>((resolve, reject) => {
    for (let i = 0; i < n; i++) {
      const req = http.get(
        {
          host: '127.0.0.1',
          port,
          path: `${PATH}?watch=1&resourceVersion=${rv}&labelSelector=bench%3Dyes`,
          agent: watchAgent,
        },
        (res) => {
          if (++opened === n) resolve();
          let buf = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            buf += chunk;
            let idx: number;
            while ((idx = buf.indexOf('\n')) >= 0) {
              const line = buf.slice(0, idx);
              buf = buf.slice(idx + 1);
              if (line.startsWith('{"type":"MODIFIED"')) {
                received[i]!++;
                lastAt[i] = performance.now();
              }
            }
          });
        },
      );
      req.on('error', reject);
      reqs.push(req);
    }
  });
  const t0 = performance.now();
  for (let e = 0; e < events; e++) {
    await request(
      'PATCH',
      `${PATH}/bench-${e % 100}`,
      { spec: { tableId: 100_000 + n + e } },
      'application/merge-patch+json',
    );
  }
  const writesDone = performance.now();
  const deadline = Date.now() + 60_000;
  while (received.some((r) => r < events) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 5));
  const complete = received.filter((r) => r === events).length;
  const ms = Math.max(...lastAt) - t0;
  for (const r of reqs) r.destroy();
  watchAgent.destroy();
  const delivered = received.reduce((a, b) => a + b, 0);
  return {
    measure: `watchers served: ${n}`,
    value: complete,
    unit: 'complete',
    note: `${events} writes -> ${delivered} events delivered in ${ms.toFixed(0)} ms (${Math.round((delivered / ms) * 1000)} events/s; writes took ${(writesDone - t0).toFixed(0)} ms)`,
  };
}

/**
 * The configurator benchmark's shape: one watch per node, each selecting its own object by name
 * (`fieldSelector=metadata.name=X`), while writes go to all objects concurrently.
 */
async function perObjectWatchers(n: number, writes: number): Promise<Row> {
  for (let i = 0; i < n; i++) await request('POST', PATH, rt(`node-${i}`, 200_000 + i));
  const list = JSON.parse((await request('GET', `${PATH}?limit=1`)).text) as {
    metadata: { resourceVersion: string };
  };
  const watchAgent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const received = new Array<number>(n).fill(0);
  const reqs: http.ClientRequest[] = [];
  let opened = 0;
  await new Promise<void>((resolve, reject) => {
    for (let i = 0; i < n; i++) {
      const req = http.get(
        {
          host: '127.0.0.1',
          port,
          path: `${PATH}?watch=1&resourceVersion=${list.metadata.resourceVersion}&fieldSelector=metadata.name%3Dnode-${i}`,
          agent: watchAgent,
        },
        (res) => {
          if (++opened === n) resolve();
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            received[i]! += chunk.split('{"type":"MODIFIED"').length - 1;
          });
        },
      );
      req.on('error', reject);
      reqs.push(req);
    }
  });
  const row = await timed(`merge patch, 16 concurrent, ${n} per-object watches open`, writes, 16, (i) =>
    request(
      'PATCH',
      `${PATH}/node-${i % n}`,
      { spec: { tableId: 300_000 + i } },
      'application/merge-patch+json',
    ),
  );
  const deadline = Date.now() + 30_000;
  const expected = (i: number): number => Math.floor(writes / n) + (i < writes % n ? 1 : 0);
  while (received.some((r, i) => r < expected(i)) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 5));
  const ok = received.every((r, i) => r === expected(i));
  for (const r of reqs) r.destroy();
  watchAgent.destroy();
  return { ...row, note: `${row.note}; every watcher got exactly its own events: ${ok ? 'yes' : 'NO'}` };
}

async function main(): Promise<void> {
  const server = spawn(
    process.execPath,
    [path.join(ROOT, 'packages/devcluster/dist/main.js'), '--port', '0', '--crds', path.join(ROOT, 'crds')],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  port = await new Promise<number>((resolve, reject) => {
    server.stdout.on('data', (d: Buffer) => {
      const m = d.toString().match(/127\.0\.0\.1:(\d+)/);
      if (m) resolve(Number(m[1]));
    });
    server.on('exit', (code) => reject(new Error(`devcluster exited with ${code}`)));
  });
  const rows: Row[] = [];
  try {
    const third = Math.floor(WRITES / 3);
    // warm-up (JIT, sockets), not measured
    for (let i = 0; i < 300; i++) await request('POST', PATH, rt(`warm-${i}`, 80_000 + i));
    for (let i = 0; i < 300; i++) await request('DELETE', `${PATH}/warm-${i}`);
    rows.push(
      await timed('create, sequential', third, 1, (i) => request('POST', PATH, rt(`seq-${i}`, 10_000 + i))),
    );
    rows.push(
      await timed('create, 16 concurrent', WRITES, 16, (i) =>
        request('POST', PATH, rt(`con-${i}`, 20_000 + i)),
      ),
    );
    rows.push(
      await timed('merge patch, sequential', third, 1, (i) =>
        request(
          'PATCH',
          `${PATH}/seq-${i % third}`,
          { spec: { tableId: 50_000 + i } },
          'application/merge-patch+json',
        ),
      ),
    );
    rows.push(
      await timed('merge patch, 64 concurrent', WRITES, 64, (i) =>
        request(
          'PATCH',
          `${PATH}/con-${i % third}`,
          { spec: { tableId: 60_000 + i } },
          'application/merge-patch+json',
        ),
      ),
    );
    for (let i = 0; i < 100; i++) await request('POST', PATH, rt(`bench-${i}`, 90_000 + i));
    const t0 = performance.now();
    const lists = 20;
    for (let i = 0; i < lists; i++) await request('GET', PATH);
    const count = (JSON.parse((await request('GET', PATH)).text) as { items: unknown[] }).items.length;
    rows.push({
      measure: `list of ${count} objects`,
      value: Math.round((performance.now() - t0) / lists),
      unit: 'ms',
      note: 'full JSON list',
    });
    for (const n of WATCHERS) rows.push(await watchers(n, EVENTS));
    rows.push(await perObjectWatchers(1000, WRITES));
  } finally {
    server.kill('SIGTERM');
    agent.destroy();
  }
  console.log(
    `\ndevcluster benchmark — ${os.cpus().length} CPU(s) ${os.cpus()[0]?.model ?? ''}, Node ${process.version}; server in its own process\n`,
  );
  const w = [Math.max(...rows.map((r) => r.measure.length)), 8, 9];
  console.log(`${'measure'.padEnd(w[0]!)}  ${'value'.padStart(w[1]!)}  ${'unit'.padEnd(w[2]!)}  note`);
  for (const r of rows)
    console.log(
      `${r.measure.padEnd(w[0]!)}  ${String(r.value).padStart(w[1]!)}  ${r.unit.padEnd(w[2]!)}  ${r.note}`,
    );
}

await main();
