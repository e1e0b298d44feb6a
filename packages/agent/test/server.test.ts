import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { OptionError } from '../src/errors.js';
import { AgentMetrics } from '../src/metrics.js';
import { createEndpointServer, listen, parseListenAddress } from '../src/server.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function start(handlers: Parameters<typeof createEndpointServer>[0]): Promise<string> {
  const server = createEndpointServer(handlers);
  servers.push(server);
  const { port } = await listen(server, { host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${port}`;
}

describe('endpoint server (real HTTP on loopback)', () => {
  it('answers /healthz and /readyz from their probes with 200 or 503 and the reason', async () => {
    let ready = false;
    const base = await start({
      healthz: () => ({ ok: true, detail: 'alive' }),
      readyz: () => ({ ok: ready, detail: ready ? 'reconciled' : 'start-up recovery not finished' }),
    });
    const h = await fetch(`${base}/healthz`);
    expect([h.status, await h.text()]).toEqual([200, 'ok: alive\n']);
    const r1 = await fetch(`${base}/readyz`);
    expect([r1.status, await r1.text()]).toEqual([503, 'not ok: start-up recovery not finished\n']);
    ready = true;
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
  });

  it('serves the agent metrics in Prometheus text format', async () => {
    const metrics = new AgentMetrics();
    metrics.applies.inc({ result: 'provisioned' });
    metrics.driftRepairs.inc();
    const base = await start({ metrics: metrics.registry });
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text).toContain('nodenet_agent_applies_total{result="provisioned"} 1');
    expect(text).toContain('nodenet_agent_drift_repairs_total 1');
    expect(text).toContain('# TYPE nodenet_agent_apply_duration_seconds histogram');
  });

  it('answers 404 for unknown paths and endpoints not served here, 405 for other methods', async () => {
    const base = await start({ healthz: () => ({ ok: true, detail: 'alive' }) });
    expect((await fetch(`${base}/metrics`)).status).toBe(404);
    expect((await fetch(`${base}/nope`)).status).toBe(404);
    expect((await fetch(`${base}/healthz`, { method: 'POST' })).status).toBe(405);
  });
});

describe('parseListenAddress', () => {
  it('accepts host:port, :port and [v6]:port', () => {
    expect(parseListenAddress('--metrics-addr', '127.0.0.1:9100')).toEqual({ host: '127.0.0.1', port: 9100 });
    expect(parseListenAddress('--metrics-addr', ':9100')).toEqual({ host: '0.0.0.0', port: 9100 });
    expect(parseListenAddress('--metrics-addr', '[::1]:80')).toEqual({ host: '::1', port: 80 });
  });

  it('rejects anything else, naming the option and the value', () => {
    expect(() => parseListenAddress('--health-addr', '9100')).toThrow(OptionError);
    expect(() => parseListenAddress('--health-addr', 'host:99999')).toThrow(
      '--health-addr: must be host:port, :port or [ipv6]:port (got "host:99999")',
    );
  });
});
