/**
 * Streaming watches: initial events or resumption from a resourceVersion (410 once it is compacted),
 * bookmarks, timeouts, and cutting off watchers that fall too far behind.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Cluster } from '../cluster/cluster.js';
import { ApiError, badRequest } from '../objects/errors.js';
import { JSON_TYPE, negotiate, type Negotiated } from './http.js';
import { predicateFor, type ListRequest } from './list.js';
import { eventLine } from './output.js';
import { apiVersionOf, storageKeyOf, viewOf, type ResourceType } from '../resources/resources.js';
import { selectedName } from '../query/selectors.js';
import { GoneError, type EventType, type Store, type StoredObject, type Watcher } from '../storage/store.js';
import { tableRow, type IncludeObject } from '../resources/table.js';

/** A watcher this far behind is cut off (the client re-lists), like the real server's slow-consumer handling. */
const MAX_WATCH_BACKLOG = 16 * 1024 * 1024;

interface OpenWatch {
  res: ServerResponse;
  bookmark?: () => void;
  close?: () => void;
}

/** The open watch streams of a server. */
export class Watches {
  private readonly watches = new Set<OpenWatch>();
  private bookmarkTimer?: NodeJS.Timeout;

  /** Sends a bookmark to every watch that allows them, every `intervalMs`. */
  startBookmarks(intervalMs: number): void {
    this.bookmarkTimer = setInterval(() => {
      for (const w of this.watches) w.bookmark?.();
    }, intervalMs);
    this.bookmarkTimer.unref();
  }

  /** Ends every stream and stops the bookmarks (server shutdown). */
  closeAll(): void {
    if (this.bookmarkTimer) clearInterval(this.bookmarkTimer);
    for (const w of this.watches) w.res.end();
    this.watches.clear();
  }

  get count(): number {
    return this.watches.size;
  }

  /** Ends every open watch stream, as a restarting API server or a watch timeout does. */
  drop(): number {
    const all = [...this.watches];
    for (const w of all) (w.close ?? (() => w.res.end()))();
    return all.length;
  }

  serve(cluster: Cluster, req: IncomingMessage, res: ServerResponse, list: ListRequest): void {
    const { route, q, lo } = list;
    const t = route.type;
    const predicate = predicateFor(t, q);
    const neg = negotiate(req.headers.accept);
    const bookmarks = lo.allowWatchBookmarks;

    res.writeHead(200, {
      'Content-Type': JSON_TYPE,
      'Transfer-Encoding': 'chunked',
      'Cache-Control': 'no-cache, private',
    });
    res.flushHeaders();
    res.socket?.setNoDelay(true);

    let closed = false;
    let timer: NodeJS.Timeout | undefined;
    // Set once subscribed; a close before then (a backlog cut during the initial events) finds none.
    let unregister: (() => void) | undefined = undefined;
    const entry: OpenWatch = { res };
    const close = (): void => {
      if (closed) return;
      closed = true;
      unregister?.();
      this.watches.delete(entry);
      if (timer) clearTimeout(timer);
      if (!res.writableEnded) res.end();
    };
    entry.close = close;
    // Events committed in the same event-loop turn (a burst of writes) go out in one writev per
    // watcher instead of one syscall per event: corked here, flushed by a setImmediate.
    let corked = false;
    const write = (line: string): void => {
      if (closed) return;
      if (!corked) {
        corked = true;
        res.cork();
        setImmediate(() => {
          corked = false;
          res.uncork();
        });
      }
      res.write(line);
      if (res.writableLength > MAX_WATCH_BACKLOG) {
        close();
        res.destroy();
      }
    };

    const render = eventRenderer(t, neg, q);
    const bookmarkLine = bookmarkRenderer(t, neg, cluster.store);
    const name = selectedName(q.get('fieldSelector') ?? undefined);
    const watcher: Watcher = {
      ...(t.namespaced && route.namespace !== undefined ? { namespace: route.namespace } : {}),
      ...(name !== undefined ? { name } : {}),
      ...(predicate ? { predicate } : {}),
      deliver: (type, stored) => write(render(type, stored)),
    };
    unregister = subscribe(cluster, list, watcher, { write, bookmarkLine });
    if (!unregister) return close();
    if (bookmarks) entry.bookmark = () => write(bookmarkLine());
    this.watches.add(entry);
    const timeout = lo.timeoutSeconds;
    if (timeout > 0) timer = setTimeout(close, timeout * 1000);
    req.on('close', close);
    res.on('close', close);
    res.on('error', close);
  }
}

