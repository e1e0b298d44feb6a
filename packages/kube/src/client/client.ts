/**
 * A small REST client for the Kubernetes API on top of @kubernetes/client-node's KubeConfig (which
 * does the authentication and TLS setup) and its Watch (the streaming part). Requests are plain JSON
 * in and out: the generated typed clients turn timestamps into Date objects for lists but not for
 * watch events, and every nodenet type is plain JSON, so one representation is used throughout.
 */
import http from 'node:http';
import https from 'node:https';
import { KubeConfig, Watch } from '@kubernetes/client-node';
import { KubeApiError, KubeTransportError } from './errors.js';

export type Verb = 'get' | 'list' | 'create' | 'update' | 'patch' | 'delete' | 'watch';

export interface RequestInfo {
  verb: Verb;
  method: string;
  path: string;
  statusCode?: number;
  durationMs: number;
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  verb?: Verb;
  /** Request timeout; default 30 s. */
  timeoutMs?: number;
}

/** How long the kubeconfig's request options are reused (authOptions). */
const AUTH_REUSE_MS = 1_000;

export class KubeClient {
  readonly server: string;
  /** The server's URL parsed once: a request names its host and path in options, not a URL parsed per request. */
  private readonly target: Target;
  private readonly agent: http.Agent;
  private readonly proxied: boolean;
  private readonly watcher: Watch;
  private readonly listeners: ((info: RequestInfo) => void)[] = [];
  /** What the kubeconfig adds to a request (auth, TLS material), worked out at most once a second. */
  private auth?: { at: number; options: Promise<https.RequestOptions> };
  /** Requests sent, by verb (watches counted when opened); read by benchmarks and metrics. */
  readonly requestCounts: Record<Verb, number> = {
    get: 0,
    list: 0,
    create: 0,
    update: 0,
    patch: 0,
    delete: 0,
    watch: 0,
  };

  constructor(readonly kubeConfig: KubeConfig) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    this.server = cluster.server.replace(/\/+$/, '');
    this.proxied = Boolean(cluster.proxyUrl);
    this.target = targetOf(this.server);
    const isHttps = this.server.startsWith('https:');
    this.agent = isHttps
      ? new https.Agent({ keepAlive: true, maxSockets: 128 })
      : new http.Agent({ keepAlive: true, maxSockets: 128 });
    this.watcher = new Watch(kubeConfig);
  }

  /** Called after every request with its outcome (metrics, request counting). */
  onRequest(listener: (info: RequestInfo) => void): void {
    this.listeners.push(listener);
  }

  get totalRequests(): number {
    return Object.values(this.requestCounts).reduce((a, b) => a + b, 0);
  }

  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const verb = opts.verb ?? defaultVerb(method);
    this.requestCounts[verb]++;
    const body = opts.body === undefined ? undefined : Buffer.from(JSON.stringify(opts.body));
    const auth = await this.authOptions();
    const options: https.RequestOptions = {
      ...auth,
      method,
      // The kubeconfig's Agent is a proxy's when one is set (the transport: kept); otherwise this
      // client's keep-alive agent (applyToHTTPSOptions would make a new Agent, a new connection).
      agent: this.proxied ? auth.agent : this.agent,
      headers: {
        ...auth.headers,
        accept: 'application/json',
        ...(body
          ? { 'content-type': opts.contentType ?? 'application/json', 'content-length': body.length }
          : {}),
      },
      timeout: opts.timeoutMs ?? 30_000,
      ...this.target.location(path, opts.query),
    };
    const started = performance.now();
    const mod = this.target.protocol === 'https:' ? https : http;
    let statusCode: number | undefined;
    try {
      const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = mod.request(options, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
          );
          res.on('error', reject);
        });
        req.on('timeout', () => req.destroy(new Error(`timed out after ${options.timeout} ms`)));
        req.on('error', reject);
        if (body) req.write(body);
        req.end();
      }).catch((err: unknown) => {
        throw new KubeTransportError(method, path, err);
      });
      statusCode = status;
      // Rejected credentials: the next request asks the kubeconfig again (a rotated token, a new cert).
      if (status === 401) this.auth = undefined;
      const parsed: unknown = text.length > 0 ? safeJson(text) : undefined;
      if (status < 200 || status >= 300) {
        const s = (parsed ?? {}) as { reason?: string; message?: string };
        throw new KubeApiError({
          method,
          path,
          statusCode: status,
          reason: s.reason,
          serverMessage: s.message ?? text.slice(0, 500),
        });
      }
      return parsed as T;
    } finally {
      const info: RequestInfo = { verb, method, path, durationMs: performance.now() - started };
      if (statusCode !== undefined) info.statusCode = statusCode;
      for (const l of this.listeners) l(info);
    }
  }

  /**
   * The options `applyToHTTPSOptions` adds (auth headers, CA, client certificate), kept for up to
   * AUTH_REUSE_MS on this process's monotonic clock. It builds them afresh on every call (decodes
   * the CA and certificate, makes a new Agent): that was ~0.1 ms of CPU per request, a fifth of the
   * configurator's per-node cost in a rollout. A second is far inside any credential's lifetime;
   * a 401 drops them at once.
   */
  private authOptions(): Promise<https.RequestOptions> {
    const now = performance.now();
    if (this.auth === undefined || now - this.auth.at >= AUTH_REUSE_MS) {
      const options: https.RequestOptions = { headers: {} };
      const ready = this.kubeConfig.applyToHTTPSOptions(options).then(() => options);
      this.auth = { at: now, options: ready };
      // A failure is not kept: the next request tries again.
      ready.catch(() => {
        if (this.auth?.options === ready) this.auth = undefined;
      });
    }
    return this.auth.options;
  }

  /**
   * Opens a watch stream; `onEvent` gets each event, `onDone` is called once when the stream ends
   * (null when the server closed it normally). Returns a function that aborts the stream.
   */
  async watch(
    path: string,
    query: Record<string, string | number | boolean | undefined>,
    onEvent: (type: string, object: unknown) => void,
    onDone: (err: unknown) => void,
  ): Promise<() => void> {
    this.requestCounts.watch++;
    for (const l of this.listeners) l({ verb: 'watch', method: 'GET', path, durationMs: 0 });
    const controller = await this.watcher.watch(path, query, (type, obj) => onEvent(type, obj), onDone);
    return () => controller.abort();
  }

  /** Closes idle keep-alive connections. */
  close(): void {
    this.agent.destroy();
  }
}

