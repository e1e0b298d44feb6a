/**
 * The small HTTP endpoints both binaries serve: `/healthz` (liveness), `/readyz` (readiness, with
 * the reason in the body) and `/metrics` (Prometheus text format). One server can serve all three,
 * or metrics and probes can listen on different addresses (`--metrics-addr`, `--health-addr`).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OptionError } from '@nodenet/api';

export interface Probe {
  ok: boolean;
  /** Shown in the response body, so `curl` tells why. */
  detail: string;
}

export interface EndpointHandlers {
  healthz?: () => Probe;
  readyz?: () => Probe;
  metrics?: MetricsSource;
}

/** What /metrics reads: a prom-client `Registry` is one. */
export interface MetricsSource {
  readonly contentType: string;
  metrics(): Promise<string>;
}

export interface ListenAddress {
  host: string;
  port: number;
}

/** Parses `host:port`, `:port` or `[v6]:port`. An empty host listens on all addresses. */
export function parseListenAddress(option: string, value: string): ListenAddress {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(value);
  const port = match ? Number(match[3]) : NaN;
  if (!match || port > 65_535)
    throw new OptionError(option, value, 'must be host:port, :port or [ipv6]:port');
  return { host: match[1] ?? (match[2] || '0.0.0.0'), port };
}

export function createEndpointServer(handlers: EndpointHandlers): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    const probe = path === '/healthz' ? handlers.healthz : path === '/readyz' ? handlers.readyz : undefined;
    if (probe) {
      const { ok, detail } = probe();
      res
        .writeHead(ok ? 200 : 503, { 'content-type': 'text/plain; charset=utf-8' })
        .end(`${ok ? 'ok' : 'not ok'}: ${detail}\n`);
      return;
    }
    if (path === '/metrics' && handlers.metrics) {
      const registry = handlers.metrics;
      registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
        (err: unknown) => res.writeHead(500).end(String(err)),
      );
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
  });
}

/** Starts listening; resolves with the bound address (port 0 picks a free port). */
export async function listen(server: Server, address: ListenAddress): Promise<AddressInfo> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server.address() as AddressInfo;
}

/**
 * Listens with the probes on `health` and the metrics on `metrics`: one server when the addresses
 * are the same. Resolves with the base URL of each and a function closing both.
 */
export async function serveEndpoints(
  handlers: EndpointHandlers,
  addresses: { health: ListenAddress; metrics: ListenAddress },
): Promise<{ urls: { health: string; metrics: string }; close: () => Promise<void> }> {
  const same =
    addresses.health.host === addresses.metrics.host && addresses.health.port === addresses.metrics.port;
  const plan: [ListenAddress, EndpointHandlers][] = same
    ? [[addresses.health, handlers]]
    : [
        [addresses.health, { healthz: handlers.healthz, readyz: handlers.readyz }],
        [addresses.metrics, { metrics: handlers.metrics }],
      ];
  const servers: Server[] = [];
  const urls: string[] = [];
  try {
    for (const [address, h] of plan) {
      const server = createEndpointServer(h);
      servers.push(server);
      const a = await listen(server, address);
      urls.push(`http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`);
    }
  } catch (err) {
    await closeAll(servers);
    throw err;
  }
  return { urls: { health: urls[0]!, metrics: urls[urls.length - 1]! }, close: () => closeAll(servers) };
}

const closeAll = (servers: Server[]): Promise<void> =>
  Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r())))).then(() => undefined);
