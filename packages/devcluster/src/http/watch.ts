/**
 * Streaming watches: initial events or resumption from a resourceVersion (410 once it is compacted),
 * bookmarks, timeouts, and cutting off watchers that fall too far behind.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Cluster } from '../cluster/cluster.js';
import { ApiError, badRequest } from '../objects/errors.js';
import { JSON_TYPE, negotiate } from './http.js';
import { predicateFor } from './list.js';
import { eventLine } from './output.js';
import type { ListOptions } from '../query/query.js';
import { apiVersionOf, storageKeyOf, viewOf } from '../resources/resources.js';
import type { Route } from './routes.js';
import { selectedName } from '../query/selectors.js';
import { GoneError, type EventType, type StoredObject, type Watcher } from '../storage/store.js';
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

  serve(
    cluster: Cluster,
    req: IncomingMessage,
    res: ServerResponse,
    route: Route,
    q: URLSearchParams,
    lo: ListOptions,
  ): void {
    const t = route.type;
    const store = cluster.store;
    const predicate = predicateFor(t, q);
    const neg = negotiate(req.headers.accept);
    const av = apiVersionOf(t);
    const include = (q.get('includeObject') ?? 'Metadata') as IncludeObject;
    const rvParam = q.get('resourceVersion');
    const sendInitial = lo.sendInitialEvents === true;
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
    let unregister: (() => void) | undefined;
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

    const render =
      neg.as === 'Table'
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

    const bookmarkLine = (initialEnd = false): string =>
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

    const name = selectedName(q.get('fieldSelector') ?? undefined);
    const watcher: Watcher = {
      ...(t.namespaced && route.namespace !== undefined ? { namespace: route.namespace } : {}),
      ...(name !== undefined ? { name } : {}),
      ...(predicate ? { predicate } : {}),
      deliver: (type, stored) => write(render(type, stored)),
    };

    if (!rvParam || rvParam === '0' || sendInitial) {
      // start from the current state: synthetic ADDED events, then live events (all synchronous, so none is missed)
      for (const s of cluster.list(t, route.namespace))
        if (!predicate || predicate(s.obj)) write(render('ADDED', s));
      if (sendInitial && bookmarks) write(bookmarkLine(true));
      unregister = store.watch(storageKeyOf(t), watcher);
    } else {
      const since = Number(rvParam);
      if (!Number.isInteger(since) || since < 0) {
        write(
          `{"type":"ERROR","object":${JSON.stringify(badRequest(`invalid resource version: ${rvParam}`).toStatus())}}\n`,
        );
        return close();
      }
      try {
        unregister = store.watch(storageKeyOf(t), watcher, since);
      } catch (e) {
        if (!(e instanceof GoneError)) throw e;
        const status = new ApiError(
          410,
          'Expired',
          `too old resource version: ${since} (${e.oldest + 1})`,
        ).toStatus();
        write(`{"type":"ERROR","object":${JSON.stringify(status)}}\n`);
        return close();
      }
    }
    if (bookmarks) entry.bookmark = () => write(bookmarkLine());
    this.watches.add(entry);
    const timeout = lo.timeoutSeconds;
    if (timeout > 0) timer = setTimeout(close, timeout * 1000);
    req.on('close', close);
    res.on('close', close);
    res.on('error', close);
  }
}