type Query = RequestOptions['query'];

/** Where requests go: the server's protocol, host and port, and each request's path (with its query). */
interface Target {
  protocol: string;
  location(
    path: string,
    query: Query,
  ): Pick<https.RequestOptions, 'protocol' | 'hostname' | 'port' | 'path' | 'auth'>;
}

/** A path that needs no escaping: it goes as it is (the object paths resources.ts builds are encoded). */
const PLAIN_PATH = /^\/[\x21-\x7e]*$/;

/**
 * The request location of `server` + path, as `new URL(server + path)` with the query set would
 * give it; the server is parsed once, and only a path with characters to escape is parsed per request.
 */
function targetOf(server: string): Target {
  const base = new URL(server);
  const common = {
    protocol: base.protocol,
    // As url.urlToHttpOptions does: an IPv6 literal without its brackets.
    hostname: base.hostname.startsWith('[') ? base.hostname.slice(1, -1) : base.hostname,
    ...(base.port !== '' ? { port: Number(base.port) } : {}),
    ...(base.username !== '' || base.password !== ''
      ? { auth: `${decodeURIComponent(base.username)}:${decodeURIComponent(base.password)}` }
      : {}),
  };
  const prefix = base.pathname.replace(/\/+$/, '');
  return {
    protocol: base.protocol,
    location(path, query) {
      const entries = Object.entries(query ?? {}).flatMap(([k, v]) =>
        v === undefined ? [] : [[k, String(v)] as [string, string]],
      );
      if (!PLAIN_PATH.test(path) || /[?#]|\/\./.test(path)) {
        const url = new URL(server + path);
        for (const [k, v] of entries) url.searchParams.set(k, v);
        return { ...common, path: url.pathname + url.search };
      }
      const search = entries.length > 0 ? `?${new URLSearchParams(entries).toString()}` : '';
      return { ...common, path: prefix + path + search };
    },
  };
}

function defaultVerb(method: string): Verb {
  switch (method) {
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return 'delete';
    default:
      return 'get';
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { message: text.slice(0, 500) };
  }
}
