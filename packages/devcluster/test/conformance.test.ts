/** Kubernetes API conformance of devcluster, exercised through the real @kubernetes/client-node over HTTP. */
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GROUP,
  L2,
  NC,
  VERSION,
  apiError,
  collectWatch,
  jsonPatch,
  l2,
  mergePatch,
  nc,
  startWithClients,
  strategicPatch,
  waitFor,
  type Clients,
  type KObj,
} from './helpers.js';

let c: Clients;
beforeAll(async () => {
  c = await startWithClients();
});
afterAll(async () => {
  await c.dc.stop();
});

const cl = (plural: string) => ({ group: GROUP, version: VERSION, plural });

describe('custom resources through CustomObjectsApi', () => {
  it('creates, reads, lists, replaces, patches and deletes', async () => {
    const created = (await c.custom.createClusterCustomObject({
      ...cl(L2),
      body: l2('crud', { id: 11 }),
    })) as KObj;
    expect(created.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata.generation).toBe(1);
    expect(created.spec).toMatchObject({ id: 11, vni: 100, mtu: 9000 }); // mtu defaulted

    const got = (await c.custom.getClusterCustomObject({ ...cl(L2), name: 'crud' })) as KObj;
    expect(got).toEqual(created);

    const list = (await c.custom.listClusterCustomObject(cl(L2))) as {
      items: KObj[];
      metadata: { resourceVersion: string };
    };
    expect(list.items.map((i) => i.metadata.name)).toContain('crud');
    expect(Number(list.metadata.resourceVersion)).toBeGreaterThanOrEqual(
      Number(created.metadata.resourceVersion),
    );

    const replaced = (await c.custom.replaceClusterCustomObject({
      ...cl(L2),
      name: 'crud',
      body: { ...got, spec: { ...got.spec, id: 12 } },
    })) as KObj;
    expect(replaced.spec?.id).toBe(12);
    expect(Number(replaced.metadata.resourceVersion)).toBeGreaterThan(Number(got.metadata.resourceVersion));

    const merged = (await c.custom.patchClusterCustomObject(
      { ...cl(L2), name: 'crud', body: { spec: { vrf: 'blue' } } },
      mergePatch,
    )) as KObj;
    expect(merged.spec).toMatchObject({ id: 12, vrf: 'blue' });

    const patched = (await c.custom.patchClusterCustomObject(
      { ...cl(L2), name: 'crud', body: [{ op: 'replace', path: '/spec/vni', value: 4242 }] },
      jsonPatch,
    )) as KObj;
    expect(patched.spec?.vni).toBe(4242);

    await c.custom.deleteClusterCustomObject({ ...cl(L2), name: 'crud' });
    const e = await apiError(() => c.custom.getClusterCustomObject({ ...cl(L2), name: 'crud' }));
    expect(e.code).toBe(404);
    expect(e.status).toMatchObject({
      kind: 'Status',
      reason: 'NotFound',
      message: `${L2}.${GROUP} "crud" not found`,
    });
  });

  it('answers 409 AlreadyExists and 409 Conflict on a stale resourceVersion', async () => {
    const first = (await c.custom.createClusterCustomObject({ ...cl(L2), body: l2('conflict') })) as KObj;
    const dup = await apiError(() => c.custom.createClusterCustomObject({ ...cl(L2), body: l2('conflict') }));
    expect(dup.code).toBe(409);
    expect(dup.status.reason).toBe('AlreadyExists');

    await c.custom.patchClusterCustomObject(
      { ...cl(L2), name: 'conflict', body: { spec: { id: 20 } } },
      mergePatch,
    );
    const stale = await apiError(() =>
      c.custom.replaceClusterCustomObject({
        ...cl(L2),
        name: 'conflict',
        body: { ...first, spec: { ...first.spec, id: 21 } },
      }),
    );
    expect(stale.code).toBe(409);
    expect(stale.status.reason).toBe('Conflict');
    expect(stale.status.message).toContain(
      'the object has been modified; please apply your changes to the latest version and try again',
    );

    // a merge patch carrying a stale resourceVersion is a precondition, too
    const pre = await apiError(() =>
      c.custom.patchClusterCustomObject(
        {
          ...cl(L2),
          name: 'conflict',
          body: { metadata: { resourceVersion: first.metadata.resourceVersion }, spec: { id: 22 } },
        },
        mergePatch,
      ),
    );
    expect(pre.code).toBe(409);
  });

  it('bumps metadata.generation on spec changes only', async () => {
    const o = (await c.custom.createClusterCustomObject({ ...cl(L2), body: l2('gen') })) as KObj;
    expect(o.metadata.generation).toBe(1);
    const labelled = (await c.custom.patchClusterCustomObject(
      { ...cl(L2), name: 'gen', body: { metadata: { labels: { a: 'b' } } } },
      mergePatch,
    )) as KObj;
    expect(labelled.metadata.generation).toBe(1);
    const status = (await c.custom.patchClusterCustomObjectStatus(
      { ...cl(L2), name: 'gen', body: { status: { observedGeneration: 1 } } },
      mergePatch,
    )) as KObj;
    expect(status.metadata.generation).toBe(1);
    const spec = (await c.custom.patchClusterCustomObject(
      { ...cl(L2), name: 'gen', body: { spec: { id: 99 } } },
      mergePatch,
    )) as KObj;
    expect(spec.metadata.generation).toBe(2);
    // a write that changes nothing is a no-op: same resourceVersion, same generation
    const same = (await c.custom.patchClusterCustomObject(
      { ...cl(L2), name: 'gen', body: { spec: { id: 99 } } },
      mergePatch,
    )) as KObj;
    expect(same.metadata.resourceVersion).toBe(spec.metadata.resourceVersion);
  });

  it('separates the main resource from the status subresource', async () => {
    const withStatus = l2('status', {}, {});
    (withStatus as Record<string, unknown>).status = { observedGeneration: 7 };
    const created = (await c.custom.createClusterCustomObject({ ...cl(L2), body: withStatus })) as KObj;
    expect(created.status).toBeUndefined(); // status is dropped on create

    const st = (await c.custom.replaceClusterCustomObjectStatus({
      ...cl(L2),
      name: 'status',
      body: {
        ...created,
        spec: { id: 3000, vni: 1 },
        status: { observedGeneration: 1, conditions: [{ type: 'Accepted', status: 'True' }] },
      },
    })) as KObj;
    expect(st.status).toMatchObject({ observedGeneration: 1 });
    expect(st.spec?.id).toBe(10); // spec changes through /status are ignored

    const main = (await c.custom.replaceClusterCustomObject({
      ...cl(L2),
      name: 'status',
      body: { ...st, spec: { ...st.spec, id: 11 }, status: { observedGeneration: 99 } },
    })) as KObj;
    expect(main.spec?.id).toBe(11);
    expect(main.status).toMatchObject({ observedGeneration: 1 }); // status changes through the main resource are ignored
  });

  it("server-side apply: creates, removes fields the manager dropped, keeps other writers' fields", async () => {
    const url = `${c.dc.url}/apis/${GROUP}/${VERSION}/${L2}/ssa?fieldManager=tester`;
    const apply = (body: string, target = url) =>
      fetch(target, { method: 'PATCH', headers: { 'Content-Type': 'application/apply-patch+yaml' }, body });
    const doc = (spec: string) =>
      `apiVersion: ${GROUP}/${VERSION}\nkind: Layer2NetworkConfiguration\nmetadata:\n  name: ssa\nspec:\n${spec}`;
    const created = await apply(doc('  id: 5\n  vni: 50\n  vrf: blue\n'));
    expect(created.status).toBe(201);
    await c.custom.patchClusterCustomObject(
      { ...cl(L2), name: 'ssa', body: { spec: { anycastMac: '02:00:00:00:00:01' } } },
      mergePatch,
    );
    const again = await apply(doc('  id: 5\n  vni: 51\n'));
    expect(again.status).toBe(200);
    const o = (await again.json()) as KObj;
    expect(o.spec).toEqual({ id: 5, vni: 51, mtu: 9000, anycastMac: '02:00:00:00:00:01' }); // vrf removed, other writer's field kept
    const noManager = await apply(doc('  id: 5\n  vni: 51\n'), url.replace('?fieldManager=tester', ''));
    expect(noManager.status).toBe(400);
  });

  it('refuses strategic merge patches for custom resources with 415 like the real server', async () => {
    await c.custom.createClusterCustomObject({ ...cl(L2), body: l2('smp') });
    const e = await apiError(() =>
      c.custom.patchClusterCustomObject(
        { ...cl(L2), name: 'smp', body: { spec: { id: 2 } } },
        strategicPatch,
      ),
    );
    expect(e.code).toBe(415);
  });
});

