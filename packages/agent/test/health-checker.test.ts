import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  HealthChecker,
  judge,
  type CheckResult,
  parseHealthConfig,
  type HealthConfig,
  httpApiServerProbe,
  linkIsUp,
  readLinksNetlink,
} from '@nodenet/agent';

const servers: (Server | HttpServer)[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function listen(server: Server | HttpServer, port = 0): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** A loopback port that nothing listens on (bound once, then closed). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

const only = (data: unknown): HealthConfig =>
  parseHealthConfig({ apiServer: { enabled: false }, frr: { enabled: false }, ...(data as object) });

describe('TCP checks (real sockets on loopback)', () => {
  it('passes when the target accepts', async () => {
    const port = await listen(createServer((c) => c.end()));
    const checker = new HealthChecker(only({ tcp: { targets: [{ host: '127.0.0.1', port, name: 'svc' }] } }));
    expect(await checker.run()).toEqual([{ name: 'tcp/svc', ok: true, detail: 'connected (attempt 1)' }]);
  });

  it('counts "connection refused" as reachable by default', async () => {
    const port = await closedPort();
    const [result] = await new HealthChecker(only({ tcp: { targets: [{ host: '127.0.0.1', port }] } })).run();
    expect(result).toMatchObject({ name: `tcp/127.0.0.1:${port}`, ok: true });
    expect(result?.detail).toMatch(/^connection refused: host reachable/);
  });

  it('fails on "connection refused" when refusedIsReachable is false, after every retry', async () => {
    const port = await closedPort();
    const pauses: number[] = [];
    const checker = new HealthChecker(
      only({
        tcp: {
          retries: 2,
          retryDelayMs: 7,
          targets: [{ host: '127.0.0.1', port, refusedIsReachable: false }],
        },
      }),
      { sleep: async (ms) => void pauses.push(ms) },
    );
    const [result] = await checker.run();
    expect(result).toEqual({
      name: `tcp/127.0.0.1:${port}`,
      ok: false,
      detail: 'connection refused after 3 attempt(s)',
    });
    expect(pauses).toEqual([7, 7]);
  });

  it('retries: a target that starts listening between attempts passes', async () => {
    const port = await closedPort();
    const checker = new HealthChecker(
      only({ tcp: { retries: 2, targets: [{ host: '127.0.0.1', port, refusedIsReachable: false }] } }),
      {
        sleep: () =>
          listen(
            createServer((c) => c.end()),
            port,
          ).then(() => undefined),
      },
    );
    expect(await checker.run()).toEqual([
      { name: `tcp/127.0.0.1:${port}`, ok: true, detail: 'connected (attempt 2)' },
    ]);
  });
});

describe('interface checks (real netlink)', () => {
  it('reads loopback over netlink and counts it as up (operstate unknown, UP + LOWER_UP)', async () => {
    const links = await readLinksNetlink();
    const lo = links.get('lo');
    expect(lo).toMatchObject({ name: 'lo', adminUp: true, lowerUp: true });
    const [result] = await new HealthChecker(only({ interfaces: ['lo'] })).run();
    expect(result).toEqual({
      name: 'interface/lo',
      ok: true,
      detail: `operstate ${lo?.operstate} (UP,LOWER_UP)`,
    });
  });

  it('fails a missing interface', async () => {
    expect(await new HealthChecker(only({ interfaces: ['nn-missing0'] })).run()).toEqual([
      { name: 'interface/nn-missing0', ok: false, detail: 'does not exist' },
    ]);
  });

  it('fails every listed interface when links cannot be read', async () => {
    const checker = new HealthChecker(only({ interfaces: ['eth0', 'eth1'] }), {
      readLinks: () => Promise.reject(new Error('netlink socket: EPERM')),
    });
    expect((await checker.run()).map((r) => [r.name, r.ok, r.detail])).toEqual([
      ['interface/eth0', false, 'cannot read links: netlink socket: EPERM'],
      ['interface/eth1', false, 'cannot read links: netlink socket: EPERM'],
    ]);
  });

  it('applies the up rule: operstate up, or unknown with UP and LOWER_UP', () => {
    const link = (operstate: string, adminUp: boolean, lowerUp: boolean) => ({
      name: 'x',
      operstate,
      adminUp,
      lowerUp,
    });
    expect(linkIsUp(link('up', true, true))).toBe(true);
    expect(linkIsUp(link('unknown', true, true))).toBe(true);
    expect(linkIsUp(link('unknown', true, false))).toBe(false);
    expect(linkIsUp(link('down', true, true))).toBe(false);
    expect(linkIsUp(link('lowerlayerdown', true, false))).toBe(false);
  });
});

describe('API server check (real HTTP on loopback, fresh connection)', () => {
  const apiOnly = (timeoutMs = 300) =>
    parseHealthConfig({ apiServer: { timeoutMs, retries: 0 }, frr: { enabled: false } });

  it('passes on any HTTP answer, including 403, and opens a new connection every time', async () => {
    const sockets = new Set<unknown>();
    const server = createHttpServer((req, res) => {
      sockets.add(req.socket);
      res.writeHead(403).end();
    });
    const port = await listen(server);
    const checker = new HealthChecker(apiOnly(), {
      apiServer: httpApiServerProbe({ server: `http://127.0.0.1:${port}` }),
    });
    expect(await checker.run()).toEqual([{ name: 'apiserver', ok: true, detail: 'answered (attempt 1)' }]);
    await checker.run();
    expect(sockets.size).toBe(2);
  });

  it('fails when the server accepts but does not answer within the timeout', async () => {
    const port = await listen(createHttpServer(() => undefined));
    const checker = new HealthChecker(apiOnly(100), {
      apiServer: httpApiServerProbe({ server: `http://127.0.0.1:${port}` }),
    });
    const [result] = await checker.run();
    expect(result?.ok).toBe(false);
    expect(result?.detail).toBe(`no answer from 127.0.0.1:${port} within 100 ms after 1 attempt(s)`);
  });

  it('fails on HTTP 5xx', async () => {
    const port = await listen(createHttpServer((_req, res) => res.writeHead(503).end()));
    const checker = new HealthChecker(apiOnly(), {
      apiServer: httpApiServerProbe({ server: `http://127.0.0.1:${port}` }),
    });
    expect((await checker.run())[0]?.detail).toBe(
      'API server answered HTTP 503 on /version after 1 attempt(s)',
    );
  });

  it('fails on a refused connection (the RST may come from this node itself), saying so', async () => {
    const port = await closedPort();
    const checker = new HealthChecker(apiOnly(), {
      apiServer: httpApiServerProbe({ server: `http://127.0.0.1:${port}` }),
    });
    const [result] = await checker.run();
    expect(result?.ok).toBe(false);
    expect(result?.detail).toMatch(
      new RegExp(
        `^connection refused by 127\\.0\\.0\\.1:${port} \\(nothing listens there, or its address is on a device of this node\\) after \\d attempt`,
      ),
    );
  });

  it('fails on a connection reset before the answer, saying so', async () => {
    const port = await listen(createServer((c) => c.resetAndDestroy()));
    const checker = new HealthChecker(apiOnly(), {
      apiServer: httpApiServerProbe({ server: `http://127.0.0.1:${port}` }),
    });
    const [result] = await checker.run();
    expect(result?.ok).toBe(false);
    expect(result?.detail).toMatch(
      new RegExp(`^connection reset by 127\\.0\\.0\\.1:${port} before an answer`),
    );
  });

  it('fails on an answer from an address of this host when the API server is not on this host', async () => {
    // The server's "address" (10.96.0.1) is taken to be remote; the answer comes from 127.0.0.1,
    // here listed as this host's own address: the node answered itself.
    const port = await listen(createHttpServer((_req, res) => res.writeHead(200).end('{}')));
    const probe = httpApiServerProbe({
      server: `http://127.0.0.1:${port}`,
      serverIsLocal: false,
      localAddresses: () => new Set(['127.0.0.1']),
    });
    await expect(probe(1000)).rejects.toMatchObject({
      kind: 'local-answer',
      message: `answered by this host itself (127.0.0.1 is an address of this node), not by the API server at 127.0.0.1:${port}`,
    });
    // The same answer counts when the API server does run on this host (a control-plane node).
    await expect(
      httpApiServerProbe({ server: `http://127.0.0.1:${port}`, serverIsLocal: true })(1000),
    ).resolves.toBeUndefined();
  });
});

describe('FRR and BGP checks', () => {
  const cfg = parseHealthConfig({
    apiServer: { enabled: false },
    frr: { bgpSessions: [{ peer: '10.0.0.1' }, { peer: 'eth1', vrf: 'vr.blue' }, { peer: '10.0.0.9' }] },
  });

  it('passes FRR and established sessions, fails others with their state', async () => {
    const checker = new HealthChecker(cfg, {
      frr: async (asked) => ({
        answering: asked.length === 3,
        sessions: [
          { vrf: 'default', peer: '10.0.0.1', state: 'Established' },
          { vrf: 'vr.blue', peer: 'eth1', state: 'Active' },
        ],
      }),
    });
    expect(await checker.run()).toEqual([
      { name: 'frr', ok: true, detail: 'answered' },
      { name: 'bgp/default/10.0.0.1', ok: true, detail: 'state Established' },
      { name: 'bgp/vr.blue/eth1', ok: false, detail: 'state Active' },
      { name: 'bgp/default/10.0.0.9', ok: false, detail: 'no such BGP neighbor' },
    ]);
  });

  it('fails FRR and every session when FRR does not answer', async () => {
    const checker = new HealthChecker(cfg, {
      frr: () => Promise.reject(new Error('vtysh: connection refused')),
    });
    const results = await checker.run();
    expect(results.every((r) => !r.ok)).toBe(true);
    expect(results[0]).toEqual({
      name: 'frr',
      ok: false,
      detail: 'FRR does not answer: vtysh: connection refused',
    });
  });

  it('refuses to build a checker whose enabled checks have no probe', () => {
    expect(() => new HealthChecker(parseHealthConfig({}))).toThrow(
      /apiServer check enabled but no API server probe/,
    );
  });
});

describe('judge (baseline semantics)', () => {
  const r = (name: string, ok: boolean): CheckResult => ({ name, ok, detail: ok ? 'fine' : 'broken' });

  it('holds a check that passed before and fails after against the new config', () => {
    const verdict = judge([r('tcp/a', false), r('frr', true)], [r('tcp/a', true), r('frr', true)]);
    expect(verdict.ok).toBe(false);
    expect(verdict.newFailures.map((x) => x.name)).toEqual(['tcp/a']);
    expect(verdict.summary).toBe('tcp/a (broken)');
  });

  it('reports but does not hold a check that already failed before the apply', () => {
    const verdict = judge([r('tcp/a', false), r('frr', true)], [r('tcp/a', false), r('frr', true)]);
    expect(verdict.ok).toBe(true);
    expect(verdict.preexisting.map((x) => x.name)).toEqual(['tcp/a']);
    expect(verdict.summary).toBe('already failing before the apply: tcp/a (broken)');
  });

  it('counts every failure without a baseline', () => {
    expect(judge([r('tcp/a', false)]).ok).toBe(false);
    expect(judge([r('tcp/a', true), r('frr', true)]).summary).toBe('all 2 checks passed');
    expect(judge([]).summary).toBe('no checks configured');
  });
});
