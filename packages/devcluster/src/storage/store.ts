/**
 * In-memory object storage with one cluster-wide resourceVersion counter, a bounded event history for
 * watch resumption, and watch fan-out. Stored objects are immutable once committed: writers always
 * commit a fresh object, so events, lists and watchers can share them and their serialized JSON.
 */
import type { Predicate } from '../query/selectors.js';
import type { KObject } from '../objects/types.js';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoredObject {
  readonly obj: KObject;
  readonly rv: number;
  /** JSON of `obj`, computed at most once. */
  json?: string;
}

export interface StoreEvent {
  readonly type: EventType;
  readonly rv: number;
  readonly storageKey: string;
  /** Key inside the collection: `namespace/name` or `name`. */
  readonly key: string;
  readonly stored: StoredObject;
  /** The previous state (for MODIFIED and DELETED), to compute selector transitions. */
  readonly prev?: StoredObject;
}

export interface Watcher {
  readonly namespace?: string;
  /** Set when the watch selects one object by name (`fieldSelector=metadata.name=X`): indexed, so
   * a thousand per-node watches cost one map lookup per event, not a thousand predicate calls. */
  readonly name?: string;
  readonly predicate?: Predicate;
  /** Delivers one event; `type` already accounts for selector transitions. */
  deliver(type: EventType, stored: StoredObject): void;
}

export interface CommitListener {
  (ev: StoreEvent): void;
}

export const objectKey = (namespace: string | undefined, name: string): string =>
  namespace ? `${namespace}/${name}` : name;

export function jsonOf(stored: StoredObject): string {
  if (stored.json === undefined) stored.json = JSON.stringify(stored.obj);
  return stored.json;
}

class Collection {
  readonly objects = new Map<string, StoredObject>();
  /** Watchers without a name. */
  readonly watchers = new Set<Watcher>();
  readonly byName = new Map<string, Set<Watcher>>();
}

export class Store {
  private rv = 0;
  private readonly collections = new Map<string, Collection>();
  /** Events in resourceVersion order; the oldest are dropped beyond historyLimit. */
  private history: StoreEvent[] = [];
  /** Highest resourceVersion whose event was dropped from history: resuming at or before it is 410 Gone. */
  private compactedRv = 0;
  private readonly listeners: CommitListener[] = [];
  /** uid → location, for garbage collection (is an owner still present?). */
  readonly uids = new Map<string, { storageKey: string; key: string }>();
  /** owner uid → dependents `storageKey\0key`. */
  readonly dependents = new Map<string, Set<string>>();

  constructor(readonly historyLimit = 50_000) {}

  get resourceVersion(): number {
    return this.rv;
  }

  get oldestResumableRv(): number {
    return this.compactedRv;
  }

  nextResourceVersion(): number {
    return ++this.rv;
  }

  /** Restores the counter after loading persisted state. */
  restoreResourceVersion(rv: number): void {
    if (rv > this.rv) this.rv = rv;
    this.compactedRv = this.rv;
  }

  onCommit(listener: CommitListener): void {
    this.listeners.push(listener);
  }

  private collection(storageKey: string): Collection {
    let c = this.collections.get(storageKey);
    if (!c) {
      c = new Collection();
      this.collections.set(storageKey, c);
    }
    return c;
  }

  get(storageKey: string, key: string): StoredObject | undefined {
    return this.collections.get(storageKey)?.objects.get(key);
  }

  /** Objects of a collection, optionally of one namespace, sorted by key like etcd returns them. */
  list(storageKey: string, namespace?: string): StoredObject[] {
    const c = this.collections.get(storageKey);
    if (!c) return [];
    const out: [string, StoredObject][] = [];
    const prefix = namespace ? `${namespace}/` : undefined;
    for (const entry of c.objects) {
      if (prefix === undefined || entry[0].startsWith(prefix)) out.push(entry);
    }
    out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return out.map((e) => e[1]);
  }

  count(storageKey: string): number {
    return this.collections.get(storageKey)?.objects.size ?? 0;
  }

  storageKeys(): string[] {
    return [...this.collections.keys()];
  }

  /**
   * Commits a new state of an object (or its deletion). `stored.obj.metadata.resourceVersion` must
   * already be `String(stored.rv)` with `rv` from nextResourceVersion().
   */
  commit(type: EventType, storageKey: string, key: string, stored: StoredObject): StoreEvent {
    const { obj, rv } = stored;
    const c = this.collection(storageKey);
    const prev = c.objects.get(key);
    if (type === 'DELETED') c.objects.delete(key);
    else c.objects.set(key, stored);
    this.index(storageKey, key, prev?.obj, type === 'DELETED' ? undefined : obj);
    const ev: StoreEvent = prev
      ? { type, rv, storageKey, key, stored, prev }
      : { type, rv, storageKey, key, stored };
    this.history.push(ev);
    if (this.history.length > this.historyLimit * 1.25) {
      const drop = this.history.length - this.historyLimit;
      this.compactedRv = this.history[drop - 1]?.rv ?? this.compactedRv;
      this.history = this.history.slice(drop);
    }
    for (const l of this.listeners) l(ev);
    for (const w of c.watchers) dispatch(w, ev);
    if (c.byName.size) {
      const named = c.byName.get(obj.metadata.name ?? '');
      if (named) for (const w of named) dispatch(w, ev);
    }
    return ev;
  }

