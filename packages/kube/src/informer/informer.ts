/**
 * An informer: a local cache of one resource type kept current by list + watch, like client-go's.
 * - After a 410 Gone (the watch's resourceVersion is too old) it lists again and reports the
 *   difference as add/update/delete events, so nothing is missed.
 * - Other watch failures are retried with exponential backoff from the last resourceVersion.
 * - Every `resyncMs` it re-delivers each cached object as a `resync` event, so a handler that
 *   dropped work (e.g. a failed write) gets another chance without a full list.
 * - Writes made by this process can be fed back with `mutated()`, so the next decision already sees
 *   them even before the watch delivers them. Lists, watch events and fed-back writes all enter the
 *   cache by one rule (cache.ts): never backwards, no event without news.
 */
import type { KubeClient } from '../client/client.js';
import { remove, replace, upsert, type InformerEvent } from './cache.js';
import type { KubeObject, ListOptions, ObjectList, ResourceType } from '../client/resources.js';
import { backoffDelay, type BackoffPolicy } from '../runtime/backoff.js';

export interface InformerOptions<T extends KubeObject = KubeObject> {
  /** Re-deliver all cached objects this often (0 = never). Default 0. */
  resyncMs?: number;
  labelSelector?: string;
  fieldSelector?: string;
  namespace?: string;
  /** Backoff bounds for watch / list failures. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** Server-side watch timeout; the watch is re-opened from the last resourceVersion after it. */
  watchTimeoutSeconds?: number;
  /**
   * What the cache keeps of each object, applied to everything that enters it (list items, watch
   * events, fed-back writes) before handlers see it: a controller that reads a few fields of large
   * objects keeps those, not one full copy per object. Must keep metadata.resourceVersion.
   */
  transform?: (obj: T) => T;
  /** Objects per list page (`limit`): each page is summarised before the next is read. */
  pageSize?: number;
}

export interface InformerStats {
  lists: number;
  watches: number;
  relistsAfterGone: number;
  errors: number;
}

/**
 * What an informer reads from: a `ResourceClient` satisfies it; the unit test scripts one.
 */
export interface ListWatchSource<T extends KubeObject> {
  readonly type: Pick<ResourceType, 'kind'>;
  readonly client: Pick<KubeClient, 'watch'>;
  collectionPath(namespace?: string): string;
  list(opts: ListOptions & { namespace?: string; keep?: (obj: T) => T }): Promise<ObjectList<T>>;
}

export class Informer<T extends KubeObject> {
  private readonly cache = new Map<string, T>();
  private readonly handlers: ((e: InformerEvent<T>) => void)[] = [];
  private readonly errorHandlers: ((err: unknown) => void)[] = [];
  private resourceVersion = '';
  private stopped = true;
  private abortWatch: (() => void) | undefined;
  private resyncTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  /** Watch failures since the last event; the next retry waits backoffDelay(this.retry, failures). */
  private failures = 0;
  private readonly retry: BackoffPolicy;
  private syncedResolve!: () => void;
  private syncedPromise: Promise<void>;
  private synced = false;
  readonly stats: InformerStats = { lists: 0, watches: 0, relistsAfterGone: 0, errors: 0 };

  constructor(
    readonly resource: ListWatchSource<T>,
    private readonly opts: InformerOptions<T> = {},
  ) {
    this.retry = { initialMs: opts.minBackoffMs ?? 200, maxMs: opts.maxBackoffMs ?? 5_000, factor: 2 };
    this.syncedPromise = new Promise((r) => (this.syncedResolve = r));
  }

  get kind(): string {
    return this.resource.type.kind;
  }

  on(handler: (e: InformerEvent<T>) => void): void {
    this.handlers.push(handler);
  }

  onError(handler: (err: unknown) => void): void {
    this.errorHandlers.push(handler);
  }

  get hasSynced(): boolean {
    return this.synced;
  }

  waitForSync(): Promise<void> {
    return this.syncedPromise;
  }

  get(name: string, namespace?: string): T | undefined {
    return this.cache.get(`${namespace ?? ''}/${name}`);
  }

  list(): T[] {
    return [...this.cache.values()];
  }

  get size(): number {
    return this.cache.size;
  }

  /** The resourceVersion the watch continues from. */
  get lastResourceVersion(): string {
    return this.resourceVersion;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.relist();
    if (this.opts.resyncMs && this.opts.resyncMs > 0) {
      this.resyncTimer = setInterval(() => {
        for (const o of this.cache.values()) this.emit({ type: 'resync', object: o });
      }, this.opts.resyncMs);
      this.resyncTimer.unref();
    }
  }

