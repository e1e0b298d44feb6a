/**
 * The informer against a scripted list + watch: each test says what the server lists and streams,
 * and checks the events delivered and the cache. The rule itself (cache.ts) is checked directly too.
 */
import { describe, expect, it } from 'vitest';
import {
  Informer,
  remove,
  replace,
  upsert,
  type InformerEvent,
  type KubeObject,
  type ListWatchSource,
  type ObjectList,
} from '@nodenet/kube';

const obj = (name: string, rv: string, data = ''): KubeObject & { data: string } => ({
  metadata: { name, resourceVersion: rv },
  data,
});
type Obj = ReturnType<typeof obj>;

interface OpenWatch {
  query: Record<string, unknown>;
  send(type: string, object: unknown): void;
  close(err: unknown): void;
  aborted: boolean;
}

/** A list + watch server played by the test: `lists` are answered in order, watches are handed out. */
class Script implements ListWatchSource<Obj> {
  readonly type = { kind: 'Thing' };
  readonly watches: OpenWatch[] = [];
  private waiting: ((w: OpenWatch) => void)[] = [];
  constructor(private readonly lists: ObjectList<Obj>[]) {}
  readonly client = {
    watch: (
      _path: string,
      query: Record<string, unknown>,
      onEvent: (type: string, object: unknown) => void,
      onDone: (err: unknown) => void,
    ): Promise<() => void> => {
      const w: OpenWatch = { query, send: onEvent, close: onDone, aborted: false };
      this.watches.push(w);
      this.waiting.shift()?.(w);
      return Promise.resolve(() => {
        w.aborted = true;
        onDone(null);
      });
    },
  };
  collectionPath(): string {
    return '/apis/example.io/v1/things';
  }
  /** The options of each list call. */
  readonly listCalls: Parameters<ListWatchSource<Obj>['list']>[0][] = [];
  list(opts: Parameters<ListWatchSource<Obj>['list']>[0]): Promise<ObjectList<Obj>> {
    this.listCalls.push(opts);
    const next = this.lists.shift();
    if (!next) throw new Error('script: no more lists');
    // As ResourceClient.list does: `keep` applied to each item as its page arrives.
    const keep = opts.keep ?? ((o: Obj): Obj => o);
    return Promise.resolve({ ...next, items: next.items.map(keep) });
  }
  /** The next watch the informer opens (or the one already open). */
  watch(n: number): Promise<OpenWatch> {
    const open = this.watches[n];
    return open ? Promise.resolve(open) : new Promise((r) => this.waiting.push(r));
  }
}

const listOf = (rv: string, ...items: Obj[]): ObjectList<Obj> => ({
  metadata: { resourceVersion: rv },
  items,
});

function started(script: Script): { inf: Informer<Obj>; events: string[] } {
  const inf = new Informer<Obj>(script, { minBackoffMs: 1 });
  const events: string[] = [];
  inf.on((e: InformerEvent<Obj>) =>
    events.push(`${e.type} ${e.object.metadata.name}@${e.object.metadata.resourceVersion}`),
  );
  inf.start();
  return { inf, events };
}

