/**
 * The size limits of a real control plane. etcd refuses a request above `--max-request-bytes`
 * (1.5 MiB by default) and kube-apiserver passes its answer on as a 500 whose Status has no reason
 * ("etcdserver: request is too large"); kube-apiserver itself refuses a request body above 3 MiB
 * with 413 RequestEntityTooLarge before decoding it. devcluster stores custom resources and
 * built-in objects as JSON, so the stored size is the object's JSON.
 */
import { ApiError } from './errors.js';
import type { KObject } from './types.js';

/** etcd's default `--max-request-bytes`. */
export const DEFAULT_MAX_OBJECT_BYTES = 1_572_864;
/** kube-apiserver's `MaxRequestBodyBytes` (twice etcd's limit: JSON is larger than protobuf). */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

/** Throws what kube-apiserver answers when etcd refuses to store `obj`; `limit` 0: no limit. */
export function checkObjectSize(obj: KObject, limit: number): void {
  if (limit > 0 && Buffer.byteLength(JSON.stringify(obj)) > limit)
    throw new ApiError(500, '', 'etcdserver: request is too large');
}

export const requestEntityTooLarge = (): ApiError =>
  new ApiError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${MAX_REQUEST_BODY_BYTES}`);