describe('validation, defaulting and pruning', () => {
  it('answers 422 with one cause per field, worded like the API server', async () => {
    const e = await apiError(() =>
      c.custom.createClusterCustomObject({
        ...cl(L2),
        body: l2('invalid', {
          id: 5000,
          vni: 0,
          vrf: 'Bad!',
          mode: 'tunnel',
          anycastGateways: ['a', 'b', 'c', 'd', 'e'],
          port: 1.5,
        }),
      }),
    );
    expect(e.code).toBe(422);
    expect(e.status.reason).toBe('Invalid');
    const causes = e.status.details?.causes ?? [];
    const byField = Object.fromEntries(causes.map((x) => [x.field, x]));
    expect(byField['spec.vni']).toEqual({
      reason: 'FieldValueInvalid',
      field: 'spec.vni',
      message: 'Invalid value: 0: spec.vni in body should be greater than or equal to 1',
    });
    expect(byField['spec.id']?.message).toBe(
      'Invalid value: 5000: spec.id in body should be less than or equal to 4094',
    );
    expect(byField['spec.vrf']?.message).toBe(
      `Invalid value: "Bad!": spec.vrf in body should match '^[a-z][a-z0-9_-]*$'`,
    );
    expect(byField['spec.mode']).toMatchObject({
      reason: 'FieldValueNotSupported',
      message: 'Unsupported value: "tunnel": supported values: "bridge", "macvlan"',
    });
    expect(byField['spec.anycastGateways']).toMatchObject({
      reason: 'FieldValueTooMany',
      message: 'Too many: 5: must have at most 4 items',
    });
    expect(byField['spec.port']?.message).toContain('must be of type integer-or-string');
    expect(e.status.message).toContain(
      'Layer2NetworkConfiguration.network.nodenet.io "invalid" is invalid: [',
    );
    expect(e.status.message).toContain(
      'spec.vni: Invalid value: 0: spec.vni in body should be greater than or equal to 1',
    );
  });

  it('names missing required fields and wrong types', async () => {
    const e = await apiError(() =>
      c.custom.createClusterCustomObject({
        ...cl(L2),
        body: {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: 'Layer2NetworkConfiguration',
          metadata: { name: 'req' },
          spec: { id: 'ten' },
        },
      }),
    );
    expect(e.code).toBe(422);
    const fields = (e.status.details?.causes ?? []).map((x) => `${x.field}: ${x.message}`);
    expect(fields).toContain('spec.vni: Required value');
    expect(fields).toContain(
      'spec.id: Invalid value: "string": spec.id in body must be of type integer: "string"',
    );
  });

  it('applies defaults, prunes unknown fields and keeps preserve-unknown-fields subtrees', async () => {
    const o = (await c.custom.createClusterCustomObject({
      ...cl(L2),
      body: {
        ...l2('prune', { surplus: true, nodeSelector: { matchLabels: { a: 'b' }, other: 1 } }),
        topLevel: 'x',
      },
    })) as KObj & { topLevel?: unknown };
    expect(o.spec).toEqual({ id: 10, vni: 100, mtu: 9000, nodeSelector: { matchLabels: { a: 'b' } } });
    expect(o.topLevel).toBeUndefined();
    const n = (await c.custom.createClusterCustomObject({
      ...cl(NC),
      body: nc('keep', {}, { data: { free: { form: [1] } } }),
    })) as KObj;
    expect(n.spec?.data).toEqual({ free: { form: [1] } });
  });

  it('validates metadata.name', async () => {
    const e = await apiError(() => c.custom.createClusterCustomObject({ ...cl(L2), body: l2('Not_A_Name') }));
    expect(e.code).toBe(422);
    expect(e.status.details?.causes?.[0]?.field).toBe('metadata.name');
  });
});

