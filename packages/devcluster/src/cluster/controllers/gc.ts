/**
 * Garbage collector: ownerReference cascades. Dependents whose owners are all gone are deleted; dangling
 * references of the rest are trimmed; the orphan and foregroundDeletion finalizers are carried out.
 */
import type { StoredObject } from '../../storage/store.js';
import { clone, type OwnerReference } from '../../objects/types.js';
import { FOREGROUND, ORPHAN } from '../writes.js';
import type { ControllerContext } from './context.js';

export class GarbageCollector {
  constructor(private readonly ctx: ControllerContext) {}

  /** Dependents of a vanished owner: delete those without live owners, trim dangling references of the rest. */
  collectDependents(ownerUid: string): void {
    for (const loc of [...(this.ctx.store.dependents.get(ownerUid) ?? [])]) {
      const [storageKey, key] = loc.split('\0') as [string, string];
      this.collectOne(storageKey, key);
    }
  }

  collectOne(storageKey: string, key: string): void {
    const s = this.ctx.store.get(storageKey, key);
    const t = this.ctx.registry.typeForStorageKey(storageKey);
    if (!s || !t) return;
    const refs = s.obj.metadata.ownerReferences ?? [];
    const live = refs.filter((r) => this.ownerAlive(r));
    if (live.length === refs.length) return;
    const ns = s.obj.metadata.namespace;
    const name = s.obj.metadata.name ?? '';
    if (live.length === 0) {
      if (!s.obj.metadata.deletionTimestamp)
        this.ctx.writes.delete(t, ns, name, { propagationPolicy: 'Background' });
      return;
    }
    const next = clone(s.obj);
    next.metadata.ownerReferences = live;
    this.ctx.writes.update(t, { namespace: ns, name }, next);
  }

  private ownerAlive(ref: OwnerReference): boolean {
    const loc = this.ctx.store.uids.get(ref.uid);
    if (!loc) return false;
    const owner = this.ctx.store.get(loc.storageKey, loc.key);
    return owner !== undefined && owner.obj.metadata.name === ref.name;
  }

  private removeFinalizer(stored: StoredObject, finalizer: string): void {
    const t = this.ctx.registry.typeForStorageKey(this.locate(stored)?.storageKey ?? '');
    if (!t) return;
    const next = clone(stored.obj);
    next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    this.ctx.writes.update(t, { namespace: next.metadata.namespace, name: next.metadata.name ?? '' }, next);
  }

  private locate(stored: StoredObject): { storageKey: string; key: string } | undefined {
    return stored.obj.metadata.uid ? this.ctx.store.uids.get(stored.obj.metadata.uid) : undefined;
  }

  orphanDependents(owner: StoredObject): void {
    const uid = owner.obj.metadata.uid ?? '';
    for (const loc of [...(this.ctx.store.dependents.get(uid) ?? [])]) {
      const [storageKey, key] = loc.split('\0') as [string, string];
      const s = this.ctx.store.get(storageKey, key);
      const t = this.ctx.registry.typeForStorageKey(storageKey);
      if (!s || !t) continue;
      const next = clone(s.obj);
      next.metadata.ownerReferences = (next.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
      this.ctx.writes.update(t, { namespace: next.metadata.namespace, name: next.metadata.name ?? '' }, next);
    }
    const current = this.ctx.store.uids.get(uid);
    const s = current && this.ctx.store.get(current.storageKey, current.key);
    if (s) this.removeFinalizer(s, ORPHAN);
  }

  /** Foreground deletion: delete the dependents, then release the owner once none is left. */
  foregroundStep(ownerUid: string): void {
    const loc = this.ctx.store.uids.get(ownerUid);
    const owner = loc && this.ctx.store.get(loc.storageKey, loc.key);
    if (
      !owner ||
      !owner.obj.metadata.finalizers?.includes(FOREGROUND) ||
      !owner.obj.metadata.deletionTimestamp
    )
      return;
    const deps = [...(this.ctx.store.dependents.get(ownerUid) ?? [])];
    if (deps.length === 0) {
      this.removeFinalizer(owner, FOREGROUND);
      return;
    }
    for (const d of deps) {
      const [storageKey, key] = d.split('\0') as [string, string];
      const s = this.ctx.store.get(storageKey, key);
      const t = this.ctx.registry.typeForStorageKey(storageKey);
      if (s && t && !s.obj.metadata.deletionTimestamp)
        this.ctx.writes.delete(t, s.obj.metadata.namespace, s.obj.metadata.name ?? '', {
          propagationPolicy: 'Foreground',
        });
    }
  }
}
