/** An API server's answer read: its body parsed, its error made (module-private to the client). */
import { KubeApiError } from './errors.js';

/** An answer's body parsed, or (when it is no JSON) its first 500 characters as `message`. */
export function jsonOrMessage(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { message: text.slice(0, 500) };
  }
}

/** The KubeApiError of a non-2xx answer with this body. */
export function apiErrorOf(a: { method: string; path: string; status: number; text: string }): KubeApiError {
  const s = ((a.text.length > 0 ? jsonOrMessage(a.text) : undefined) ?? {}) as {
    reason?: string;
    message?: string;
  };
  return new KubeApiError({
    method: a.method,
    path: a.path,
    statusCode: a.status,
    reason: s.reason,
    serverMessage: s.message ?? a.text.slice(0, 500),
  });
}