describe('selectors', () => {
  it('filters lists by label (=, ==, !=, in, notin, exists, !) and field selectors', async () => {
    for (const [name, labels] of [
      ['sel-a', { tier: 'a', zone: 'x' }],
      ['sel-b', { tier: 'b', zone: 'y' }],
      ['sel-c', { tier: 'c' }],
    ] as const)
      await c.custom.createClusterCustomObject({ ...cl(L2), body: l2(name, {}, { labels }) });
    const names = async (labelSelector?: string, fieldSelector?: string): Promise<string[]> => {
      const r = (await c.custom.listClusterCustomObject({ ...cl(L2), labelSelector, fieldSelector })) as {
        items: KObj[];
      };
      return r.items.map((i) => i.metadata.name).filter((n) => n.startsWith('sel-'));
    };
    expect(await names('tier=a')).toEqual(['sel-a']);
    expect(await names('tier==b')).toEqual(['sel-b']);
    expect(await names('tier!=a')).toEqual(['sel-b', 'sel-c']);
    expect(await names('tier in (a,c)')).toEqual(['sel-a', 'sel-c']);
    expect(await names('tier notin (a,c),tier')).toEqual(['sel-b']);
    expect(await names('zone')).toEqual(['sel-a', 'sel-b']);
    expect(await names('!zone,tier')).toEqual(['sel-c']);
    expect(await names(undefined, 'metadata.name=sel-b')).toEqual(['sel-b']);
    expect(await names('tier', 'metadata.name!=sel-b')).toEqual(['sel-a', 'sel-c']);
    const bad = await apiError(() =>
      c.custom.listClusterCustomObject({ ...cl(L2), labelSelector: 'a in (b' }),
    );
    expect(bad.code).toBe(400);
  });

  it('filters namespaced lists by metadata.namespace', async () => {
    await c.core.createNamespace({ body: { metadata: { name: 'sel-ns' } } });
    await c.core.createNamespacedConfigMap({
      namespace: 'sel-ns',
      body: { metadata: { name: 'one' }, data: { a: '1' } },
    });
    await c.core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'two' } } });
    const all = await c.core.listConfigMapForAllNamespaces({ fieldSelector: 'metadata.namespace=sel-ns' });
    expect(all.items.map((i) => i.metadata?.name)).toEqual(['one']);
  });
});

