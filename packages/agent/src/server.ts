/**
 * The agent's small HTTP endpoints: `/healthz` (liveness: the process and its loop are alive),
 * `/readyz` (readiness: start-up recovery done and the first reconcile finished) and `/metrics`
 * (Prometheus text format). One server can serve all three, or metrics and probes can listen on
 * different addresses (`--metrics-addr`, `--health-addr`).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { OptionError } from './errors.js';

export interface Probe {
  ok: boolean;
  /** Shown in the response body, so `curl` tells why. */
  detail: string;
}

export interface EndpointHandlers {
  healthz?: () => Probe;
  readyz?: () => Probe;
  metrics?: Registry;
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