/** One watch event as a line in the representation the request negotiated. */
function eventRenderer(
  t: ResourceType,
  neg: Negotiated,
  q: URLSearchParams,
): (type: EventType, stored: StoredObject) => string {
  const av = apiVersionOf(t);
  const include = (q.get('includeObject') ?? 'Metadata') as IncludeObject;
  return neg.as === 'Table'
    ? (type: EventType, stored: StoredObject): string =>
        `{"type":"${type}","object":${JSON.stringify({
          kind: 'Table',
          apiVersion: neg.apiVersion,
          metadata: { resourceVersion: stored.obj.metadata.resourceVersion },
          columnDefinitions: t.table.columns,
          rows: [tableRow(t.table, viewOf(t, stored.obj), Date.now(), include)],
        })}}\n`
    : neg.as === 'PartialObjectMetadata' || neg.as === 'PartialObjectMetadataList'
      ? (type: EventType, stored: StoredObject): string =>
          `{"type":"${type}","object":${JSON.stringify({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: stored.obj.metadata })}}\n`
      : (type: EventType, stored: StoredObject): string => eventLine(type, stored, t, av);
}

/** A BOOKMARK line at the store's current resourceVersion (marking the end of the initial events, if asked). */
function bookmarkRenderer(t: ResourceType, neg: Negotiated, store: Store): (initialEnd?: boolean) => string {
  const av = apiVersionOf(t);
  return (initialEnd = false): string =>
    `{"type":"BOOKMARK","object":${JSON.stringify({
      kind: neg.as === 'Table' ? 'Table' : t.kind,
      apiVersion: neg.as === 'Table' ? neg.apiVersion : av,
      metadata: initialEnd
        ? {
            resourceVersion: String(store.resourceVersion),
            annotations: { 'k8s.io/initial-events-end': 'true' },
          }
        : { resourceVersion: String(store.resourceVersion) },
    })}}\n`;
}

/**
 * Registers the watcher from where the request starts it: the current state (synthetic ADDED events,
 * then live events; all synchronous, so none is missed) or a resourceVersion. Undefined, after an
 * ERROR event, when that resourceVersion is invalid or compacted (410).
 */
function subscribe(
  cluster: Cluster,
  list: ListRequest,
  watcher: Watcher,
  out: { write: (line: string) => void; bookmarkLine: (initialEnd?: boolean) => string },
): (() => void) | undefined {
  const { route, q, lo } = list;
  const t = route.type;
  const rvParam = q.get('resourceVersion');
  const sendInitial = lo.sendInitialEvents === true;
  if (!rvParam || rvParam === '0' || sendInitial) {
    for (const s of cluster.list(t, route.namespace))
      if (!watcher.predicate || watcher.predicate(s.obj)) watcher.deliver('ADDED', s);
    if (sendInitial && lo.allowWatchBookmarks) out.write(out.bookmarkLine(true));
    return cluster.store.watch(storageKeyOf(t), watcher);
  }
  const since = Number(rvParam);
  if (!Number.isInteger(since) || since < 0) {
    out.write(
      `{"type":"ERROR","object":${JSON.stringify(badRequest(`invalid resource version: ${rvParam}`).toStatus())}}\n`,
    );
    return undefined;
  }
  try {
    return cluster.store.watch(storageKeyOf(t), watcher, since);
  } catch (e) {
    if (!(e instanceof GoneError)) throw e;
    const status = new ApiError(
      410,
      'Expired',
      `too old resource version: ${since} (${e.oldest + 1})`,
    ).toStatus();
    out.write(`{"type":"ERROR","object":${JSON.stringify(status)}}\n`);
    return undefined;
  }
}