describe('list and watch', () => {
  it('resumes a watch from a list resourceVersion and receives exactly the later changes', async () => {
    const list = (await c.custom.listClusterCustomObject(cl(NC))) as {
      metadata: { resourceVersion: string };
    };
    await c.custom.createClusterCustomObject({ ...cl(NC), body: nc('w1') });
    await c.custom.patchClusterCustomObject(
      { ...cl(NC), name: 'w1', body: { spec: { revision: 'r2' } } },
      mergePatch,
    );
    await c.custom.deleteClusterCustomObject({ ...cl(NC), name: 'w1' });
    const w = await collectWatch(c.kc, `/apis/${GROUP}/${VERSION}/${NC}`, {
      resourceVersion: list.metadata.resourceVersion,
    });
    await waitFor('three events', () => w.events.length >= 3);
    w.stop();
    expect(w.events.map((e) => `${e.type} ${e.obj.metadata.name}`)).toEqual([
      'ADDED w1',
      'MODIFIED w1',
      'DELETED w1',
    ]);
    expect(w.events[1]?.obj.spec?.revision).toBe('r2');
  });

  it('turns selector transitions into ADDED / DELETED for that watcher', async () => {
    await c.custom.createClusterCustomObject({ ...cl(NC), body: nc('trans', { labels: { pick: 'no' } }) });
    const w = await collectWatch(c.kc, `/apis/${GROUP}/${VERSION}/${NC}`, { labelSelector: 'pick=yes' });
    await c.custom.patchClusterCustomObject(
      { ...cl(NC), name: 'trans', body: { metadata: { labels: { pick: 'yes' } } } },
      mergePatch,
    );
    await c.custom.patchClusterCustomObject(
      { ...cl(NC), name: 'trans', body: { spec: { revision: 'x' } } },
      mergePatch,
    );
    await c.custom.patchClusterCustomObject(
      { ...cl(NC), name: 'trans', body: { metadata: { labels: { pick: 'no' } } } },
      mergePatch,
    );
    await waitFor('three events', () => w.events.length >= 3);
    w.stop();
    expect(w.events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
  });

  it('sends bookmarks when allowed', async () => {
    const dc = await startWithClients({ bookmarkIntervalMs: 50 });
    try {
      const w = await collectWatch(dc.kc, `/apis/${GROUP}/${VERSION}/${NC}`, { allowWatchBookmarks: true });
      const bm = await waitFor('a bookmark', () => w.events.find((e) => e.type === 'BOOKMARK'));
      w.stop();
      expect(Number(bm.obj.metadata.resourceVersion)).toBeGreaterThan(0);
    } finally {
      await dc.dc.stop();
    }
  });

  it('answers 410 Gone (a watch ERROR event) for a compacted resourceVersion; a re-list recovers', async () => {
    const small = await startWithClients({ historyLimit: 10 });
    try {
      const start = (await small.custom.listClusterCustomObject(cl(NC))) as {
        metadata: { resourceVersion: string };
      };
      for (let i = 0; i < 40; i++)
        await small.custom.createClusterCustomObject({ ...cl(NC), body: nc(`gone-${i}`) });
      const w = await collectWatch(small.kc, `/apis/${GROUP}/${VERSION}/${NC}`, {
        resourceVersion: start.metadata.resourceVersion,
      });
      await w.done;
      expect(w.events).toHaveLength(1);
      expect(w.events[0]?.type).toBe('ERROR');
      expect(w.events[0]?.obj).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });

      const relist = (await small.custom.listClusterCustomObject(cl(NC))) as {
        items: KObj[];
        metadata: { resourceVersion: string };
      };
      expect(relist.items).toHaveLength(40);
      const w2 = await collectWatch(small.kc, `/apis/${GROUP}/${VERSION}/${NC}`, {
        resourceVersion: relist.metadata.resourceVersion,
      });
      await small.custom.createClusterCustomObject({ ...cl(NC), body: nc('after') });
      await waitFor('the new object', () => w2.events.length >= 1);
      w2.stop();
      expect(w2.events.map((e) => `${e.type} ${e.obj.metadata.name}`)).toEqual(['ADDED after']);
    } finally {
      await small.dc.stop();
    }
  });

  it('an informer resuming after its watch was cut gets 410 Gone, re-lists and stays in sync', async () => {
    const small = await startWithClients({ historyLimit: 20 });
    try {
      let lists = 0;
      const informer = k8s.makeInformer<KObj & k8s.KubernetesObject>(
        small.kc,
        `/apis/${GROUP}/${VERSION}/${NC}`,
        () => {
          lists++;
          return small.custom.listClusterCustomObject(cl(NC)) as Promise<
            k8s.KubernetesListObject<KObj & k8s.KubernetesObject>
          >;
        },
      );
      await informer.start();
      await small.custom.createClusterCustomObject({ ...cl(NC), body: nc('before') });
      await waitFor(
        'the informer to see it',
        () => informer.list().some((o) => o.metadata.name === 'before') || undefined,
      );
      // control: a cut watch without compaction resumes from its resourceVersion, without a list
      expect(small.dc.dropWatches()).toBe(1);
      await waitFor('the watch to resume', () => small.dc.watchCount() === 1 || undefined);
      await small.custom.createClusterCustomObject({ ...cl(NC), body: nc('resumed') });
      await waitFor(
        'the informer to see it',
        () => informer.list().some((o) => o.metadata.name === 'resumed') || undefined,
      );
      expect(lists).toBe(1);
      await small.custom.deleteClusterCustomObject({ ...cl(NC), name: 'resumed' });

      const type = small.dc.cluster.typeFor(GROUP, VERSION, NC);
      if (!type) throw new Error('nodeconfigs not registered');
      expect(small.dc.dropWatches()).toBe(1);
      // synchronous, in-process writes: all committed before the informer can reconnect, so the
      // history it resumes from has been compacted meanwhile
      for (let i = 0; i < 50; i++) small.dc.cluster.create(type, undefined, nc(`gap-${i}`));
      small.dc.cluster.delete(type, undefined, 'before');
      await waitFor('the informer to re-list', () => {
        const names = informer.list().map((o) => o.metadata.name);
        return names.length === 50 && !names.includes('before') ? true : undefined;
      });
      expect(lists).toBeGreaterThanOrEqual(2);
      await informer.stop();
    } finally {
      await small.dc.stop();
    }
  });

  it('paginates lists with limit and continue', async () => {
    for (let i = 0; i < 5; i++)
      await c.core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name: `page-${i}`, labels: { page: 'y' } } },
      });
    const p1 = await c.core.listNamespacedConfigMap({
      namespace: 'default',
      labelSelector: 'page',
      limit: 2,
    });
    expect(p1.items.map((i) => i.metadata?.name)).toEqual(['page-0', 'page-1']);
    expect(p1.metadata?.remainingItemCount).toBe(3);
    const p2 = await c.core.listNamespacedConfigMap({
      namespace: 'default',
      labelSelector: 'page',
      limit: 2,
      _continue: p1.metadata?._continue,
    });
    const p3 = await c.core.listNamespacedConfigMap({
      namespace: 'default',
      labelSelector: 'page',
      limit: 2,
      _continue: p2.metadata?._continue,
    });
    expect([...p2.items, ...p3.items].map((i) => i.metadata?.name)).toEqual(['page-2', 'page-3', 'page-4']);
    expect(p3.metadata?._continue).toBeFalsy();
  });

  it('keeps an informer in sync across 1,000 writes', async () => {
    const path = `/apis/${GROUP}/${VERSION}/${NC}`;
    const informer = k8s.makeInformer<KObj & k8s.KubernetesObject>(
      c.kc,
      path,
      () =>
        c.custom.listClusterCustomObject({ ...cl(NC), labelSelector: 'inf=yes' }) as Promise<
          k8s.KubernetesListObject<KObj & k8s.KubernetesObject>
        >,
      'inf=yes',
    );
    await informer.start();
    try {
      let writes = 0;
      const pending: Promise<unknown>[] = [];
      for (let i = 0; i < 100; i++)
        pending.push(
          c.custom.createClusterCustomObject({ ...cl(NC), body: nc(`inf-${i}`, { labels: { inf: 'yes' } }) }),
        );
      await Promise.all(pending);
      writes += 100;
      for (let round = 0; round < 8; round++) {
        await Promise.all(
          Array.from({ length: 100 }, (_, i) =>
            c.custom.patchClusterCustomObject(
              { ...cl(NC), name: `inf-${i}`, body: { spec: { revision: `r${round}-${i}` } } },
              mergePatch,
            ),
          ),
        );
        writes += 100;
      }
      await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          c.custom.deleteClusterCustomObject({ ...cl(NC), name: `inf-${i * 2}` }),
        ),
      );
      await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          c.custom.patchClusterCustomObject(
            { ...cl(NC), name: `inf-${i * 2 + 1}`, body: { metadata: { labels: { inf: 'no' } } } },
            mergePatch,
          ),
        ),
      );
      writes += 100;
      await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          c.custom.createClusterCustomObject({
            ...cl(NC),
            body: nc(`inf-new-${i}`, { labels: { inf: 'yes' } }),
          }),
        ),
      );
      writes += 50;
      expect(writes).toBeGreaterThanOrEqual(1000);

      const server = (await c.custom.listClusterCustomObject({ ...cl(NC), labelSelector: 'inf=yes' })) as {
        items: KObj[];
      };
      const want = new Map(server.items.map((i) => [i.metadata.name, i.metadata.resourceVersion]));
      expect(want.size).toBe(50);
      await waitFor('the informer cache to converge', () => {
        const cache = informer.list();
        return cache.length === want.size &&
          cache.every((o) => want.get(o.metadata.name) === o.metadata.resourceVersion)
          ? true
          : undefined;
      });
    } finally {
      await informer.stop();
    }
  });
});

