/**
 * The default API-server probe: one GET on a brand-new connection (no keep-alive agent, so a pooled
 * socket opened before the apply cannot make a dead path look alive), with a short timeout.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import type { ApiServerProbe } from './checker.js';

export interface ApiServerEndpoint {
  /** Base URL of the API server, e.g. https://10.0.0.1:6443 (from the kubeconfig or in-cluster). */
  server: string;
  /** TLS and auth material, as @kubernetes/client-node's `applyToHTTPSOptions` produces it. */
  tls?: Pick<RequestOptions, 'ca' | 'cert' | 'key' | 'rejectUnauthorized'>;
  headers?: Record<string, string>;
  /** Path to GET. `/version` is readable by every authenticated client. */
  path?: string;
}

export class ApiServerProbeError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ApiServerProbeError';
  }
}

export function httpApiServerProbe(endpoint: ApiServerEndpoint): ApiServerProbe {
  const base = new URL(endpoint.server);
  return (timeoutMs) =>
    new Promise<void>((resolve, reject) => {
      const url = new URL(endpoint.path ?? '/version', base);
      const options: RequestOptions = {
        method: 'GET',
        agent: false, // a fresh connection every time
        headers: { accept: 'application/json', connection: 'close', ...endpoint.headers },
        ...(url.protocol === 'https:' ? endpoint.tls : {}),
      };
      const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, options, (res) => {
        // Any HTTP answer proves the API server is reachable and serving; 401/403 only mean the
        // probe's credentials are limited, not that the network is broken.
        res.resume();
        if ((res.statusCode ?? 0) >= 500) {
          reject(new ApiServerProbeError(`API server answered HTTP ${res.statusCode} on ${url.pathname}`));
        } else {
          resolve();
        }
      });
      request.setTimeout(timeoutMs, () => {
        request.destroy(new ApiServerProbeError(`no answer from ${base.host} within ${timeoutMs} ms`));
      });
      request.once('error', (cause) => {
        reject(
          cause instanceof ApiServerProbeError
            ? cause
            : new ApiServerProbeError(`cannot reach ${base.host}: ${cause.message}`, { cause }),
        );
      });
      request.end();
    });
}
