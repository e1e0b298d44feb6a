/** The small HTTP endpoints: /healthz, /readyz and /metrics. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PolicyError } from './policy.js';

export interface Endpoints {
  healthz?: () => boolean;
  /** Readiness, with the reason shown in the body when not ready. */
  readyz?: () => boolean | { ok: boolean; detail: string };
  metrics?: () => Promise<{ contentType: string; body: string }>;
}

/** `:8080`, `127.0.0.1:0`, `[::1]:9090` → host and port. */
export function parseAddr(addr: string, flag: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(addr.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535)
    throw new PolicyError(flag, addr, 'expected [host]:port, e.g. :8080 or 127.0.0.1:8080');
  return { host: m[1] ?? (m[2] || '0.0.0.0'), port };
}

export async function serve(
  addr: string,
  flag: string,
  endpoints: Endpoints,
): Promise<{ url: string; close: () => Promise<void> }> {
  const { host, port } = parseAddr(addr, flag);
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const check = (fn: (() => boolean | { ok: boolean; detail: string }) | undefined): void => {
      if (!fn) return notFound();
      const r = fn();
      const { ok, detail } = typeof r === 'boolean' ? { ok: r, detail: '' } : r;
      res
        .writeHead(ok ? 200 : 503, { 'content-type': 'text/plain' })
        .end(`${ok ? 'ok' : 'not ready'}${detail ? `: ${detail}` : ''}\n`);
    };
    const notFound = (): void => void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    if (path === '/healthz' || path === '/livez') return check(endpoints.healthz);
    if (path === '/readyz') return check(endpoints.readyz);
    if (path === '/metrics' && endpoints.metrics) {
      endpoints.metrics().then(
        (m) => res.writeHead(200, { 'content-type': m.contentType }).end(m.body),
        (err: unknown) => res.writeHead(500).end(String(err)),
      );
      return;
    }
    notFound();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const a = server.address() as AddressInfo;
  return {
    url: `http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