describe('deletion: finalizers and garbage collection', () => {
  it('keeps an object with finalizers until they are removed', async () => {
    await c.custom.createClusterCustomObject({
      ...cl(NC),
      body: nc('fin', { finalizers: ['nodenet.io/test'] }),
    });
    const w = await collectWatch(c.kc, `/apis/${GROUP}/${VERSION}/${NC}`, {
      fieldSelector: 'metadata.name=fin',
    });
    await c.custom.deleteClusterCustomObject({ ...cl(NC), name: 'fin' });
    const terminating = (await c.custom.getClusterCustomObject({ ...cl(NC), name: 'fin' })) as KObj;
    expect(terminating.metadata.deletionTimestamp).toBeTruthy();
    expect(terminating.metadata.generation).toBe(2);
    const forbidden = await apiError(() =>
      c.custom.patchClusterCustomObject(
        { ...cl(NC), name: 'fin', body: { metadata: { finalizers: ['nodenet.io/test', 'other.io/x'] } } },
        mergePatch,
      ),
    );
    expect(forbidden.code).toBe(422);
    await c.custom.patchClusterCustomObject(
      { ...cl(NC), name: 'fin', body: { metadata: { finalizers: null } } },
      mergePatch,
    );
    expect((await apiError(() => c.custom.getClusterCustomObject({ ...cl(NC), name: 'fin' }))).code).toBe(
      404,
    );
    await waitFor('DELETED', () => w.events.find((e) => e.type === 'DELETED'));
    w.stop();
    expect(w.events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
  });

  it('deletes a dependent whose only owner is deleted (Background)', async () => {
    const node = await c.core.createNode({ body: { metadata: { name: 'gc-node-1' } } });
    await c.custom.createClusterCustomObject({
      ...cl(NC),
      body: nc('gc-one', {
        ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'gc-node-1', uid: node.metadata?.uid }],
      }),
    });
    await c.core.deleteNode({ name: 'gc-node-1' });
    await waitFor('the dependent to be collected', async () =>
      (await apiError(() => c.custom.getClusterCustomObject({ ...cl(NC), name: 'gc-one' }))).code === 404
        ? true
        : undefined,
    );
  });

  it('with two owners, removes the dangling reference and deletes only when both are gone', async () => {
    const node = await c.core.createNode({ body: { metadata: { name: 'gc-node-2' } } });
    const owner = (await c.custom.createClusterCustomObject({ ...cl(L2), body: l2('gc-owner') })) as KObj;
    await c.custom.createClusterCustomObject({
      ...cl(NC),
      body: nc('gc-two', {
        ownerReferences: [
          { apiVersion: 'v1', kind: 'Node', name: 'gc-node-2', uid: node.metadata?.uid },
          {
            apiVersion: `${GROUP}/${VERSION}`,
            kind: 'Layer2NetworkConfiguration',
            name: 'gc-owner',
            uid: owner.metadata.uid,
          },
        ],
      }),
    });
    await c.custom.deleteClusterCustomObject({ ...cl(L2), name: 'gc-owner' });
    const trimmed = await waitFor('the dangling reference to be removed', async () => {
      const o = (await c.custom.getClusterCustomObject({ ...cl(NC), name: 'gc-two' })) as KObj;
      return o.metadata.ownerReferences?.length === 1 ? o : undefined;
    });
    expect(trimmed.metadata.ownerReferences?.[0]?.name).toBe('gc-node-2');
    await c.core.deleteNode({ name: 'gc-node-2' });
    await waitFor('the dependent to be collected', async () =>
      (await apiError(() => c.custom.getClusterCustomObject({ ...cl(NC), name: 'gc-two' }))).code === 404
        ? true
        : undefined,
    );
  });

  it('orphans dependents with propagationPolicy=Orphan', async () => {
    const node = await c.core.createNode({ body: { metadata: { name: 'gc-node-3' } } });
    await c.custom.createClusterCustomObject({
      ...cl(NC),
      body: nc('gc-orphan', {
        ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'gc-node-3', uid: node.metadata?.uid }],
      }),
    });
    await c.core.deleteNode({ name: 'gc-node-3', propagationPolicy: 'Orphan' });
    await waitFor('the owner to be gone', async () =>
      (await apiError(() => c.core.readNode({ name: 'gc-node-3' }))).code === 404 ? true : undefined,
    );
    const o = (await c.custom.getClusterCustomObject({ ...cl(NC), name: 'gc-orphan' })) as KObj;
    expect(o.metadata.ownerReferences ?? []).toEqual([]);
  });

  it('deletes dependents before the owner with propagationPolicy=Foreground', async () => {
    const owner = (await c.custom.createClusterCustomObject({ ...cl(L2), body: l2('fg-owner') })) as KObj;
    await c.custom.createClusterCustomObject({
      ...cl(NC),
      body: nc('fg-dep', {
        ownerReferences: [
          {
            apiVersion: `${GROUP}/${VERSION}`,
            kind: 'Layer2NetworkConfiguration',
            name: 'fg-owner',
            uid: owner.metadata.uid,
          },
        ],
      }),
    });
    await c.custom.deleteClusterCustomObject({
      ...cl(L2),
      name: 'fg-owner',
      propagationPolicy: 'Foreground',
    });
    await waitFor('both to be gone', async () => {
      const a = await apiError(() => c.custom.getClusterCustomObject({ ...cl(L2), name: 'fg-owner' }));
      const b = await apiError(() => c.custom.getClusterCustomObject({ ...cl(NC), name: 'fg-dep' }));
      return a.code === 404 && b.code === 404 ? true : undefined;
    });
  });

  it('deletes the contents of a deleted namespace', async () => {
    await c.core.createNamespace({ body: { metadata: { name: 'doomed' } } });
    await c.core.createNamespacedConfigMap({ namespace: 'doomed', body: { metadata: { name: 'cm' } } });
    await c.core.deleteNamespace({ name: 'doomed' });
    await waitFor('the namespace to be gone', async () =>
      (await apiError(() => c.core.readNamespace({ name: 'doomed' }))).code === 404 ? true : undefined,
    );
    expect(
      (await apiError(() => c.core.readNamespacedConfigMap({ namespace: 'doomed', name: 'cm' }))).code,
    ).toBe(404);
    const e = await apiError(() =>
      c.core.createNamespacedConfigMap({ namespace: 'doomed', body: { metadata: { name: 'cm' } } }),
    );
    expect(e.code).toBe(404);
  });
});

