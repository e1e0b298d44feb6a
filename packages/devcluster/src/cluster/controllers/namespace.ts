/** Namespace controller: a terminating namespace's contents are deleted, then the namespace itself. */
import { NS_KEY } from '../../resources/registry.js';
import { storageKeyOf } from '../../resources/resources.js';
import { clone } from '../../objects/types.js';
import type { ControllerContext } from './context.js';

export class NamespaceController {
  constructor(private readonly ctx: ControllerContext) {}

  /** Deletes the contents of a terminating namespace, then the namespace once none is left. */
  step(name: string): void {
    const ns = this.ctx.store.get(NS_KEY, name);
    if (!ns?.obj.metadata.deletionTimestamp) return;
    let remaining = 0;
    for (const t of this.ctx.registry.namespacedStorageTypes()) {
      for (const s of this.ctx.store.list(storageKeyOf(t), name)) {
        remaining++;
        if (!s.obj.metadata.deletionTimestamp) this.ctx.writes.delete(t, name, s.obj.metadata.name ?? '');
      }
    }
    if (remaining > 0 && this.count(name) > 0) return;
    if ((ns.obj.metadata.finalizers ?? []).length) return; // other finalizers hold it
    const cur = this.ctx.store.get(NS_KEY, name);
    if (!cur) return;
    const next = clone(cur.obj);
    next.spec = { finalizers: [] };
    const rv = this.ctx.store.nextResourceVersion();
    next.metadata.resourceVersion = String(rv);
    this.ctx.store.commit('DELETED', NS_KEY, name, { obj: next, rv });
  }

  private count(name: string): number {
    let n = 0;
    for (const t of this.ctx.registry.namespacedStorageTypes())
      n += this.ctx.store.list(storageKeyOf(t), name).length;
    return n;
  }
}
