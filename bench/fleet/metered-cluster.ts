/**
 * Child process of bench/fleet-scale.ts: devcluster (the package, in this process) with a meter on
 * its HTTP front. Each writer gets a port of its own (the same request handler), so every request
 * is counted by writer, verb and resource, with the bytes it sent and received and, for watches, the
 * events it received. The meter and the Ready Nodes are made here, outside the server's handler:
 * nothing of devcluster's code is changed. Nothing else runs in this process, so its CPU and memory
 * are devcluster's (plus the meter's counting).
 * Protocol (IPC): child sends {ready, ports, kubeconfigPath}; parent sends {nodes, names} (Nodes with
 * Ready made in-process) → {nodesDone}; {meter} → {meter, counts, cpu, memory}; {reset};
 * {memory} → heap after a full GC; {stop}.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDevCluster } from '@nodenet/devcluster';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
export interface MeterRow {
  requests: number;
  requestBytes: number;
  responseBytes: number;
  /** Watch events received (lines of a watch stream), bookmarks included. */
  events: number;
}
export type MeterCounts = Record<string, Record<string, MeterRow>>;

const WRITERS = ['configurator', 'agents', 'floor'] as const;
let counts: MeterCounts = {};
const CRDS = new URL('../../crds/', import.meta.url).pathname;

/** `verb resource[/status]` of a request, as the Kubernetes audit log names them. */
function verbOf(req: IncomingMessage): string {
  const [p = '', q = ''] = (req.url ?? '').split('?');
  const parts = p.split('/').filter(Boolean);
  const rest = parts.slice(parts[0] === 'api' ? 2 : 3);
  const ns = rest[0] === 'namespaces' && rest.length > 2;
  const [resource = '?', name, sub] = ns ? rest.slice(2) : rest;
  const watch = /(^|&)watch=(true|1)/.test(q);
  const verb =
    req.method === 'GET'
      ? watch
        ? 'watch'
        : name
          ? 'get'
          : 'list'
      : ({ POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' }[req.method ?? ''] ?? req.method);
  return `${verb} ${resource}${sub ? `/${sub}` : ''}`;
}

function metered(writer: string, handler: Handler): Handler {
  return (req, res) => {
    const key = verbOf(req);
    const byVerb = (counts[writer] ??= {});
    const row = (byVerb[key] ??= { requests: 0, requestBytes: 0, responseBytes: 0, events: 0 });
    row.requests++;
    row.requestBytes += Number(req.headers['content-length'] ?? 0);
    const watch = key.startsWith('watch ');
    const count = (chunk: unknown): void => {
      if (typeof chunk === 'string') chunk = Buffer.from(chunk);
      if (!Buffer.isBuffer(chunk) && !(chunk instanceof Uint8Array)) return;
      row.responseBytes += chunk.length;
      if (watch) for (const b of chunk) if (b === 10) row.events++;
    };
    const write = res.write.bind(res);
    const end = res.end.bind(res);
    res.write = ((chunk: unknown, ...rest: never[]) => {
      count(chunk);
      return write(chunk, ...rest);
    }) as typeof res.write;
    res.end = ((chunk?: unknown, ...rest: never[]) => {
      if (chunk !== undefined && typeof chunk !== 'function') count(chunk);
      return end(chunk as never, ...rest);
    }) as typeof res.end;
    handler(req, res);
  };
}

// The server's handler, taken when devcluster creates its server.
let handler: Handler | undefined;
const createServer = http.createServer.bind(http);
http.createServer = ((opts: http.ServerOptions, h: Handler) => {
  handler = h;
  return createServer(opts, metered('admin', h));
}) as typeof http.createServer;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodenet-bench-scale-'));
const dc = await startDevCluster({ crdsDir: CRDS, kubeconfigPath: path.join(dir, 'kubeconfig') });
http.createServer = createServer;
const kubeconfigs: Record<string, string> = { admin: dc.kubeconfigPath };
for (const writer of WRITERS) {
  const server = createServer({ requestTimeout: 0, keepAliveTimeout: 65_000 }, metered(writer, handler!));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const file = path.join(dir, `kubeconfig-${writer}`);
  fs.writeFileSync(file, fs.readFileSync(dc.kubeconfigPath, 'utf8').replace(`:${dc.port}`, `:${port}`));
  kubeconfigs[writer] = file;
}

/** Ready Nodes, made in this process (the kubelet's part; not what is measured). */
function createNodes(names: string[], labels: (i: number) => Record<string, string>): void {
  const nodes = dc.cluster.typeFor('', 'v1', 'nodes')!;
  const at = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  names.forEach((name, i) => {
    dc.cluster.create(nodes, undefined, { metadata: { name, labels: labels(i) } });
    dc.cluster.patch(nodes, { namespace: undefined, name, subresource: 'status' }, {
      type: 'application/merge-patch+json',
      body: {
        status: {
          conditions: [
            { type: 'Ready', status: 'True', reason: 'KubeletReady', message: '', lastTransitionTime: at },
          ],
        },
      },
    } as never);
  });
}

const memory = (): NodeJS.MemoryUsage => {
  global.gc?.();
  return process.memoryUsage();
};

type Msg =
  | { type: 'nodes'; names: string[]; racks: number }
  | { type: 'meter' }
  | { type: 'reset' }
  | { type: 'stop' };
process.on('message', (m: Msg) => {
  if (m.type === 'nodes') {
    createNodes(m.names, (i) => ({ rack: `r${i % m.racks}` }));
    process.send?.({ type: 'nodesDone' });
  } else if (m.type === 'meter') {
    process.send?.({ type: 'meter', counts, cpu: process.cpuUsage(), memory: memory() });
  } else if (m.type === 'reset') {
    counts = {};
    process.send?.({ type: 'resetDone' });
  } else {
    void dc.stop().then(() => {
      fs.rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    });
  }
});
process.on('disconnect', () => process.exit(0));
process.send?.({ type: 'ready', kubeconfigs, pid: process.pid });