  stop(): void {
    this.stopped = true;
    this.abortWatch?.();
    this.abortWatch = undefined;
    if (this.resyncTimer) clearInterval(this.resyncTimer);
    if (this.retryTimer) clearTimeout(this.retryTimer);
  }

  /** Feeds back an object this process just wrote (with `deleted`, records its deletion). */
  mutated(obj: T, deleted = false): void {
    const kept = this.keep(obj);
    this.deliver(deleted ? remove(this.cache, kept) : upsert(this.cache, kept));
  }

  private keep(obj: T): T {
    return this.opts.transform ? this.opts.transform(obj) : obj;
  }

  private deliver(e: InformerEvent<T> | undefined): void {
    if (e) this.emit(e);
  }

  private emit(e: InformerEvent<T>): void {
    for (const h of this.handlers) {
      try {
        h(e);
      } catch (err) {
        this.reportError(err);
      }
    }
  }

  private reportError(err: unknown): void {
    this.stats.errors++;
    for (const h of this.errorHandlers) h(err);
  }

  private scheduleRetry(fn: () => void): void {
    if (this.stopped) return;
    this.failures = Math.min(this.failures + 1, 30);
    // Jitter: informers that lost the same API server do not come back in step.
    const delay = backoffDelay(this.retry, this.failures) * (0.8 + Math.random() * 0.4);
    this.retryTimer = setTimeout(fn, delay);
  }

  private async relist(): Promise<void> {
    if (this.stopped) return;
    let list;
    try {
      this.stats.lists++;
      list = await this.resource.list({
        labelSelector: this.opts.labelSelector,
        fieldSelector: this.opts.fieldSelector,
        namespace: this.opts.namespace,
        ...(this.opts.pageSize ? { limit: this.opts.pageSize } : {}),
        ...(this.opts.transform ? { keep: this.opts.transform } : {}),
      });
    } catch (err) {
      this.reportError(err);
      this.scheduleRetry(() => void this.relist());
      return;
    }
    if (this.stopped) return;
    for (const e of replace(this.cache, list.items, list.metadata.resourceVersion)) this.emit(e);
    this.resourceVersion = list.metadata.resourceVersion ?? '';
    if (!this.synced) {
      this.synced = true;
      this.syncedResolve();
    }
    void this.watch();
  }

  private async watch(): Promise<void> {
    if (this.stopped) return;
    let gone = false;
    let done = false;
    const onDone = (err: unknown): void => {
      if (done) return;
      done = true;
      this.abortWatch = undefined;
      if (this.stopped) return;
      const status = (err as { statusCode?: number; code?: number } | null)?.statusCode;
      if (gone || status === 410) {
        this.stats.relistsAfterGone++;
        this.resourceVersion = '';
        void this.relist();
      } else if (err) {
        this.reportError(err);
        this.scheduleRetry(() => void this.watch());
      } else {
        // Normal close (server-side timeout): continue from where we are.
        void this.watch();
      }
    };
    const onEvent = (type: string, raw: unknown): void => {
      const obj = raw as T & { code?: number };
      this.failures = 0;
      switch (type) {
        case 'ADDED':
        case 'MODIFIED':
          this.deliver(upsert(this.cache, this.keep(obj)));
          break;
        case 'DELETED':
          this.deliver(remove(this.cache, this.keep(obj)));
          break;
        case 'BOOKMARK':
          break;
        case 'ERROR':
          if (obj.code === 410) {
            // The server normally closes the stream after this; closing it ourselves makes sure.
            gone = true;
            this.abortWatch?.();
          } else this.reportError(new Error(`watch ${this.kind}: ${JSON.stringify(raw)}`));
          return;
        default:
          return;
      }
      if (obj.metadata?.resourceVersion) this.resourceVersion = obj.metadata.resourceVersion;
    };
    try {
      this.stats.watches++;
      const path = this.resource.collectionPath(this.opts.namespace);
      const abort = await this.resource.client.watch(
        path,
        {
          resourceVersion: this.resourceVersion || undefined,
          allowWatchBookmarks: true,
          labelSelector: this.opts.labelSelector,
          fieldSelector: this.opts.fieldSelector,
          timeoutSeconds: this.opts.watchTimeoutSeconds ?? 300,
        },
        onEvent,
        onDone,
      );
      if (done || this.stopped) abort();
      else this.abortWatch = abort;
    } catch (err) {
      onDone(err);
    }
  }
}
