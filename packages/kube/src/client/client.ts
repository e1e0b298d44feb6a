/**
 * A small REST client for the Kubernetes API on top of @kubernetes/client-node's KubeConfig (which
 * does the authentication and TLS setup); watches are read by watch-stream.ts over the same
 * connection options. Requests are plain JSON in and out: the generated typed clients turn
 * timestamps into Date objects for lists but not for watch events, and every nodenet type is plain
 * JSON, so one representation is used throughout.
 */
import http from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeApiError, KubeTransportError } from './errors.js';
import { apiErrorOf, jsonOrMessage } from './answer.js';
import { openWatch } from './watch-stream.js';

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
  /** Idle timeout (no byte for this long); default 30 s. */
  timeoutMs?: number;
}

/**
 * Bounds on one answer (issue #37): a server may send any size at any pace. Past MAX_RESPONSE_BYTES
 * the request is cut (a 700 MB list grew the plugin to 2.8 GB); past REQUEST_DEADLINE_MS in total
 * it is cut however steadily bytes drip in (the idle timeout alone let one byte per 20 s hold it).
 */
export const MAX_RESPONSE_BYTES = 256 * 1024 * 1024;
export const REQUEST_DEADLINE_MS = 120_000;

/** How long the kubeconfig's request options are reused (sharedOptions). */
const AUTH_REUSE_MS = 1_000;

export class KubeClient {
  readonly server: string;
  /** The server's URL parsed once: a request names its host and path in options, not a URL parsed per request. */
  private readonly target: Target;
  private readonly agent: http.Agent;
  private readonly proxied: boolean;
  private readonly listeners: ((info: RequestInfo) => void)[] = [];
  private readonly transport: typeof http | typeof https;
  /** What every request carries (auth, TLS material, headers), worked out at most once a second. */
  private shared?: SharedEntry;
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

  /** The answer bounds (MAX_RESPONSE_BYTES, REQUEST_DEADLINE_MS); tests set lower ones. */
  limits = { maxResponseBytes: MAX_RESPONSE_BYTES, deadlineMs: REQUEST_DEADLINE_MS };

