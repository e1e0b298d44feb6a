/**
 * CRD controllers: conditions, accepted names and stored versions once a CRD is written (establishing),
 * and on deletion the removal of every instance first (the customresourcecleanup finalizer's job).
 */
import { findCondition, transition, type Condition } from '@nodenet/api';
import { CRD_KEY } from '../../resources/registry.js';
import type { CrdSpec } from '../../resources/resources.js';
import { clone, isObject, type KObject } from '../../objects/types.js';
import { nowTimestamp } from '../writes.js';
import type { ControllerContext } from './context.js';

export class CrdController {
  constructor(private readonly ctx: ControllerContext) {}

  /** The CRD that defines the type stored under a storage key. */
  crdFor(storageKey: string): KObject | undefined {
    const t = this.ctx.registry.typeForStorageKey(storageKey);
    return t?.crd ? this.ctx.store.get(CRD_KEY, t.crd)?.obj : undefined;
  }

  hasInstances(crd: KObject): boolean {
    const spec = crd.spec as CrdSpec | undefined;
    return spec ? this.ctx.store.count(`${spec.group}/${spec.names.plural}`) > 0 : false;
  }

  /** CRD deletion: remove every instance first, then the CRD. */
  cleanupStep(name: string): void {
    const crd = this.ctx.store.get(CRD_KEY, name);
    if (!crd?.obj.metadata.deletionTimestamp) return;
    const spec = crd.obj.spec as CrdSpec;
    const storageKey = `${spec.group}/${spec.names.plural}`;
    const t = this.ctx.registry.typeForStorageKey(storageKey);
    if (t)
      for (const s of this.ctx.store.list(storageKey))
        if (!s.obj.metadata.deletionTimestamp)
          this.ctx.writes.delete(t, s.obj.metadata.namespace, s.obj.metadata.name ?? '');
    if (this.ctx.store.count(storageKey) > 0 || (crd.obj.metadata.finalizers ?? []).length) return;
    const cur = this.ctx.store.get(CRD_KEY, name);
    if (!cur) return;
    const next = clone(cur.obj);
    const rv = this.ctx.store.nextResourceVersion();
    next.metadata.resourceVersion = String(rv);
    this.ctx.store.commit('DELETED', CRD_KEY, name, { obj: next, rv });
  }

  /** Sets NamesAccepted / Established, acceptedNames and storedVersions, as the CRD controllers do. */
  establish(name: string): void {
    const cur = this.ctx.store.get(CRD_KEY, name);
    if (!cur || cur.obj.metadata.deletionTimestamp) return;
    const spec = cur.obj.spec as CrdSpec;
    const now = nowTimestamp();
    const status = isObject(cur.obj.status) ? clone(cur.obj.status) : {};
    const prevConds = Array.isArray(status.conditions) ? (status.conditions as Condition[]) : [];
    const cond = (type: string, reason: string, message: string): Condition =>
      transition(findCondition(prevConds, type), { type, status: 'True', reason, message }, now);
    const storage = spec.versions.find((v) => v.storage)?.name;
    const stored = new Set<string>(
      Array.isArray(status.storedVersions) ? (status.storedVersions as string[]) : [],
    );
    if (storage) stored.add(storage);
    const next = clone(cur.obj);
    next.status = {
      conditions: [
        cond('NamesAccepted', 'NoConflicts', 'no conflicts found'),
        cond('Established', 'InitialNamesAccepted', 'the initial names have been accepted'),
      ],
      acceptedNames: {
        plural: spec.names.plural,
        singular: spec.names.singular ?? spec.names.kind.toLowerCase(),
        kind: spec.names.kind,
        listKind: spec.names.listKind ?? `${spec.names.kind}List`,
        ...(spec.names.shortNames ? { shortNames: spec.names.shortNames } : {}),
        ...(spec.names.categories ? { categories: spec.names.categories } : {}),
      },
      storedVersions: [...stored],
    };
    const t = this.ctx.registry.mustType('apiextensions.k8s.io', 'v1', 'customresourcedefinitions');
    this.ctx.writes.update(t, { namespace: undefined, name, subresource: 'status' }, next);
  }
}
