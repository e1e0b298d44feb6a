/**
 * The order in which the configurator saw its inputs created, to break ties of `creationTimestamp`
 * (one-second resolution) in the blame rule (@nodenet/api claims.ts): two objects that claim the
 * same VLAN, VNI or interface name within one second go to the one the API server created first.
 *
 * What is recorded: the resourceVersion at which this process first saw each object. An object
 * that arrives on a watch as ADDED carries the resourceVersion of its creation, and the API server
 * numbers every write of every kind from one counter (etcd's revision; devcluster's too), so for
 * objects created while the configurator watches this is exactly the API server's creation order,
 * across kinds, whatever order the separate watches deliver them in. Later writes (edits, the
 * status this configurator writes) do not change it.
 *
 * Limits (docs/resources.md, "Which object is refused"): an object first seen in a list (the
 * configurator starting, a relist after a 410 Gone) is ranked by its resourceVersion then, which is
 * its creation's only if it was not written since; after a restart this memory is gone. Both matter
 * only for two objects created within one second of each other and neither in the revision in force
 * (the winner of an earlier build is in force and keeps its claim). A resourceVersion that is not a
 * decimal integer (an API server other than etcd-backed ones) gives no order: kind and name decide.
 */
import type { InputObject } from '@nodenet/api';

interface Seen {
  uid: string | undefined;
  order: bigint | undefined;
}

export class CreationOrder {
  /** Per input (`Kind/name`), the object it was when first seen. */
  private readonly seen = new Map<string, Seen>();

  /** An informer event of an input (add, update, delete, resync). */
  note(e: { type: string; object: InputObject }): void {
    const { kind, metadata } = e.object;
    const key = `${kind}/${metadata.name}`;
    if (e.type === 'delete') {
      this.seen.delete(key);
      return;
    }
    const known = this.seen.get(key);
    // An object re-created under the same name (its delete missed during a relist) is new.
    if (known !== undefined && known.uid === metadata.uid) return;
    const rv = metadata.resourceVersion;
    this.seen.set(key, { uid: metadata.uid, order: rv && /^\d+$/.test(rv) ? BigInt(rv) : undefined });
  }

  /** Smaller was created first; undefined when unknown. */
  of(o: InputObject): bigint | undefined {
    const known = this.seen.get(`${o.kind}/${o.metadata.name}`);
    return known !== undefined && known.uid === o.metadata.uid ? known.order : undefined;
  }
}