  constructor(readonly kubeConfig: KubeConfig) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    this.server = cluster.server.replace(/\/+$/, '');
    this.proxied = Boolean(cluster.proxyUrl);
    this.target = targetOf(this.server);
    const isHttps = this.server.startsWith('https:');
    this.transport = isHttps ? https : http;
    this.agent = isHttps
      ? new https.Agent({ keepAlive: true, maxSockets: 128 })
      : new http.Agent({ keepAlive: true, maxSockets: 128 });
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
    const shared = this.freshShared() ?? (await this.sharedOptions());
    const timeout = opts.timeoutMs ?? 30_000;
    const options: https.RequestOptions = {
      ...shared.options,
      method,
      path: this.target.path(path, opts.query),
      headers: body ? shared.withBody(opts.contentType ?? 'application/json', body.length) : shared.headers,
      timeout,
    };
    const started = performance.now();
    let statusCode: number | undefined;
    try {
      const answer = await this.send(options, body);
      statusCode = answer.status;
      // Rejected credentials: the next request asks the kubeconfig again (a rotated token, a new cert).
      if (answer.status === 401) this.shared = undefined;
      return answerOf<T>(method, path, answer);
    } catch (err) {
      throw err instanceof KubeApiError ? err : new KubeTransportError(method, path, err);
    } finally {
      const info: RequestInfo = { verb, method, path, durationMs: performance.now() - started };
      if (statusCode !== undefined) info.statusCode = statusCode;
      for (const l of this.listeners) l(info);
    }
  }

  /** One HTTP exchange: the status and the body's text. */
  private send(options: https.RequestOptions, body: Buffer | undefined): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      const deadline = setTimeout(
        () => req.destroy(new Error(`no whole answer within ${this.limits.deadlineMs} ms`)),
        this.limits.deadlineMs,
      );
      const req = this.transport.request(options, (res) => {
        let first: Buffer | undefined;
        let more: Buffer[] | undefined;
        let size = 0;
        let cut = false;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > this.limits.maxResponseBytes) {
            cut = true;
            reject(new Error(`answer larger than ${this.limits.maxResponseBytes} bytes`));
            req.destroy();
            return;
          }
          if (first === undefined) first = c;
          else (more ??= [first]).push(c);
        });
        res.on('end', () => {
          clearTimeout(deadline);
          if (cut) return;
          const all = more ? Buffer.concat(more) : first;
          resolve({ status: res.statusCode ?? 0, text: all ? all.toString('utf8') : '' });
        });
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`timed out after ${options.timeout} ms`)));
      req.on('error', (err) => {
        clearTimeout(deadline);
        reject(err);
      });
      req.on('close', () => clearTimeout(deadline));
      req.end(body);
    });
  }

  /** The shared options when they are young enough to reuse without asking the kubeconfig. */
  private freshShared(): SharedOptions | undefined {
    const s = this.shared;
    return s?.value !== undefined && performance.now() - s.at < AUTH_REUSE_MS ? s.value : undefined;
  }

  /**
   * What every request shares (sharedOf), worked out from the options `applyToHTTPSOptions` adds
   * (auth headers, CA, client certificate) and kept for up to AUTH_REUSE_MS on this process's
   * monotonic clock. It builds them afresh on every call (decodes the CA and certificate, makes a
   * new Agent): that was ~0.1 ms of CPU per request, a fifth of the configurator's per-node cost in
   * a rollout. A second is far inside any credential's lifetime; a 401 drops them at once.
   */
  private sharedOptions(): Promise<SharedOptions> {
    const now = performance.now();
    if (this.shared === undefined || now - this.shared.at >= AUTH_REUSE_MS) {
      const auth: https.RequestOptions = { headers: {} };
      const entry: SharedEntry = {
        at: now,
        ready: this.kubeConfig.applyToHTTPSOptions(auth).then(() => {
          const value = sharedOf(auth, { target: this.target, agent: this.agent, proxied: this.proxied });
          entry.value = value;
          return value;
        }),
      };
      this.shared = entry;
      // A failure is not kept: the next request tries again.
      entry.ready.catch(() => {
        if (this.shared === entry) this.shared = undefined;
      });
    }
    return this.shared.ready;
  }

  /**
   * Opens a watch stream; `onEvent` gets each event, `onDone` is called once when the stream ends
   * (null when the server closed it normally; a KubeApiError with the status when it answered other
   * than 200, e.g. 410 Gone). Returns a function that aborts the stream. It has the requests'
   * credentials and agent; the request timeout bounds the wait for the answer, not the stream.
   */
  async watch(
    path: string,
    query: Record<string, string | number | boolean | undefined>,
    onEvent: (type: string, object: unknown) => void,
    onDone: (err: unknown) => void,
  ): Promise<() => void> {
    this.requestCounts.watch++;
    for (const l of this.listeners) l({ verb: 'watch', method: 'GET', path, durationMs: 0 });
    const shared = this.freshShared() ?? (await this.sharedOptions());
    const options: https.RequestOptions = {
      ...shared.options,
      method: 'GET',
      path: this.target.path(path, { watch: true, ...query }),
      headers: shared.headers,
      timeout: 30_000,
    };
    return openWatch(this.transport, options, {
      onEvent,
      onDone: (err) => {
        // As for a request: rejected credentials are asked for again before the watch is re-opened.
        if (err instanceof KubeApiError && err.statusCode === 401) this.shared = undefined;
        onDone(err);
      },
    });
  }

  /** Closes idle keep-alive connections. */
  close(): void {
    this.agent.destroy();
  }
}

type Query = RequestOptions['query'];

/** An HTTP answer: its status and its body's text. */
interface Answer {
  status: number;
  text: string;
}

/** The parsed body of a 2xx answer; a KubeApiError (with the Status's reason and message) otherwise. */
function answerOf<T>(method: string, path: string, { status, text }: Answer): T {
  if (status < 200 || status >= 300) throw apiErrorOf({ method, path, status, text });
  return (text.length > 0 ? jsonOrMessage(text) : undefined) as T;
}

/** Header lines as http.request takes them: an object, or a flat name, value, name, value… list. */
type Headers = http.OutgoingHttpHeaders | string[];

/** What every request carries until the kubeconfig is asked again. */
interface SharedOptions {
  /** The kubeconfig's options (TLS material), the agent and the server, without headers. */
  options: https.RequestOptions;
  /** The headers of a request without a body. */
  headers: Headers;
  /** The headers of a request with a body of this type and length. */
  withBody(contentType: string, length: number): Headers;
}

interface SharedEntry {
  at: number;
  ready: Promise<SharedOptions>;
  value?: SharedOptions;
}