describe('built-in kinds', () => {
  it('serves the default namespaces', async () => {
    const ns = await c.core.listNamespace();
    expect(ns.items.map((n) => n.metadata?.name)).toEqual(
      expect.arrayContaining(['default', 'kube-system', 'kube-node-lease']),
    );
    expect(ns.items.every((n) => n.status?.phase === 'Active')).toBe(true);
  });

  it('keeps Node status on create and updates it through /status', async () => {
    const node = await c.core.createNode({
      body: {
        metadata: { name: 'node-a', labels: { 'kubernetes.io/hostname': 'node-a' } },
        status: { conditions: [{ type: 'Ready', status: 'True' }] },
      },
    });
    expect(node.status?.conditions?.[0]?.status).toBe('True');
    const patched = await c.core.patchNodeStatus(
      {
        name: 'node-a',
        body: { status: { conditions: [{ type: 'Ready', status: 'False', reason: 'KubeletDown' }] } },
      },
      strategicPatch,
    );
    expect(patched.status?.conditions).toEqual([{ type: 'Ready', status: 'False', reason: 'KubeletDown' }]);
    const spec = await c.core.patchNode(
      { name: 'node-a', body: { spec: { unschedulable: true }, status: { conditions: [] } } },
      strategicPatch,
    );
    expect(spec.spec?.unschedulable).toBe(true);
    expect(spec.status?.conditions?.[0]?.status).toBe('False');
  });

  it('stores ConfigMaps and applies strategic merge patches to them', async () => {
    await c.core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'smp', finalizers: ['a.io/x'] }, data: { a: '1' } },
    });
    const p = await c.core.patchNamespacedConfigMap(
      { namespace: 'default', name: 'smp', body: { metadata: { finalizers: ['b.io/y'] }, data: { b: '2' } } },
      strategicPatch,
    );
    expect(p.data).toEqual({ a: '1', b: '2' });
    expect(p.metadata?.finalizers).toEqual(['a.io/x', 'b.io/y']);
  });

  it('serves Leases with MicroTime and refuses times without microseconds', async () => {
    const now = new k8s.V1MicroTime();
    const lease = await c.coord.createNamespacedLease({
      namespace: 'kube-system',
      body: {
        metadata: { name: 'leader' },
        spec: { holderIdentity: 'a', leaseDurationSeconds: 15, acquireTime: now, renewTime: now },
      },
    });
    expect(lease.spec?.holderIdentity).toBe('a');
    const res = await fetch(`${c.dc.url}/apis/coordination.k8s.io/v1/namespaces/kube-system/leases`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ metadata: { name: 'bad' }, spec: { renewTime: new Date().toISOString() } }),
    });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { details: { causes: { field: string }[] } };
    expect(body.details.causes[0]?.field).toBe('spec.renewTime');
  });

  it('serves core/v1 and events.k8s.io/v1 Events as one set of objects, converted like the real server', async () => {
    await c.core.createNamespacedEvent({
      namespace: 'default',
      body: {
        metadata: { name: 'ev1' },
        involvedObject: { kind: 'Node', name: 'node-a' },
        reason: 'Test',
        message: 'hello',
        type: 'Normal',
        count: 2,
      },
    });
    const ev = await c.events.createNamespacedEvent({
      namespace: 'default',
      body: {
        metadata: { name: 'ev2' },
        eventTime: new k8s.V1MicroTime(),
        regarding: { kind: 'Node', name: 'node-a' },
        reportingController: 'nodenet.io/test',
        reportingInstance: 'x',
        action: 'Test',
        reason: 'Other',
        type: 'Warning',
        note: 'from events.k8s.io',
      },
    });
    expect(ev.note).toBe('from events.k8s.io');
    // both through the core API (what kubectl describe lists) ...
    const core = await c.core.listNamespacedEvent({
      namespace: 'default',
      fieldSelector: 'involvedObject.name=node-a',
    });
    expect(core.items.map((e) => [e.metadata?.name, e.reason, e.message])).toEqual([
      ['ev1', 'Test', 'hello'],
      ['ev2', 'Other', 'from events.k8s.io'],
    ]);
    // ... and through events.k8s.io/v1, with its field names
    const v1 = await c.events.listNamespacedEvent({
      namespace: 'default',
      fieldSelector: 'regarding.name=node-a',
    });
    expect(v1.items.map((e) => [e.metadata?.name, e.note, e.deprecatedCount])).toEqual([
      ['ev1', 'hello', 2],
      ['ev2', 'from events.k8s.io', undefined],
    ]);
    const patched = await c.events.patchNamespacedEvent(
      { namespace: 'default', name: 'ev1', body: { note: 'changed' } },
      mergePatch,
    );
    expect(patched.note).toBe('changed');
    expect((await c.core.readNamespacedEvent({ namespace: 'default', name: 'ev1' })).message).toBe('changed');
    const bad = await apiError(() =>
      c.events.createNamespacedEvent({
        namespace: 'default',
        body: {
          metadata: { name: 'ev3' },
          eventTime: '2025-01-01T00:00:00.000Z' as unknown as k8s.V1MicroTime,
        },
      }),
    );
    expect(bad.code).toBe(422);
  });
});

