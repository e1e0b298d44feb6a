/**
 * The API server's state and behaviour without HTTP: the store, the registered types, the write rules
 * (`writes.ts`, `strategy.ts`, `apply.ts`) and the built-in controllers (`controllers/`), wired
 * together. Writes are synchronous; the controllers react to committed changes from a queue drained
 * on a later turn of the event loop.
 */
import { AppliedConfigs } from './apply.js';
import type { AdmissionAttributes } from './admission.js';
import { CrdController } from './controllers/crd.js';
import { GarbageCollector } from './controllers/gc.js';
import { NamespaceController } from './controllers/namespace.js';
import { ControllerQueue } from './controllers/queue.js';
import { CRD_KEY, NS_KEY, TypeRegistry } from '../resources/registry.js';
import type { ResourceType } from '../resources/resources.js';
import { deepEqual } from '../schema/schema.js';
import { objectKey, Store, type StoredObject } from '../storage/store.js';
import type { KObject } from '../objects/types.js';
import { FOREGROUND, ORPHAN, Writes } from './writes.js';

export type { FieldValidation, WriteOptions } from './strategy.js';
export type { DeleteOptions, PropagationPolicy } from './writes.js';
export { appliedConfigPatch } from './apply.js';

export const DEFAULT_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export class Cluster {
  readonly store: Store;
  private readonly registry = new TypeRegistry();
  private readonly queue = new ControllerQueue();
  private readonly applied = new AppliedConfigs();
  private readonly writes: Writes;
  private readonly gc: GarbageCollector;
  private readonly namespaces: NamespaceController;
  private readonly crds: CrdController;

  constructor(historyLimit?: number, maxObjectBytes?: number) {
    this.store = new Store(historyLimit);
    this.writes = new Writes({
      store: this.store,
      registry: this.registry,
      applied: this.applied,
      hooks: {
        hasInstances: (crd) => this.crds.hasInstances(crd),
        markedForDeletion: (t, stored, finalizers) => this.markedForDeletion(t, stored, finalizers),
        validatingAdmission: (a) => this.validatingAdmission?.(a),
      },
      maxObjectBytes,
    });
    this.get = this.writes.get.bind(this.writes);
    this.list = this.writes.list.bind(this.writes);
    this.create = this.writes.create.bind(this.writes);
    this.update = this.writes.update.bind(this.writes);
    this.patch = this.writes.patch.bind(this.writes);
    this.delete = this.writes.delete.bind(this.writes);
    const ctx = { store: this.store, registry: this.registry, writes: this.writes, queue: this.queue };
    this.gc = new GarbageCollector(ctx);
    this.namespaces = new NamespaceController(ctx);
    this.crds = new CrdController(ctx);
    this.store.onCommit((ev) => this.afterCommit(ev.type, ev.storageKey, ev.stored.obj, ev.prev?.obj));
  }

  /** Creates the default namespaces that do not exist yet. */
  bootstrap(): void {
    const nsType = this.registry.mustType('', 'v1', 'namespaces');
    for (const name of DEFAULT_NAMESPACES) {
      if (!this.store.get(NS_KEY, name))
        this.create(nsType, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    }
  }

  /** Resolves once the controller queue (GC, namespace and CRD lifecycle) is empty. */
  settle(): Promise<void> {
    return this.queue.settle();
  }

  stop(): void {
    this.queue.stop();
  }

  /**
   * Validating admission run on every write, set when admission is on (`--authorization-mode
   * RBAC`): throws the ApiError that refuses the write.
   */
  validatingAdmission: ((a: AdmissionAttributes) => void) | undefined;

  // ---------------------------------------------------------------- types

  typeFor(group: string, version: string, plural: string): ResourceType | undefined {
    return this.registry.typeFor(group, version, plural);
  }

  allTypes(): ResourceType[] {
    return this.registry.all();
  }

  /** (Re)registers the types a CRD object defines. */
  registerCrd(crd: KObject): void {
    this.registry.registerCrd(crd);
  }

  /** Registers the CRDs found in persisted state (start-up). */
  registerStoredCrds(): void {
    for (const s of this.store.list(CRD_KEY)) this.registry.registerCrd(s.obj);
  }

  // ---------------------------------------------------------------- reads and writes

  // the write rules live in writes.ts; these are the in-process API (tests, benchmarks, start-up)
  readonly get: Writes['get'];
  readonly list: Writes['list'];
  readonly create: Writes['create'];
  readonly update: Writes['update'];
  readonly patch: Writes['patch'];
  readonly delete: Writes['delete'];

  // ---------------------------------------------------------------- controller wiring

  /** A delete that only marked the object: the work its finalizers or kind call for. */
  private markedForDeletion(t: ResourceType, stored: StoredObject, finalizers: string[]): void {
    const name = stored.obj.metadata.name ?? '';
    const uid = stored.obj.metadata.uid ?? '';
    if (finalizers.includes(ORPHAN)) this.queue.enqueue(() => this.gc.orphanDependents(stored));
    if (finalizers.includes(FOREGROUND)) this.queue.enqueue(() => this.gc.foregroundStep(uid));
    if (t.plural === 'namespaces' && !t.group) this.queue.enqueue(() => this.namespaces.step(name));
    if (t.plural === 'customresourcedefinitions') this.queue.enqueue(() => this.crds.cleanupStep(name));
  }

  /** Reacts to committed changes: GC of dependents, namespace and CRD lifecycle. */
  private afterCommit(
    type: 'ADDED' | 'MODIFIED' | 'DELETED',
    storageKey: string,
    obj: KObject,
    prev?: KObject,
  ): void {
    const uid = obj.metadata.uid;
    const enqueue = (work: () => void): void => this.queue.enqueue(work);
    if (type === 'DELETED') {
      if (uid) this.applied.forget(uid);
      if (uid && this.store.dependents.get(uid)?.size) enqueue(() => this.gc.collectDependents(uid));
      for (const ref of obj.metadata.ownerReferences ?? []) enqueue(() => this.gc.foregroundStep(ref.uid));
      if (obj.metadata.namespace) {
        const ns = this.store.get(NS_KEY, obj.metadata.namespace);
        if (ns?.obj.metadata.deletionTimestamp)
          enqueue(() => this.namespaces.step(obj.metadata.namespace ?? ''));
      }
      if (storageKey === CRD_KEY) this.registry.unregisterCrd(obj.metadata.name ?? '');
      else {
        const crd = this.crds.crdFor(storageKey);
        if (crd?.metadata.deletionTimestamp) enqueue(() => this.crds.cleanupStep(crd.metadata.name ?? ''));
      }
      return;
    }
    if (storageKey === CRD_KEY) {
      this.registry.registerCrd(obj);
      if (!prev || !deepEqual(prev.spec, obj.spec))
        enqueue(() => this.crds.establish(obj.metadata.name ?? ''));
    }
    const refs = obj.metadata.ownerReferences;
    if (refs?.some((r) => !this.store.uids.has(r.uid))) {
      const key = objectKey(obj.metadata.namespace, obj.metadata.name ?? '');
      enqueue(() => this.gc.collectOne(storageKey, key));
    }
  }
}
