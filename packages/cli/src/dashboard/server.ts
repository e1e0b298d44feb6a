/**
 * `kubectl nodenet dashboard`'s web server: serves the bundled page (page/ in this package), pushes
 * the facts as server-sent events (feed.ts), answers a node's details and runs
 * the controls. Every request must carry the random token of the printed URL (its first path
 * segment; writes also in the header `X-Nodenet-Token`): another local user, or a web page the user visits, cannot read the
 * fleet or drive a control. The page never receives a credential.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Clients } from '@nodenet/kube';
import { CliError, EXIT } from '../exit-codes.js';
import { dashboardFacts, nodeDetail, type DashboardFacts } from './facts.js';
import { NodeCells } from './cells.js';
import { FactsFeed, MAX_PAGES } from './feed.js';
import { LiveState } from './live-state.js';
import { confirmation, parseControlRequest, performControl } from './page-controls.js';

const PAGE_DIR = new URL('../../page/', import.meta.url);
const ASSETS: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/style.css': { file: 'style.css', type: 'text/css; charset=utf-8' },
  '/favicon.svg': { file: 'favicon.svg', type: 'image/svg+xml' },
};
const MAX_BODY_BYTES = 4096;

export interface DashboardOptions {
  clients: Clients;
  address: string;
  port: number;
  /** The wave label to group by; default: the RolloutPolicy's. */
  waveLabel?: string;
  now?: () => number;
  onError?: (err: unknown) => void;
}

export interface RunningDashboard {
  /** The URL to open, with the token. */
  url: string;
  port: number;
  /** The facts the page was last sent. */
  facts(): DashboardFacts;
  stop(): Promise<void>;
}

export async function startDashboard(o: DashboardOptions): Promise<RunningDashboard> {
  const token = randomBytes(24).toString('base64url');
  const now = o.now ?? Date.now;
  const assets = new Map(
    Object.entries(ASSETS).map(([path, a]) => [
      path,
      { body: readFileSync(fileURLToPath(new URL(a.file, PAGE_DIR))), type: a.type },
    ]),
  );
  const cells = new NodeCells();
  const feed: FactsFeed = new FactsFeed(() =>
    dashboardFacts(live.state(), o.waveLabel ?? live.policyWaveLabel(), cells),
  );
  const live = new LiveState(
    o.clients,
    () => feed.changed(),
    (err) => o.onError?.(err),
  );
  await live.start();
  feed.start();
  const handle = handler({ o: { ...o, now }, token, assets, live, feed });
  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      o.onError?.(err);
      if (!res.headersSent) json(res, 500, { message: 'internal error: see the terminal' });
      else res.destroy();
    });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(o.port, o.address, () => resolve());
    });
  } catch (err) {
    live.stop();
    feed.stop();
    throw new CliError(
      `cannot listen on ${o.address}:${o.port}: ${(err as Error).message} (choose another with --port / --address)`,
      EXIT.usage,
    );
  }
  const port = (server.address() as AddressInfo).port;
  const host = o.address.includes(':') ? `[${o.address}]` : o.address;
  return {
    url: `http://${host}:${port}/${token}/`,
    port,
    facts: () => feed.facts,
    stop: async () => {
      live.stop();
      feed.stop();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/**
 * The path below the token (`/<token>/app.js` → `/app.js`), or undefined when the token is wrong.
 * The token is the URL's first segment, so the page's relative links (style, script, events, API)
 * all carry it; writes must also repeat it in a header (a form on another site cannot set one).
 * Compared in constant time.
 */
function authorisedPath(req: http.IncomingMessage, url: URL, token: string): string | undefined {
  const [, given = '', ...rest] = url.pathname.split('/');
  const header = req.headers['x-nodenet-token'];
  if (req.method !== 'GET' && header !== token) return undefined;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  if (a.length !== b.length || !timingSafeEqual(a, b)) return undefined;
  return `/${rest.join('/')}`;
}

/** The routes; each request must pass the token check first. */
function handler(ctx: {
  o: DashboardOptions & { now: () => number };
  token: string;
  assets: Map<string, { body: Buffer; type: string }>;
  live: LiveState;
  feed: FactsFeed;
}): (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void> {
  const { o, token, assets, live, feed } = ctx;
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://dashboard.invalid');
    const path = authorisedPath(req, url, token);
    if (path === undefined) {
      json(res, 403, {
        message: 'forbidden: open the URL `kubectl nodenet dashboard` printed (it carries the token)',
      });
      return;
    }
    const asset = req.method === 'GET' ? assets.get(path) : undefined;
    if (asset) {
      res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': asset.type });
      res.end(asset.body);
      return;
    }
    if (req.method === 'GET' && path === '/events') {
      if (feed.full) {
        json(res, 503, { message: `too many open pages (at most ${MAX_PAGES})` });
        return;
      }
      res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': 'text/event-stream' });
      feed.add(res);
      return;
    }
    if (req.method === 'GET' && path === '/api/node') {
      try {
        json(res, 200, nodeDetail(live.state(), url.searchParams.get('name') ?? '', o.now()));
      } catch (err) {
        if (!(err instanceof CliError)) throw err;
        json(res, 404, { message: err.message });
      }
      return;
    }
    if (req.method === 'POST' && (path === '/api/confirm' || path === '/api/control')) {
      let request;
      try {
        request = parseControlRequest(JSON.parse(await readBody(req)));
      } catch (err) {
        json(res, 400, { message: err instanceof Error ? err.message : String(err) });
        return;
      }
      if (path === '/api/confirm') json(res, 200, { text: confirmation(request) });
      else json(res, 200, await performControl(o.clients, request, new Date(o.now())));
      return;
    }
    json(res, 404, { message: `no such page: ${req.method ?? ''} ${path}` });
  };
}

const SECURITY_HEADERS = {
  'Cache-Control': 'no-store',
  // The page loads only itself: no CDN, no inline script, no frame around it.
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  // The token is in the URL: never send it on as a Referer.
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
};

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  if (!/^application\/json\b/.test(req.headers['content-type'] ?? ''))
    throw new CliError('Content-Type: must be application/json', EXIT.usage);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new CliError(`body: larger than ${MAX_BODY_BYTES} bytes`, EXIT.usage);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
