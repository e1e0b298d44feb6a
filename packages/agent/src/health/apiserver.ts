/**
 * The default API-server probe: one GET on a brand-new connection (no keep-alive agent, so a pooled
 * socket opened before the apply cannot make a dead path look alive), with a short timeout.
 *
 * It succeeds only on a completed exchange (TLS when the server is https, then an HTTP answer read to
 * its end) with the configured server. A refused connection, a reset, a timeout, or an answer from an
 * address on this very host (a change put the API server's address on a local device, so the node
 * answers itself) is a failure whose message says which.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { Socket } from 'node:net';
import type { ApiServerProbe } from './checker.js';

export interface ApiServerEndpoint {
  /** Base URL of the API server, e.g. https://10.0.0.1:6443 (from the kubeconfig or in-cluster). */
  server: string;
  /** TLS and auth material, as @kubernetes/client-node's `applyToHTTPSOptions` produces it. */
  tls?: Pick<RequestOptions, 'ca' | 'cert' | 'key' | 'rejectUnauthorized'>;
  headers?: Record<string, string>;
  /** Path to GET. `/version` is readable by every authenticated client. */
  path?: string;
  /**
   * Whether the API server legitimately runs on this host (a control-plane node; a test on
   * loopback), as seen at start-up. Default: the server's host is a loopback address. When false, an
   * answer from an address of this host is a failure.
   */
  serverIsLocal?: boolean;
  /** The addresses of this host now (default: `os.networkInterfaces()`). */
  localAddresses?: () => Set<string>;
}

export type ApiProbeFailure = 'refused' | 'reset' | 'timeout' | 'local-answer' | 'server-error' | 'error';

export class ApiServerProbeError extends Error {
  constructor(
    message: string,
    readonly kind: ApiProbeFailure = 'error',
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ApiServerProbeError';
  }
}

/** Every address on this host's interfaces (in this network namespace), without IPv6 zone ids. */
export function hostAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(networkInterfaces()))
    for (const a of list ?? []) out.add(a.address.replace(/%.*$/, ''));
  return out;
}

const unmapped = (address: string): string => address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');

export const isLoopbackAddress = (address: string): boolean => {
  const a = unmapped(address);
  return a === '::1' || (isIP(a) === 4 && a.startsWith('127.'));
};

/** Whether `host` (an address or a name) is a loopback address literal or `localhost`. */
const loopbackHost = (host: string): boolean =>
  host === 'localhost' || isLoopbackAddress(host.replace(/^\[|\]$/g, ''));

export function httpApiServerProbe(endpoint: ApiServerEndpoint): ApiServerProbe {
  const base = new URL(endpoint.server);
  const serverIsLocal = endpoint.serverIsLocal ?? loopbackHost(base.hostname);
  const localAddresses = endpoint.localAddresses ?? hostAddresses;
  return (timeoutMs) =>
    new Promise<void>((resolve, reject) => {
      const url = new URL(endpoint.path ?? '/version', base);
      const options: RequestOptions = {
        method: 'GET',
        agent: false, // a fresh connection every time
        headers: { accept: 'application/json', connection: 'close', ...endpoint.headers },
        ...(url.protocol === 'https:' ? endpoint.tls : {}),
      };
      let peer: string | undefined;
      // The first outcome settles the promise; whatever the socket reports after it is ignored.
      const fail = (message: string, kind: ApiProbeFailure): void => {
        reject(new ApiServerProbeError(message, kind));
        request.destroy();
      };
      const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, options, (res) => {
        peer ??= res.socket.remoteAddress;
        if (!serverIsLocal && peer && (isLoopbackAddress(peer) || localAddresses().has(unmapped(peer)))) {
          fail(
            `answered by this host itself (${peer} is an address of this node), not by the API server at ${base.host}`,
            'local-answer',
          );
          return;
        }
        const status = res.statusCode ?? 0;
        // Read the answer to its end: the exchange is complete only then.
        res.resume();
        res.once('end', () => {
          // Any answer below 500 proves the API server is reachable and serving; 401/403 only mean
          // the probe's credentials are limited, not that the network is broken.
          if (status >= 500)
            reject(
              new ApiServerProbeError(
                `API server answered HTTP ${status} on ${url.pathname}`,
                'server-error',
              ),
            );
          else resolve();
        });
        res.once('error', (cause) => reject(describeSocketError(cause, base.host)));
      });
      request.once('socket', (socket: Socket) =>
        socket.once('connect', () => {
          peer = socket.remoteAddress;
        }),
      );
      request.setTimeout(timeoutMs, () =>
        fail(`no answer from ${base.host} within ${timeoutMs} ms`, 'timeout'),
      );
      request.once('error', (cause) => reject(describeSocketError(cause, base.host)));
      request.end();
    });
}

/** The probe's error for what the socket or TLS layer reported, naming which failure it was. */
function describeSocketError(cause: Error, host: string): ApiServerProbeError {
  if (cause instanceof ApiServerProbeError) return cause;
  const code = errorCode(cause);
  if (code === 'ECONNREFUSED')
    return new ApiServerProbeError(
      `connection refused by ${host} (nothing listens there, or its address is on a device of this node)`,
      'refused',
      { cause },
    );
  if (code === 'ECONNRESET' || code === 'EPIPE')
    return new ApiServerProbeError(`connection reset by ${host} before an answer`, 'reset', { cause });
  return new ApiServerProbeError(`cannot reach ${host}: ${cause.message}`, 'error', { cause });
}

/** The errno code of `err`, or of the first per-address error of a happy-eyeballs AggregateError. */
function errorCode(err: unknown): string | undefined {
  const code = (err as NodeJS.ErrnoException).code;
  if (code) return code;
  if (err instanceof AggregateError)
    for (const inner of err.errors) {
      const c = errorCode(inner);
      if (c) return c;
    }
  return undefined;
}
