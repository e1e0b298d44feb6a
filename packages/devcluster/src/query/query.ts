/**
 * Query parameters parsed as kube-apiserver parses them (apimachinery's query parameter conversion
 * and ListOptions validation), so that every client gets the same answer as from a real cluster:
 * a boolean is true for any value but `0` and `false` (any case) — the Python client sends
 * `watch=True` — and integers that do not parse, or list options that do not go together, are
 * refused with the parameter named instead of being ignored.
 */
import { ApiError, badRequest } from '../objects/errors.js';

export type ResourceVersionMatch = 'NotOlderThan' | 'Exact';

export interface ListOptions {
  watch: boolean;
  allowWatchBookmarks: boolean;
  /** Set only when the client sent the parameter. */
  sendInitialEvents?: boolean;
  resourceVersion?: string;
  resourceVersionMatch?: ResourceVersionMatch;
  limit: number;
  timeoutSeconds: number;
  continue?: string;
}

/** kube-apiserver's rule: absent → undefined; `0` or `false` (any case) → false; anything else → true. */
export function queryBool(q: URLSearchParams, name: string): boolean | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  return !(v === '0' || v.toLowerCase() === 'false');
}

/** A base-10 integer parameter; a value that does not parse is a 400 naming it. */
export function queryInt(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^[+-]?[0-9]+$/.test(v)) {
    throw badRequest(
      `invalid value for query parameter ${name}: strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`,
    );
  }
  return Number(v);
}

/**
 * The list/watch options of a request, validated like apimachinery's ValidateListOptions (errors
 * are 422 `ListOptions.meta.k8s.io "" is invalid`, one cause per field).
 */
export function parseListOptions(q: URLSearchParams, watchRoute: boolean): ListOptions {
  const watch = watchRoute || queryBool(q, 'watch') === true;
  const sendInitialEvents = queryBool(q, 'sendInitialEvents');
  const match = q.get('resourceVersionMatch') || undefined;
  const resourceVersion = q.get('resourceVersion') || undefined;
  const cont = q.get('continue') || undefined;
  const opts: ListOptions = {
    watch,
    allowWatchBookmarks: queryBool(q, 'allowWatchBookmarks') === true,
    limit: queryInt(q, 'limit') ?? 0,
    timeoutSeconds: queryInt(q, 'timeoutSeconds') ?? 0,
    ...(sendInitialEvents !== undefined ? { sendInitialEvents } : {}),
    ...(resourceVersion !== undefined ? { resourceVersion } : {}),
    ...(cont !== undefined ? { continue: cont } : {}),
  };
  const sent: SentOptions = { match, sendInitialEvents, resourceVersion, cont };
  if (match === 'NotOlderThan' || match === 'Exact') opts.resourceVersionMatch = match;
  const causes = [...matchCauses(opts, sent), ...initialEventsCauses(opts, sent)];
  if (opts.limit < 0)
    causes.push({
      field: 'limit',
      message: `Invalid value: ${opts.limit}: must be greater than or equal to 0`,
    });
  if (causes.length > 0) throw invalidListOptions(causes);
  return opts;
}

/** The parameters as the client sent them (undefined: absent). */
interface SentOptions {
  match: string | undefined;
  sendInitialEvents: boolean | undefined;
  resourceVersion: string | undefined;
  cont: string | undefined;
}

interface Cause {
  field: string;
  message: string;
}

const forbidden = (field: string, detail: string): Cause => ({ field, message: `Forbidden: ${detail}` });

/** resourceVersionMatch: a supported value, and only with the options it goes with. */
function matchCauses(opts: ListOptions, sent: SentOptions): Cause[] {
  const { match, sendInitialEvents, resourceVersion, cont } = sent;
  if (match === undefined) return [];
  if (opts.resourceVersionMatch === undefined)
    return [
      {
        field: 'resourceVersionMatch',
        message: `Unsupported value: "${match}": supported values: "Exact", "NotOlderThan", ""`,
      },
    ];
  const causes: Cause[] = [];
  if (opts.watch && sendInitialEvents === undefined)
    causes.push(
      forbidden(
        'resourceVersionMatch',
        'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
      ),
    );
  if (!opts.watch && resourceVersion === undefined)
    causes.push(
      forbidden(
        'resourceVersionMatch',
        'resourceVersionMatch is forbidden unless resourceVersion is provided',
      ),
    );
  if (cont !== undefined)
    causes.push(
      forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'),
    );
  if (match === 'Exact' && resourceVersion === '0')
    causes.push(
      forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'),
    );
  return causes;
}

/** sendInitialEvents: on a watch only, with resourceVersionMatch NotOlderThan and bookmarks. */
function initialEventsCauses(opts: ListOptions, sent: SentOptions): Cause[] {
  if (sent.sendInitialEvents === undefined) return [];
  if (!opts.watch) return [forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list')];
  const causes: Cause[] = [];
  // An unsupported resourceVersionMatch was reported already.
  const unsupported = sent.match !== undefined && opts.resourceVersionMatch === undefined;
  if (!unsupported && opts.resourceVersionMatch !== 'NotOlderThan')
    causes.push(
      forbidden(
        'resourceVersionMatch',
        'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
      ),
    );
  if (!opts.allowWatchBookmarks)
    causes.push(
      forbidden('allowWatchBookmarks', 'sendInitialEvents requires setting allowWatchBookmarks to true'),
    );
  return causes;
}

/** The 422 of apimachinery's ValidateListOptions, one cause per field. */
function invalidListOptions(causes: Cause[]): ApiError {
  return new ApiError(
    422,
    'Invalid',
    `ListOptions.meta.k8s.io "" is invalid: ${causes.map((c) => `${c.field}: ${c.message}`).join(', ')}`,
    {
      kind: 'ListOptions',
      group: 'meta.k8s.io',
      name: '',
      causes: causes.map((c) => ({
        reason: c.message.startsWith('Forbidden')
          ? 'FieldValueForbidden'
          : c.message.startsWith('Unsupported')
            ? 'FieldValueNotSupported'
            : 'FieldValueInvalid',
        message: c.message,
        field: c.field,
      })),
    },
  );
}