  /** Loads a persisted object without an event (start-up only). */
  load(storageKey: string, key: string, obj: KObject, rv: number): void {
    this.collection(storageKey).objects.set(key, { obj, rv });
    this.index(storageKey, key, undefined, obj);
  }

  private index(storageKey: string, key: string, prev: KObject | undefined, next: KObject | undefined): void {
    const loc = `${storageKey}\0${key}`;
    if (prev?.metadata.uid && prev.metadata.uid !== next?.metadata.uid) this.uids.delete(prev.metadata.uid);
    if (next?.metadata.uid) this.uids.set(next.metadata.uid, { storageKey, key });
    for (const ref of prev?.metadata.ownerReferences ?? []) {
      const set = this.dependents.get(ref.uid);
      set?.delete(loc);
      if (set?.size === 0) this.dependents.delete(ref.uid);
    }
    for (const ref of next?.metadata.ownerReferences ?? []) {
      let set = this.dependents.get(ref.uid);
      if (!set) {
        set = new Set();
        this.dependents.set(ref.uid, set);
      }
      set.add(loc);
    }
  }

  /**
   * Registers a watcher. With `sinceRv`, replays the kept events after it first (throws GoneError when
   * they are no longer all kept); without, the caller sends the initial state itself.
   */
  watch(storageKey: string, watcher: Watcher, sinceRv?: number): () => void {
    const c = this.collection(storageKey);
    if (sinceRv !== undefined) {
      if (sinceRv < this.compactedRv) throw new GoneError(sinceRv, this.compactedRv);
      // binary search for the first event with rv > sinceRv
      let lo = 0;
      let hi = this.history.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if ((this.history[mid]?.rv ?? 0) <= sinceRv) lo = mid + 1;
        else hi = mid;
      }
      for (let i = lo; i < this.history.length; i++) {
        const ev = this.history[i];
        if (ev && ev.storageKey === storageKey) dispatch(watcher, ev);
      }
    }
    const name = watcher.name;
    if (name === undefined) {
      c.watchers.add(watcher);
      return () => c.watchers.delete(watcher);
    }
    let set = c.byName.get(name);
    if (!set) {
      set = new Set();
      c.byName.set(name, set);
    }
    set.add(watcher);
    return () => {
      const cur = c.byName.get(name);
      cur?.delete(watcher);
      if (cur?.size === 0) c.byName.delete(name);
    };
  }

  watcherCount(): number {
    let n = 0;
    for (const c of this.collections.values()) {
      n += c.watchers.size;
      for (const set of c.byName.values()) n += set.size;
    }
    return n;
  }
}

export class GoneError extends Error {
  constructor(
    readonly requested: number,
    readonly oldest: number,
  ) {
    super(`too old resource version: ${requested} (${oldest + 1})`);
    this.name = 'GoneError';
  }
}

function namespaceOf(key: string): string | undefined {
  const i = key.indexOf('/');
  return i < 0 ? undefined : key.slice(0, i);
}

/**
 * Selector-aware delivery: an object that stops matching is DELETED for this watcher, one that starts
 * matching is ADDED, as the real watch cache does.
 */
function dispatch(w: Watcher, ev: StoreEvent): void {
  if (w.namespace !== undefined && namespaceOf(ev.key) !== w.namespace) return;
  if (w.name !== undefined && ev.stored.obj.metadata.name !== w.name) return;
  if (!w.predicate) {
    w.deliver(ev.type, ev.stored);
    return;
  }
  const now = ev.type !== 'DELETED' && w.predicate(ev.stored.obj);
  if (ev.type === 'ADDED') {
    if (now) w.deliver('ADDED', ev.stored);
    return;
  }
  const before = ev.prev ? w.predicate(ev.prev.obj) : false;
  if (ev.type === 'DELETED') {
    if (w.predicate(ev.stored.obj) || before) w.deliver('DELETED', ev.stored);
    return;
  }
  if (now && before) w.deliver('MODIFIED', ev.stored);
  else if (now) w.deliver('ADDED', ev.stored);
  else if (before) w.deliver('DELETED', ev.stored);
}