describe('errors and discovery', () => {
  it('answers Status objects for unknown paths, methods and bodies', async () => {
    const r404 = await fetch(`${c.dc.url}/apis/${GROUP}/${VERSION}/nothings`);
    expect(r404.status).toBe(404);
    expect(await r404.json()).toMatchObject({ kind: 'Status', code: 404, reason: 'NotFound' });
    const r405 = await fetch(`${c.dc.url}/api/v1/namespaces/default/configmaps`, {
      method: 'PUT',
      body: '{}',
    });
    expect(r405.status).toBe(405);
    expect(await r405.json()).toMatchObject({ reason: 'MethodNotAllowed' });
    const r400 = await fetch(`${c.dc.url}/api/v1/namespaces/default/configmaps`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{oops',
    });
    expect(r400.status).toBe(400);
    expect(await r400.json()).toMatchObject({ reason: 'BadRequest' });
  });

  it('lists resources with short names, categories and subresources', async () => {
    const r = (await (await fetch(`${c.dc.url}/apis/${GROUP}/${VERSION}`)).json()) as {
      resources: { name: string; shortNames?: string[]; categories?: string[] }[];
    };
    const l2r = r.resources.find((x) => x.name === L2);
    expect(l2r).toMatchObject({ shortNames: ['layer2'], categories: ['nodenet'] });
    expect(r.resources.map((x) => x.name)).toContain(`${L2}/status`);
    const groups = (await (await fetch(`${c.dc.url}/apis`)).json()) as { groups: { name: string }[] };
    expect(groups.groups.map((g) => g.name)).toEqual(
      expect.arrayContaining([GROUP, 'coordination.k8s.io', 'apiextensions.k8s.io', 'events.k8s.io']),
    );
  });

  it('registers and establishes CRDs created through the API, and removes their objects on delete', async () => {
    const crd = await c.ext.readCustomResourceDefinition({ name: `${L2}.${GROUP}` });
    const copy = JSON.parse(JSON.stringify(crd)) as k8s.V1CustomResourceDefinition;
    copy.metadata = { name: `widgets.example.nodenet.io` };
    copy.spec.group = 'example.nodenet.io';
    copy.spec.names = { plural: 'widgets', kind: 'Widget' };
    delete copy.status;
    await c.ext.createCustomResourceDefinition({ body: copy });
    const established = await waitFor('Established', async () => {
      const got = await c.ext.readCustomResourceDefinition({ name: 'widgets.example.nodenet.io' });
      return got.status?.conditions?.find((x) => x.type === 'Established' && x.status === 'True')
        ? got
        : undefined;
    });
    expect(established.status?.acceptedNames?.kind).toBe('Widget');
    await c.custom.createClusterCustomObject({
      group: 'example.nodenet.io',
      version: VERSION,
      plural: 'widgets',
      body: {
        apiVersion: `example.nodenet.io/${VERSION}`,
        kind: 'Widget',
        metadata: { name: 'w' },
        spec: { id: 1, vni: 1 },
      },
    });
    await c.ext.deleteCustomResourceDefinition({ name: 'widgets.example.nodenet.io' });
    await waitFor('the CRD to be gone', async () =>
      (await apiError(() => c.ext.readCustomResourceDefinition({ name: 'widgets.example.nodenet.io' })))
        .code === 404
        ? true
        : undefined,
    );
    const r = await fetch(`${c.dc.url}/apis/example.nodenet.io/${VERSION}/widgets`);
    expect(r.status).toBe(404);
  });

  it('refuses a CRD whose CEL rule does not compile, naming the rule, and keeps nothing of it', async () => {
    const crd = await c.ext.readCustomResourceDefinition({ name: `${L2}.${GROUP}` });
    const copy = JSON.parse(JSON.stringify(crd)) as k8s.V1CustomResourceDefinition;
    copy.metadata = { name: `gadgets.example.nodenet.io` };
    copy.spec.group = 'example.nodenet.io';
    copy.spec.names = { plural: 'gadgets', kind: 'Gadget' };
    delete copy.status;
    copy.spec.versions[0]!.schema!.openAPIV3Schema!.x_kubernetes_validations = [{ rule: 'self.spec >' }];
    const err = await apiError(() => c.ext.createCustomResourceDefinition({ body: copy }));
    expect(err.code).toBe(422);
    expect(err.status.message).toMatch(
      /spec\.versions\[0\]\.schema\.openAPIV3Schema\.x-kubernetes-validations\[0\]\.rule: Invalid value: "self\.spec >": compilation failed/,
    );
    expect(
      (await apiError(() => c.ext.readCustomResourceDefinition({ name: 'gadgets.example.nodenet.io' }))).code,
    ).toBe(404);
  });

  it('renders server-side Tables from printer columns', async () => {
    await c.custom.createClusterCustomObject({
      ...cl(L2),
      body: l2('table', { id: 77, vni: 7700, vrf: 'red' }),
    });
    await c.custom.patchClusterCustomObjectStatus(
      { ...cl(L2), name: 'table', body: { status: { conditions: [{ type: 'Accepted', status: 'True' }] } } },
      mergePatch,
    );
    const r = await fetch(`${c.dc.url}/apis/${GROUP}/${VERSION}/${L2}/table`, {
      headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' },
    });
    const t = (await r.json()) as {
      kind: string;
      columnDefinitions: { name: string; priority: number }[];
      rows: { cells: unknown[]; object: { kind: string } }[];
    };
    expect(t.kind).toBe('Table');
    expect(t.columnDefinitions.map((x) => x.name)).toEqual([
      'Name',
      'VLAN',
      'VNI',
      'VRF',
      'Accepted',
      'MTU',
      'Age',
    ]);
    expect(t.columnDefinitions.find((x) => x.name === 'MTU')?.priority).toBe(1);
    expect(t.rows[0]?.cells.slice(0, 6)).toEqual(['table', 77, 7700, 'red', 'True', 9000]);
    expect(t.rows[0]?.cells[6]).toMatch(/^\d+s$/);
    expect(t.rows[0]?.object.kind).toBe('PartialObjectMetadata');
  });
});
