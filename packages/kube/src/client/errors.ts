/** Errors raised by the Kubernetes access layer; they carry the request and the server's answer. */
import { NodenetError } from '@nodenet/api';

/** The API server answered with a non-2xx status (a `metav1.Status` body when it sent one). */
export class KubeApiError extends NodenetError {
  readonly method: string;
  readonly path: string;
  /** HTTP status code, e.g. 404, 409, 410, 422. */
  readonly statusCode: number;
  /** `reason` of the Status body (NotFound, AlreadyExists, Conflict, Expired, Invalid…) when present. */
  readonly reason: string | undefined;
  readonly serverMessage: string;

  constructor(answer: KubeApiAnswer) {
    const { method, path, statusCode, reason, serverMessage } = answer;
    // The code is the Status reason (NotFound, Conflict…), or the HTTP status when the server gave none.
    super(
      reason ?? `Http${statusCode}`,
      `${method} ${path}: ${statusCode}${reason ? ` ${reason}` : ''}: ${serverMessage}`,
    );
    this.method = method;
    this.path = path;
    this.statusCode = statusCode;
    this.reason = reason;
    this.serverMessage = serverMessage;
  }
}

/** A request and the non-2xx answer the API server gave it. */
export interface KubeApiAnswer {
  method: string;
  path: string;
  statusCode: number;
  reason: string | undefined;
  serverMessage: string;
}

/** The request never got an answer (connection refused, reset, timeout). */
export class KubeTransportError extends NodenetError {
  constructor(
    readonly method: string,
    readonly path: string,
    override readonly cause: unknown,
  ) {
    super('Unreachable', `${method} ${path}: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
  }
}

export const isNotFound = (e: unknown): boolean => e instanceof KubeApiError && e.statusCode === 404;
export const isConflict = (e: unknown): boolean => e instanceof KubeApiError && e.statusCode === 409;
export const isAlreadyExists = (e: unknown): boolean =>
  e instanceof KubeApiError && e.statusCode === 409 && e.reason === 'AlreadyExists';
export const isGone = (e: unknown): boolean => e instanceof KubeApiError && e.statusCode === 410;
