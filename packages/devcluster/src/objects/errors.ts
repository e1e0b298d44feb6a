/**
 * Kubernetes `Status` errors. Every failure the server answers is an ApiError carrying the same
 * reason / code / details a real kube-apiserver would send, so clients branch on them unchanged.
 */

export interface StatusCause {
  reason: string;
  message: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, unknown>;
  status: 'Failure' | 'Success';
  message: string;
  reason: string;
  details?: StatusDetails;
  code: number;
}

export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toStatus(): Status {
    const s: Status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      code: this.code,
    };
    // Errors passed on from storage (etcd) carry no reason.
    if (!this.reason) delete (s as Partial<Status>).reason;
    if (this.details) s.details = this.details;
    return s;
  }
}

/** `<resource>.<group>` as the API server names a resource in messages (group omitted for core). */
export function qualifiedResource(plural: string, group: string): string {
  return group ? `${plural}.${group}` : plural;
}

export function notFound(plural: string, group: string, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${qualifiedResource(plural, group)} "${name}" not found`, {
    name,
    group,
    kind: plural,
  });
}

export function alreadyExists(plural: string, group: string, name: string): ApiError {
  return new ApiError(409, 'AlreadyExists', `${qualifiedResource(plural, group)} "${name}" already exists`, {
    name,
    group,
    kind: plural,
  });
}

export function conflict(plural: string, group: string, name: string, why: string): ApiError {
  return new ApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedResource(plural, group)} "${name}": ${why}`,
    { name, group, kind: plural },
  );
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

export function methodNotAllowed(
  message = 'the server does not allow this method on the requested resource',
): ApiError {
  return new ApiError(405, 'MethodNotAllowed', message);
}

export function gone(message: string): ApiError {
  return new ApiError(410, 'Expired', message);
}

/** One field error, formatted like k8s.io/apimachinery field.Error. */
export interface FieldError {
  type:
    | 'FieldValueInvalid'
    | 'FieldValueRequired'
    | 'FieldValueNotSupported'
    | 'FieldValueTooLong'
    | 'FieldValueTooMany'
    | 'FieldValueForbidden'
    | 'FieldValueDuplicate';
  field: string;
  /** The detail after the "<field>: " prefix, e.g. `Invalid value: 0: spec.vni in body should be ...`. */
  message: string;
}

/** 422 Invalid with one cause per field error, message formatted like the real server. */
export function invalid(kind: string, group: string, name: string, errors: FieldError[]): ApiError {
  const parts = errors.map((e) => `${e.field}: ${e.message}`);
  const joined = parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
  const qualifiedKind = group ? `${kind}.${group}` : kind;
  return new ApiError(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${joined}`, {
    name,
    group,
    kind,
    causes: errors.map((e) => ({ reason: e.type, message: e.message, field: e.field })),
  });
}

/** Go's %v rendering of a JSON value inside field error messages. */
export function renderValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}
