/**
 * The request target (`/path?query`) read as Go's net/http reads it for kube-apiserver, before any
 * handler, authentication included:
 *
 * - The path is percent-decoded once; a `%` not followed by two hex digits makes the whole request
 *   malformed, and Go's server answers it itself: `400 Bad Request` in plain text, connection
 *   closed (`url.ParseRequestURI` fails in `readRequest`). Nothing else sees such a request.
 * - The query is parsed as `url.ParseQuery` does and `Request.URL.Query()` keeps it: pairs split on
 *   `&`, `+` is a space, and a pair whose key or value has a bad escape, or that holds a `;`, is
 *   dropped (the rest of the query stays).
 *
 * Authorization (RequestInfo) and the handlers both read the result, so they see the same request.
 */

export interface RequestTarget {
  /** The decoded path, trailing slashes removed (`/` for the root). */
  path: string;
  query: URLSearchParams;
}

const isHex = (c: number): boolean =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

/** Go's `unescape`: the decoded text, or undefined for a malformed escape. */
function unescape(s: string, plusIsSpace: boolean): string | undefined {
  if (!s.includes('%') && !(plusIsSpace && s.includes('+'))) return s;
  const src = Buffer.from(s, 'utf8');
  const out = Buffer.alloc(src.length);
  let n = 0;
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (c === 0x25) {
      if (i + 2 >= src.length || !isHex(src[i + 1]!) || !isHex(src[i + 2]!)) return undefined;
      out[n++] = parseInt(String.fromCharCode(src[i + 1]!, src[i + 2]!), 16);
      i += 2;
    } else out[n++] = plusIsSpace && c === 0x2b ? 0x20 : c;
  }
  return out.subarray(0, n).toString('utf8');
}

/** `url.PathUnescape`: undefined for a malformed escape. */
export const pathUnescape = (s: string): string | undefined => unescape(s, false);

function parseQuery(raw: string): URLSearchParams {
  const q = new URLSearchParams();
  for (const pair of raw.split('&')) {
    if (pair === '' || pair.includes(';')) continue;
    const eq = pair.indexOf('=');
    const key = unescape(eq < 0 ? pair : pair.slice(0, eq), true);
    const value = unescape(eq < 0 ? '' : pair.slice(eq + 1), true);
    if (key === undefined || value === undefined) continue;
    q.append(key, value);
  }
  return q;
}

/** The request's path and query, or undefined when the target is malformed (answer with `badRequestTarget`). */
export function parseRequestTarget(rawUrl: string): RequestTarget | undefined {
  const at = rawUrl.indexOf('?');
  const rawPath = at < 0 ? rawUrl : rawUrl.slice(0, at);
  // An absolute-form target (`http://host/path`) is allowed by HTTP/1.1; its path is what counts.
  const pathPart = /^[a-z][a-z0-9+.-]*:\/\//i.test(rawPath)
    ? rawPath.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '') || '/'
    : rawPath;
  if (!pathPart.startsWith('/')) return undefined;
  const path = unescape(pathPart, false);
  if (path === undefined) return undefined;
  return { path: path.replace(/\/+$/, '') || '/', query: parseQuery(at < 0 ? '' : rawUrl.slice(at + 1)) };
}

/** Go's own answer to a malformed request line: plain text, and the connection closed. */
export const BAD_REQUEST_TARGET = {
  status: 400,
  headers: { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' },
  body: '400 Bad Request',
} as const;
