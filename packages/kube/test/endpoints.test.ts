import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { OptionError } from '@nodenet/api';
import { createEndpointServer, listen, parseListenAddress, serveEndpoints } from '@nodenet/kube';
import { Counter, Registry } from 'prom-client';

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

  it('serves a prom-client registry in Prometheus text format', async () => {
    const registry = new Registry();
    new Counter({ name: 'demo_total', help: 'demo', labelNames: ['result'], registers: [registry] }).inc({
      result: 'ok',
    });
    const base = await start({ metrics: registry });
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text).toContain('# TYPE demo_total counter');
    expect(text).toContain('demo_total{result="ok"} 1');
  });

  it('answers 404 for unknown paths and endpoints not served here, 405 for other methods', async () => {
    const base = await start({ healthz: () => ({ ok: true, detail: 'alive' }) });
    expect((await fetch(`${base}/metrics`)).status).toBe(404);
    expect((await fetch(`${base}/nope`)).status).toBe(404);
    expect((await fetch(`${base}/healthz`, { method: 'POST' })).status).toBe(405);
  });
});

describe('serveEndpoints', () => {
  const handlers = {
    healthz: () => ({ ok: true, detail: 'alive' }),
    readyz: () => ({ ok: false, detail: 'informers not synced yet' }),
    metrics: new Registry(),
  };

  it('one address: one server answers probes and metrics', async () => {
    const loopback = { host: '127.0.0.1', port: 0 };
    const s = await serveEndpoints(handlers, { health: loopback, metrics: loopback });
    try {
      expect(s.urls.health).toBe(s.urls.metrics);
      expect((await fetch(`${s.urls.health}/readyz`)).status).toBe(503);
      expect((await fetch(`${s.urls.health}/metrics`)).status).toBe(200);
    } finally {
      await s.close();
    }
  });

  it('two addresses: probes on one, metrics on the other, nothing else on either', async () => {
    const s = await serveEndpoints(handlers, {
      health: { host: '127.0.0.1', port: 0 },
      metrics: { host: '127.0.0.2', port: 0 },
    });
    try {
      expect(s.urls.health).not.toBe(s.urls.metrics);
      expect(await (await fetch(`${s.urls.health}/healthz`)).text()).toBe('ok: alive\n');
      expect((await fetch(`${s.urls.health}/metrics`)).status).toBe(404);
      expect((await fetch(`${s.urls.metrics}/metrics`)).status).toBe(200);
      expect((await fetch(`${s.urls.metrics}/healthz`)).status).toBe(404);
    } finally {
      await s.close();
    }
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