/** Headers a request sets itself: the kubeconfig's are not sent beside them. */
const OWN_HEADERS = new Set(['accept', 'content-type', 'content-length']);

/**
 * The shared options from what `applyToHTTPSOptions` gave. Without a proxy the headers are a flat
 * list, which http.request writes as it is instead of setting (and checking) each header of an
 * object per request; it then adds neither Host nor the Basic authorization of `auth`, so the list
 * carries them, as http.request would have: Host from the server, Basic only without another
 * Authorization header. A proxy's agent rewrites the request's headers, so it gets an object.
 */
function sharedOf(
  auth: https.RequestOptions,
  via: { target: Target; agent: http.Agent; proxied: boolean },
): SharedOptions {
  const { headers: kubeHeaders = {}, agent: kubeAgent, auth: kubeUserinfo, ...tls } = auth;
  const userinfo = via.target.userinfo ?? kubeUserinfo ?? undefined;
  const options: https.RequestOptions = {
    ...tls,
    ...via.target.server,
    // The kubeconfig's Agent is a proxy's when one is set (the transport: kept); otherwise this
    // client's keep-alive agent (applyToHTTPSOptions would make a new Agent, a new connection).
    agent: via.proxied ? kubeAgent : via.agent,
  };
  if (via.proxied) {
    const headers = { ...(kubeHeaders as http.OutgoingHttpHeaders), accept: 'application/json' };
    return {
      options: userinfo === undefined ? options : { ...options, auth: userinfo },
      headers,
      withBody: (type, length) => ({ ...headers, 'content-type': type, 'content-length': length }),
    };
  }
  const lines: string[] = [];
  for (const [name, value] of Object.entries(kubeHeaders as http.OutgoingHttpHeaders)) {
    if (value === undefined || OWN_HEADERS.has(name.toLowerCase())) continue;
    for (const v of Array.isArray(value) ? value : [value]) lines.push(name, String(v));
  }
  const named = (n: string): boolean => lines.some((x, i) => i % 2 === 0 && x.toLowerCase() === n);
  if (!named('host')) lines.push('host', via.target.host);
  if (userinfo !== undefined && !named('authorization'))
    lines.push('authorization', `Basic ${Buffer.from(userinfo).toString('base64')}`);
  lines.push('accept', 'application/json');
  return {
    options,
    headers: lines,
    withBody: (type, length) => [...lines, 'content-type', type, 'content-length', String(length)],
  };
}

/** Where requests go: the server (protocol, host, port, userinfo) and each request's path with its query. */
interface Target {
  server: Pick<https.RequestOptions, 'protocol' | 'hostname' | 'port'>;
  /** The Host header: the server's host, and its port unless the protocol's default. */
  host: string;
  /** `user:password` of the server URL, sent as Basic authorization. */
  userinfo: string | undefined;
  path(path: string, query: Query): string;
}

/**
 * A path that needs no escaping and has no query or fragment of its own: it goes as it is (the
 * object paths resources.ts builds are encoded).
 */
const PLAIN_PATH = /^\/[\x21\x22\x24-\x3e\x40-\x7e]*$/;

/**
 * The request target of `server` + path, as `new URL(server + path)` with the query set would
 * give it; the server is parsed once, and only a path with characters to escape is parsed per request.
 */
function targetOf(server: string): Target {
  const base = new URL(server);
  const prefix = base.pathname.replace(/\/+$/, '');
  return {
    server: {
      protocol: base.protocol,
      // As url.urlToHttpOptions does: an IPv6 literal without its brackets.
      hostname: base.hostname.startsWith('[') ? base.hostname.slice(1, -1) : base.hostname,
      ...(base.port !== '' ? { port: Number(base.port) } : {}),
    },
    host: base.host,
    userinfo:
      base.username !== '' || base.password !== ''
        ? `${decodeURIComponent(base.username)}:${decodeURIComponent(base.password)}`
        : undefined,
    path(path, query) {
      const entries: [string, string][] = [];
      if (query !== undefined)
        for (const [k, v] of Object.entries(query)) if (v !== undefined) entries.push([k, String(v)]);
      if (!PLAIN_PATH.test(path) || path.includes('/.')) {
        const url = new URL(server + path);
        for (const [k, v] of entries) url.searchParams.set(k, v);
        return url.pathname + url.search;
      }
      return entries.length > 0
        ? `${prefix}${path}?${new URLSearchParams(entries).toString()}`
        : prefix + path;
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