describe('informer against a scripted watch', () => {
  it('lists, then applies ADDED / MODIFIED / DELETED in order; BOOKMARK moves the resume point only', async () => {
    const script = new Script([listOf('10', obj('a', '5'))]);
    const { inf, events } = started(script);
    await inf.waitForSync();
    const w = await script.watch(0);
    expect(w.query.resourceVersion).toBe('10');
    expect(w.query.allowWatchBookmarks).toBe(true);
    w.send('ADDED', obj('b', '11'));
    w.send('MODIFIED', obj('a', '12', 'x'));
    w.send('BOOKMARK', { metadata: { resourceVersion: '15' } });
    w.send('DELETED', obj('b', '16'));
    expect(events).toEqual(['add a@5', 'add b@11', 'update a@12', 'delete b@16']);
    expect(inf.list()).toEqual([obj('a', '12', 'x')]);
    expect(inf.lastResourceVersion).toBe('16');
    w.send('BOOKMARK', { metadata: { resourceVersion: '20' } });
    expect(inf.lastResourceVersion).toBe('20');
    expect(events).toHaveLength(4);
    inf.stop();
  });

  it('ignores a stale MODIFIED (older resourceVersion than cached) and one with no news', async () => {
    const script = new Script([listOf('10', obj('a', '9', 'new'))]);
    const { inf, events } = started(script);
    await inf.waitForSync();
    const w = await script.watch(0);
    w.send('MODIFIED', obj('a', '7', 'old'));
    w.send('MODIFIED', obj('a', '9', 'new'));
    expect(events).toEqual(['add a@9']);
    expect(inf.get('a')?.data).toBe('new');
    inf.stop();
  });

  it('a write fed back with mutated() is not undone by the older watch event that follows', async () => {
    const script = new Script([listOf('10', obj('a', '5'))]);
    const { inf, events } = started(script);
    await inf.waitForSync();
    const w = await script.watch(0);
    inf.mutated(obj('a', '13', 'written'));
    w.send('MODIFIED', obj('a', '12', 'in between'));
    w.send('MODIFIED', obj('a', '13', 'written'));
    expect(events).toEqual(['add a@5', 'update a@13']);
    expect(inf.get('a')?.data).toBe('written');
    inf.stop();
  });

  it('on 410 Gone relists and reports the difference as add / update / delete', async () => {
    const script = new Script([
      listOf('10', obj('a', '5'), obj('b', '6')),
      listOf('40', obj('a', '30'), obj('c', '31')),
    ]);
    const { inf, events } = started(script);
    await inf.waitForSync();
    const w0 = await script.watch(0);
    w0.send('ERROR', { kind: 'Status', code: 410, reason: 'Expired' });
    expect(w0.aborted).toBe(true);
    const w1 = await script.watch(1);
    expect(w1.query.resourceVersion).toBe('40');
    expect(events).toEqual(['add a@5', 'add b@6', 'update a@30', 'add c@31', 'delete b@6']);
    expect(inf.stats.relistsAfterGone).toBe(1);
    expect(
      inf
        .list()
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['a', 'c']);
    inf.stop();
  });

  it('a watch that ends with a 410 status code (not an event) relists as well', async () => {
    const script = new Script([listOf('10', obj('a', '5')), listOf('20', obj('a', '5'))]);
    const { inf, events } = started(script);
    await inf.waitForSync();
    (await script.watch(0)).close({ statusCode: 410 });
    expect((await script.watch(1)).query.resourceVersion).toBe('20');
    expect(events).toEqual(['add a@5']);
    inf.stop();
  });

  it('a normal close resumes from the last resourceVersion without listing', async () => {
    const script = new Script([listOf('10')]);
    const { inf } = started(script);
    await inf.waitForSync();
    const w0 = await script.watch(0);
    w0.send('ADDED', obj('a', '11'));
    w0.close(null);
    expect((await script.watch(1)).query.resourceVersion).toBe('11');
    expect(inf.stats.lists).toBe(1);
    inf.stop();
  });
});

describe('informer with a transform', () => {
  it('caches and delivers what the transform keeps: list items, watch events and fed-back writes alike', async () => {
    const script = new Script([listOf('10', obj('a', '5', 'large a'))]);
    const seen: string[] = [];
    const inf = new Informer<Obj>(script, {
      minBackoffMs: 1,
      pageSize: 7,
      transform: (o) => ({ ...o, data: o.data.slice(0, 1) }),
    });
    inf.on((e) => seen.push(`${e.type} ${e.object.metadata.name}=${e.object.data}`));
    inf.start();
    await inf.waitForSync();
    expect(script.listCalls[0]?.limit).toBe(7);
    const w = await script.watch(0);
    w.send('ADDED', obj('b', '11', 'large b'));
    w.send('MODIFIED', obj('a', '12', 'xlarge a'));
    inf.mutated(obj('b', '13', 'ylarge b'));
    w.send('DELETED', obj('a', '14', 'zlarge a'));
    expect(seen).toEqual(['add a=l', 'add b=l', 'update a=x', 'update b=y', 'delete a=z']);
    expect(inf.list()).toEqual([obj('b', '13', 'y')]);
    inf.stop();
  });
});

describe('the cache rule', () => {
  it('upsert: add, update on a newer resourceVersion, nothing on older or equal', () => {
    const cache = new Map<string, Obj>();
    expect(upsert(cache, obj('a', '5'))).toEqual({ type: 'add', object: obj('a', '5') });
    expect(upsert(cache, obj('a', '4'))).toBeUndefined();
    expect(upsert(cache, obj('a', '5', 'same version'))).toBeUndefined();
    expect(upsert(cache, obj('a', '6'))).toEqual({
      type: 'update',
      object: obj('a', '6'),
      old: obj('a', '5'),
    });
    expect(cache.get('/a')).toEqual(obj('a', '6'));
  });

  it('upsert: opaque (non-numeric) resourceVersions are taken as they come', () => {
    const cache = new Map([['/a', obj('a', 'x2')]]);
    expect(upsert(cache, obj('a', 'x1'))?.type).toBe('update');
  });

  it('remove: reports the last state known; nothing when not cached', () => {
    const cache = new Map([['/a', obj('a', '8')]]);
    expect(remove(cache, obj('a', '3'))).toEqual({ type: 'delete', object: obj('a', '8') });
    expect(remove(cache, obj('a', '9'))).toBeUndefined();
    cache.set('/b', obj('b', '8'));
    expect(remove(cache, obj('b', '9'))).toEqual({ type: 'delete', object: obj('b', '9') });
  });

  it('replace: keeps an entry newer than the list (a write fed back after the list was taken)', () => {
    const cache = new Map([
      ['/old', obj('old', '3')],
      ['/fresh', obj('fresh', '12')],
    ]);
    expect(replace(cache, [], '10')).toEqual([{ type: 'delete', object: obj('old', '3') }]);
    expect([...cache.keys()]).toEqual(['/fresh']);
  });
});
