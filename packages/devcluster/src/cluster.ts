/**
 * API semantics on top of the store: create / update / patch / delete with Kubernetes rules
 * (resourceVersion preconditions, generation, status subresource, finalizers, validation, defaulting,
 * pruning), CRD registration, namespace lifecycle and ownerReference garbage collection.
 * Everything here is synchronous; follow-up work (GC, namespace cleanup, CRD conditions) runs from a
 * queue drained on the next turn of the event loop, as the real controllers do it asynchronously.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  ApiError,
  alreadyExists,
  badRequest,
  conflict,
  invalid,
  notFound,
  type FieldError,
} from './errors.js';
import { validateMetadata, validateName } from './metadata.js';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch, type PatchType } from './patch.js';
import {
  BUILTIN_TYPES,
  apiVersionOf,
  storageKeyOf,
  viewOf,
  typesFromCrd,
  type CrdSpec,
  type ResourceType,
} from './resources.js';
import { applyDefaults, deepEqual, prune, validate } from './schema.js';
import { objectKey, Store, type StoredObject } from './store.js';
import { clone, isObject, type KObject, type OwnerReference } from './types.js';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export interface WriteOptions {
  dryRun?: boolean;
  /** `?fieldManager=`; required for server-side apply. */
  fieldManager?: string;
  fieldValidation?: FieldValidation;
  /** Filled with warnings to send back as `Warning` headers. */
  warnings?: string[];
}

export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

export interface DeleteOptions {
  propagationPolicy?: PropagationPolicy;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
}

export const DEFAULT_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];
const CRD_KEY = 'apiextensions.k8s.io/customresourcedefinitions';
const NS_KEY = '/namespaces';
const FOREGROUND = 'foregroundDeletion';
const ORPHAN = 'orphan';

const nowTimestamp = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

function generateSuffix(): string {
  // the alphabet of k8s.io/apimachinery/pkg/util/rand (no vowels, no confusable digits)
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  return [...randomBytes(5)].map((b) => alphabet[b % alphabet.length]).join('');
}

/** Everything but metadata and status, for generation tracking. */
function specPart(obj: KObject): Record<string, unknown> {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}

export class Cluster {
  readonly store: Store;
  private readonly types = new Map<string, ResourceType>();
  private readonly queue: (() => void)[] = [];
  /** Server-side apply: last applied configuration per object uid and field manager. */
  private readonly appliedConfigs = new Map<string, Map<string, unknown>>();
  private drainScheduled = false;
  private stopped = false;

  constructor(historyLimit?: number) {
    this.store = new Store(historyLimit);
    for (const t of BUILTIN_TYPES) this.types.set(this.typeKey(t.group, t.version, t.plural), t);
    this.store.onCommit((ev) => this.afterCommit(ev.type, ev.storageKey, ev.stored.obj, ev.prev?.obj));
  }

  /** Creates the default namespaces that do not exist yet. */
  bootstrap(): void {
    const nsType = this.mustType('', 'v1', 'namespaces');
    for (const name of DEFAULT_NAMESPACES) {
      if (!this.store.get(NS_KEY, name))
        this.create(nsType, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    }
  }

  /** Resolves once the controller queue (GC, namespace and CRD lifecycle) is empty. */
  async settle(): Promise<void> {
    while (this.queue.length || this.drainScheduled) await new Promise((r) => setImmediate(r));
  }

  stop(): void {
    this.stopped = true;
    this.queue.length = 0;
  }

  // ---------------------------------------------------------------- types

  private typeKey(group: string, version: string, plural: string): string {
    return `${group}/${version}/${plural}`;
  }

  typeFor(group: string, version: string, plural: string): ResourceType | undefined {
    return this.types.get(this.typeKey(group, version, plural));
  }

  private mustType(group: string, version: string, plural: string): ResourceType {
    const t = this.typeFor(group, version, plural);
    if (!t) throw new Error(`unknown built-in type ${group}/${version}/${plural}`);
    return t;
  }

  allTypes(): ResourceType[] {
    return [...this.types.values()];
  }

  /** (Re)registers the types a CRD object defines. */
  registerCrd(crd: KObject): void {
    const name = crd.metadata.name ?? '';
    for (const [k, t] of this.types) if (t.crd === name) this.types.delete(k);
    for (const t of typesFromCrd(name, crd.spec as CrdSpec))
      this.types.set(this.typeKey(t.group, t.version, t.plural), t);
  }

  private unregisterCrd(name: string): void {
    for (const [k, t] of this.types) if (t.crd === name) this.types.delete(k);
  }

  /** Registers the CRDs found in persisted state (start-up). */
  registerStoredCrds(): void {
    for (const s of this.store.list(CRD_KEY)) this.registerCrd(s.obj);
  }

  // ---------------------------------------------------------------- reads

  get(t: ResourceType, namespace: string | undefined, name: string): StoredObject {
    const s = this.store.get(storageKeyOf(t), objectKey(t.namespaced ? namespace : undefined, name));
    if (!s) throw notFound(t.plural, t.group, name);
    return s;
  }

  list(t: ResourceType, namespace: string | undefined): StoredObject[] {
    return this.store.list(storageKeyOf(t), t.namespaced ? namespace : undefined);
  }

  // ---------------------------------------------------------------- writes

  private checkNamespace(t: ResourceType, namespace: string | undefined, creating: boolean): void {
    if (!t.namespaced) return;
    if (!namespace)
      throw badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    const ns = this.store.get(NS_KEY, namespace);
    if (!ns) throw notFound('namespaces', '', namespace);
    if (creating && ns.obj.metadata.deletionTimestamp)
      throw new ApiError(
        403,
        'Forbidden',
        `${t.plural}${t.group ? '.' + t.group : ''} "" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
      );
  }

  private decodeBody(t: ResourceType, body: unknown): KObject {
    if (!isObject(body)) throw badRequest(`the body of the request was not a ${t.kind} object`);
    const obj = clone(body) as KObject;
    if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
    if (!isObject(obj.metadata)) throw badRequest('metadata must be an object');
    const expected = apiVersionOf(t);
    if (obj.kind !== undefined && obj.kind !== t.kind)
      throw badRequest(
        `the kind in the data (${String(obj.kind)}) does not match the expected kind (${t.kind})`,
      );
    if (obj.apiVersion !== undefined && obj.apiVersion !== expected)
      throw badRequest(
        `the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${expected})`,
      );
    obj.apiVersion = expected;
    obj.kind = t.kind;
    return obj;
  }

  /** Defaulting, pruning and validation; throws 422 (or 400 for strict unknown fields). */
  private admit(t: ResourceType, obj: KObject, opts: WriteOptions): void {
    if (t.crd && t.schema) {
      applyDefaults(obj, t.schema);
      const removed = prune(obj, t.schema);
      if (removed.length) {
        const mode = opts.fieldValidation ?? 'Warn';
        if (mode === 'Strict')
          throw badRequest(
            `${t.kind} in version "${t.version}" cannot be handled as a ${t.kind}: strict decoding error: ${removed.map((p) => `unknown field "${p}"`).join(', ')}`,
          );
        if (mode === 'Warn') opts.warnings?.push(...removed.map((p) => `unknown field "${p}"`));
      }
    }
    const errs: FieldError[] = validateMetadata(obj, t.plural === 'namespaces');
    if (t.schema) errs.push(...validate(obj, t.schema));
    if (t.validateBuiltin) errs.push(...t.validateBuiltin(obj));
    if (t.plural === 'customresourcedefinitions' && t.group === 'apiextensions.k8s.io')
      errs.push(...validateCrd(obj));
    if (errs.length) throw invalid(t.kind, t.group, obj.metadata.name ?? '', errs);
  }

  /** The type that owns the storage a converting type (events.k8s.io Events) shares. */
  private storageType(t: ResourceType): ResourceType {
    const owner = this.typeForStorageKey(storageKeyOf(t));
    if (!owner) throw new Error(`no type stores ${storageKeyOf(t)}`);
    return owner;
  }

  /** Decodes and checks a body in a converting type's own form, then converts it to the stored form. */
  private toStorage(t: ResourceType, body: unknown): KObject {
    const obj = this.decodeBody(t, body);
    const errs = t.validateBuiltin?.(obj) ?? [];
    if (errs.length) throw invalid(t.kind, t.group, obj.metadata.name ?? '', errs);
    return t.convert ? t.convert.toStorage(obj) : obj;
  }

  create(
    t: ResourceType,
    namespace: string | undefined,
    body: unknown,
    opts: WriteOptions = {},
  ): StoredObject {
    if (t.convert) return this.create(this.storageType(t), namespace, this.toStorage(t, body), opts);
    const obj = this.decodeBody(t, body);
    const m = obj.metadata;
    if (t.namespaced) {
      if (m.namespace !== undefined && m.namespace !== '' && m.namespace !== namespace)
        throw badRequest(
          'the namespace of the provided object does not match the namespace sent on the request',
        );
      m.namespace = namespace;
    } else delete m.namespace;
    if (m.resourceVersion) throw badRequest('resourceVersion should not be set on objects to be created');
    if (!m.name) {
      if (m.generateName) m.name = `${m.generateName}${generateSuffix()}`;
      else
        throw invalid(t.kind, t.group, '', [
          {
            type: 'FieldValueRequired',
            field: 'metadata.name',
            message: 'Required value: name or generateName is required',
          },
        ]);
    }
    this.checkNamespace(t, namespace, true);
    const key = objectKey(t.namespaced ? namespace : undefined, m.name);
    if (this.store.get(storageKeyOf(t), key)) throw alreadyExists(t.plural, t.group, m.name);

    m.uid = randomUUID();
    m.creationTimestamp = nowTimestamp();
    delete m.deletionTimestamp;
    delete m.deletionGracePeriodSeconds;
    if (t.generation) m.generation = 1;
    else delete m.generation;
    if (t.statusSubresource && !t.keepStatusOnCreate) delete obj.status;
    if (t.plural === 'namespaces' && !t.group) {
      obj.spec = { finalizers: ['kubernetes'] };
      obj.status = { phase: 'Active' };
    }
    if (t.plural === 'customresourcedefinitions') defaultCrd(obj);
    this.admit(t, obj, opts);
    if (opts.dryRun) return { obj, rv: this.store.resourceVersion };
    const rv = this.store.nextResourceVersion();
    m.resourceVersion = String(rv);
    return this.store.commit('ADDED', storageKeyOf(t), key, obj, rv).stored;
  }

  update(
    t: ResourceType,
    namespace: string | undefined,
    name: string,
    body: unknown,
    opts: WriteOptions = {},
    subresource?: 'status',
  ): StoredObject {
    if (t.convert)
      return this.update(this.storageType(t), namespace, name, this.toStorage(t, body), opts, subresource);
    const old = this.get(t, namespace, name);
    const incoming = this.decodeBody(t, body);
    if (incoming.metadata.name !== undefined && incoming.metadata.name !== name)
      throw badRequest(
        `the name of the object (${String(incoming.metadata.name)}) does not match the name on the URL (${name})`,
      );
    if (t.namespaced && incoming.metadata.namespace && incoming.metadata.namespace !== namespace)
      throw badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    const rv = incoming.metadata.resourceVersion;
    if (rv !== undefined && rv !== '' && rv !== old.obj.metadata.resourceVersion)
      throw conflict(
        t.plural,
        t.group,
        name,
        'the object has been modified; please apply your changes to the latest version and try again',
      );
    if ((rv === undefined || rv === '') && t.requireResourceVersion)
      throw invalid(t.kind, t.group, name, [
        {
          type: 'FieldValueInvalid',
          field: 'metadata.resourceVersion',
          message: 'Invalid value: 0x0: must be specified for an update',
        },
      ]);

    let next: KObject;
    if (subresource === 'status') {
      next = clone(old.obj);
      if (incoming.status === undefined) delete next.status;
      else next.status = incoming.status;
    } else {
      next = incoming;
      if (t.statusSubresource) {
        if (old.obj.status === undefined) delete next.status;
        else next.status = clone(old.obj.status);
      }
      const m = next.metadata;
      const om = old.obj.metadata;
      m.name = om.name;
      if (t.namespaced) m.namespace = om.namespace;
      else delete m.namespace;
      m.uid = om.uid;
      m.creationTimestamp = om.creationTimestamp;
      if (om.deletionTimestamp) {
        m.deletionTimestamp = om.deletionTimestamp;
        m.deletionGracePeriodSeconds = om.deletionGracePeriodSeconds;
        const added = (m.finalizers ?? []).filter((f) => !(om.finalizers ?? []).includes(f));
        if (added.length)
          throw invalid(t.kind, t.group, name, [
            {
              type: 'FieldValueForbidden',
              field: 'metadata.finalizers',
              message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
            },
          ]);
      } else {
        delete m.deletionTimestamp;
        delete m.deletionGracePeriodSeconds;
      }
      if (t.generation) m.generation = om.generation;
      else delete m.generation;
      if (m.finalizers && m.finalizers.length === 0) delete m.finalizers;
      if (m.ownerReferences && m.ownerReferences.length === 0) delete m.ownerReferences;
    }
    if (t.plural === 'customresourcedefinitions') defaultCrd(next);
    this.admit(t, next, opts);
    if (t.generation && !deepEqual(specPart(next), specPart(old.obj)))
      next.metadata.generation = (old.obj.metadata.generation ?? 0) + 1;

    next.metadata.resourceVersion = old.obj.metadata.resourceVersion;
    if (deepEqual(next, old.obj)) return old; // no-op: no new resourceVersion, no event
    if (opts.dryRun) return { obj: next, rv: old.rv };

    const key = objectKey(t.namespaced ? namespace : undefined, name);
    if (next.metadata.deletionTimestamp && !(next.metadata.finalizers ?? []).length) {
      const nrv = this.store.nextResourceVersion();
      next.metadata.resourceVersion = String(nrv);
      return this.store.commit('DELETED', storageKeyOf(t), key, next, nrv).stored;
    }
    const nrv = this.store.nextResourceVersion();
    next.metadata.resourceVersion = String(nrv);
    return this.store.commit('MODIFIED', storageKeyOf(t), key, next, nrv).stored;
  }

  patch(
    t: ResourceType,
    namespace: string | undefined,
    name: string,
    type: PatchType,
    patchBody: unknown,
    opts: WriteOptions = {},
    subresource?: 'status',
  ): StoredObject {
    let recordApplied: ((uid: string | undefined) => void) | undefined;
    if (type === 'apply') {
      // Server-side apply, approximated: each field manager's last applied configuration is kept,
      // so fields it applied before and leaves out now are removed (as with one manager on a real
      // server); fields of other writers are left alone. No managedFields, no conflicts.
      const manager = opts.fieldManager;
      if (!manager)
        throw badRequest('PATCH, application/apply-patch+yaml: fieldManager is required for apply requests');
      const slot = subresource ? `${manager}\0status` : manager;
      const applied = clone(patchBody);
      recordApplied = (uid) => {
        if (!uid || opts.dryRun) return;
        let byManager = this.appliedConfigs.get(uid);
        if (!byManager) this.appliedConfigs.set(uid, (byManager = new Map()));
        byManager.set(slot, applied);
      };
      const existing = this.store.get(storageKeyOf(t), objectKey(t.namespaced ? namespace : undefined, name));
      if (!existing) {
        if (subresource) throw notFound(t.plural, t.group, name);
        const body = isObject(patchBody)
          ? { ...patchBody, metadata: { ...(isObject(patchBody.metadata) ? patchBody.metadata : {}), name } }
          : patchBody;
        const created = this.create(t, namespace, body, opts);
        recordApplied(created.obj.metadata.uid);
        return created;
      }
      const previous = this.appliedConfigs.get(existing.obj.metadata.uid ?? '')?.get(slot);
      patchBody = previous === undefined ? patchBody : appliedConfigPatch(previous, patchBody);
      type = 'merge';
    }
    if (type === 'strategic' && t.crd)
      throw new ApiError(
        415,
        'UnsupportedMediaType',
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
      );
    const old = this.get(t, namespace, name);
    const base = viewOf(t, old.obj); // patches apply to the object as this type presents it
    let patched: unknown;
    if (type === 'json') patched = applyJsonPatch(base, patchBody);
    else if (type === 'merge') patched = applyMergePatch(base, patchBody);
    else patched = applyStrategicMergePatch(base, patchBody);
    if (isObject(patched) && isObject(patched.metadata) && patched.metadata.resourceVersion === undefined)
      patched.metadata.resourceVersion = old.obj.metadata.resourceVersion;
    const result = this.update(t, namespace, name, patched, opts, subresource);
    recordApplied?.(result.obj.metadata.uid);
    return result;
  }

  delete(
    t: ResourceType,
    namespace: string | undefined,
    name: string,
    opts: DeleteOptions = {},
  ): StoredObject {
    const old = this.get(t, namespace, name);
    const om = old.obj.metadata;
    const pre = opts.preconditions;
    if (pre?.uid && pre.uid !== om.uid)
      throw conflict(
        t.plural,
        t.group,
        name,
        `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${om.uid ?? ''}`,
      );
    if (pre?.resourceVersion && pre.resourceVersion !== om.resourceVersion)
      throw conflict(
        t.plural,
        t.group,
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${om.resourceVersion ?? ''}`,
      );
    if (opts.dryRun) return old;
    const key = objectKey(t.namespaced ? namespace : undefined, name);
    const policy = opts.propagationPolicy ?? 'Background';

    const next = clone(old.obj);
    const finalizers = [...(next.metadata.finalizers ?? [])];
    if (!om.deletionTimestamp) {
      if (policy === 'Orphan' && this.store.dependents.get(om.uid ?? '')?.size) finalizers.push(ORPHAN);
      if (policy === 'Foreground' && this.store.dependents.get(om.uid ?? '')?.size)
        finalizers.push(FOREGROUND);
    }
    const isNamespace = t.plural === 'namespaces' && !t.group;
    const isCrd = t.plural === 'customresourcedefinitions';
    if (finalizers.length === 0 && !isNamespace && !(isCrd && this.hasInstances(old.obj))) {
      const rv = this.store.nextResourceVersion();
      next.metadata.resourceVersion = String(rv);
      return this.store.commit('DELETED', storageKeyOf(t), key, next, rv).stored;
    }
    if (om.deletionTimestamp) return old; // already being deleted: nothing more to do
    next.metadata.deletionTimestamp = nowTimestamp();
    next.metadata.deletionGracePeriodSeconds = 0;
    if (finalizers.length) next.metadata.finalizers = finalizers;
    if (t.generation) next.metadata.generation = (om.generation ?? 0) + 1;
    if (isNamespace) next.status = { ...(isObject(next.status) ? next.status : {}), phase: 'Terminating' };
    const rv = this.store.nextResourceVersion();
    next.metadata.resourceVersion = String(rv);
    const stored = this.store.commit('MODIFIED', storageKeyOf(t), key, next, rv).stored;
    if (finalizers.includes(ORPHAN)) this.enqueue(() => this.orphanDependents(stored));
    if (finalizers.includes(FOREGROUND)) this.enqueue(() => this.foregroundStep(om.uid ?? ''));
    if (isNamespace) this.enqueue(() => this.namespaceStep(name));
    if (isCrd) this.enqueue(() => this.crdCleanupStep(name));
    return stored;
  }

  // ---------------------------------------------------------------- controllers

  private enqueue(work: () => void): void {
    if (this.stopped) return;
    this.queue.push(work);
    if (!this.drainScheduled) {
      this.drainScheduled = true;
      setImmediate(() => this.drain());
    }
  }

  private drain(): void {
    this.drainScheduled = false;
    let n = 0;
    while (this.queue.length && !this.stopped) {
      const work = this.queue.shift();
      try {
        work?.();
      } catch (e) {
        // A controller step losing a race (object changed or vanished meanwhile) is retried by the
        // next event touching the object, as with the real controllers; nothing to report here.
        if (!(e instanceof ApiError)) console.error('devcluster controller error:', e);
      }
      // yield to I/O now and then so a large cascade does not stall requests
      if (++n >= 500 && this.queue.length) {
        this.drainScheduled = true;
        setImmediate(() => this.drain());
        return;
      }
    }
  }

  /** Reacts to committed changes: GC of dependents, namespace and CRD lifecycle. */
  private afterCommit(
    type: 'ADDED' | 'MODIFIED' | 'DELETED',
    storageKey: string,
    obj: KObject,
    prev?: KObject,
  ): void {
    const uid = obj.metadata.uid;
    if (type === 'DELETED') {
      if (uid) this.appliedConfigs.delete(uid);
      if (uid && this.store.dependents.get(uid)?.size) this.enqueue(() => this.collectDependents(uid));
      for (const ref of obj.metadata.ownerReferences ?? []) this.enqueue(() => this.foregroundStep(ref.uid));
      if (obj.metadata.namespace) {
        const ns = this.store.get(NS_KEY, obj.metadata.namespace);
        if (ns?.obj.metadata.deletionTimestamp)
          this.enqueue(() => this.namespaceStep(obj.metadata.namespace ?? ''));
      }
      if (storageKey === CRD_KEY) this.unregisterCrd(obj.metadata.name ?? '');
      else {
        const crd = this.crdFor(storageKey);
        if (crd?.metadata.deletionTimestamp) this.enqueue(() => this.crdCleanupStep(crd.metadata.name ?? ''));
      }
      return;
    }
    if (storageKey === CRD_KEY) {
      this.registerCrd(obj);
      if (!prev || !deepEqual(prev.spec, obj.spec))
        this.enqueue(() => this.establishCrd(obj.metadata.name ?? ''));
    }
    const refs = obj.metadata.ownerReferences;
    if (refs?.some((r) => !this.store.uids.has(r.uid))) {
      const key = objectKey(obj.metadata.namespace, obj.metadata.name ?? '');
      this.enqueue(() => this.collectOne(storageKey, key));
    }
  }

  private typeForStorageKey(storageKey: string): ResourceType | undefined {
    for (const t of this.types.values()) if (storageKeyOf(t) === storageKey) return t;
    return undefined;
  }

  private crdFor(storageKey: string): KObject | undefined {
    const t = this.typeForStorageKey(storageKey);
    return t?.crd ? this.store.get(CRD_KEY, t.crd)?.obj : undefined;
  }

  /** Dependents of a vanished owner: delete those without live owners, trim dangling references of the rest. */
  private collectDependents(ownerUid: string): void {
    for (const loc of [...(this.store.dependents.get(ownerUid) ?? [])]) {
      const [storageKey, key] = loc.split('\0') as [string, string];
      this.collectOne(storageKey, key);
    }
  }

  private collectOne(storageKey: string, key: string): void {
    const s = this.store.get(storageKey, key);
    const t = this.typeForStorageKey(storageKey);
    if (!s || !t) return;
    const refs = s.obj.metadata.ownerReferences ?? [];
    const live = refs.filter((r) => this.ownerAlive(r));
    if (live.length === refs.length) return;
    const ns = s.obj.metadata.namespace;
    const name = s.obj.metadata.name ?? '';
    if (live.length === 0) {
      if (!s.obj.metadata.deletionTimestamp) this.delete(t, ns, name, { propagationPolicy: 'Background' });
      return;
    }
    const next = clone(s.obj);
    next.metadata.ownerReferences = live;
    this.update(t, ns, name, next);
  }

  private ownerAlive(ref: OwnerReference): boolean {
    const loc = this.store.uids.get(ref.uid);
    if (!loc) return false;
    const owner = this.store.get(loc.storageKey, loc.key);
    return owner !== undefined && owner.obj.metadata.name === ref.name;
  }

  private removeFinalizer(stored: StoredObject, finalizer: string): void {
    const t = this.typeForStorageKey(this.locate(stored)?.storageKey ?? '');
    if (!t) return;
    const next = clone(stored.obj);
    next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    this.update(t, next.metadata.namespace, next.metadata.name ?? '', next);
  }

  private locate(stored: StoredObject): { storageKey: string; key: string } | undefined {
    return stored.obj.metadata.uid ? this.store.uids.get(stored.obj.metadata.uid) : undefined;
  }

  private orphanDependents(owner: StoredObject): void {
    const uid = owner.obj.metadata.uid ?? '';
    for (const loc of [...(this.store.dependents.get(uid) ?? [])]) {
      const [storageKey, key] = loc.split('\0') as [string, string];
      const s = this.store.get(storageKey, key);
      const t = this.typeForStorageKey(storageKey);
      if (!s || !t) continue;
      const next = clone(s.obj);
      next.metadata.ownerReferences = (next.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
      this.update(t, next.metadata.namespace, next.metadata.name ?? '', next);
    }
    const current = this.store.uids.get(uid);
    const s = current && this.store.get(current.storageKey, current.key);
    if (s) this.removeFinalizer(s, ORPHAN);
  }

  /** Foreground deletion: delete the dependents, then release the owner once none is left. */
  private foregroundStep(ownerUid: string): void {
    const loc = this.store.uids.get(ownerUid);
    const owner = loc && this.store.get(loc.storageKey, loc.key);
    if (
      !owner ||
      !owner.obj.metadata.finalizers?.includes(FOREGROUND) ||
      !owner.obj.metadata.deletionTimestamp
    )
      return;
    const deps = [...(this.store.dependents.get(ownerUid) ?? [])];
    if (deps.length === 0) {
      this.removeFinalizer(owner, FOREGROUND);
      return;
    }
    for (const d of deps) {
      const [storageKey, key] = d.split('\0') as [string, string];
      const s = this.store.get(storageKey, key);
      const t = this.typeForStorageKey(storageKey);
      if (s && t && !s.obj.metadata.deletionTimestamp)
        this.delete(t, s.obj.metadata.namespace, s.obj.metadata.name ?? '', {
          propagationPolicy: 'Foreground',
        });
    }
  }

  /** Namespace controller: delete the contents, then the namespace itself. */
  private namespaceStep(name: string): void {
    const ns = this.store.get(NS_KEY, name);
    if (!ns?.obj.metadata.deletionTimestamp) return;
    let remaining = 0;
    for (const t of this.types.values()) {
      if (!t.namespaced || this.typeForStorageKey(storageKeyOf(t)) !== t) continue;
      for (const s of this.store.list(storageKeyOf(t), name)) {
        remaining++;
        if (!s.obj.metadata.deletionTimestamp) this.delete(t, name, s.obj.metadata.name ?? '');
      }
    }
    if (remaining > 0 && this.countNamespace(name) > 0) return;
    if ((ns.obj.metadata.finalizers ?? []).length) return; // other finalizers hold it
    const cur = this.store.get(NS_KEY, name);
    if (!cur) return;
    const next = clone(cur.obj);
    next.spec = { finalizers: [] };
    const rv = this.store.nextResourceVersion();
    next.metadata.resourceVersion = String(rv);
    this.store.commit('DELETED', NS_KEY, name, next, rv);
  }

  private countNamespace(name: string): number {
    let n = 0;
    for (const t of this.types.values())
      if (t.namespaced && this.typeForStorageKey(storageKeyOf(t)) === t)
        n += this.store.list(storageKeyOf(t), name).length;
    return n;
  }

  private hasInstances(crd: KObject): boolean {
    const spec = crd.spec as CrdSpec | undefined;
    return spec ? this.store.count(`${spec.group}/${spec.names.plural}`) > 0 : false;
  }

  /** CRD deletion: remove every instance first (the customresourcecleanup finalizer's job). */
  private crdCleanupStep(name: string): void {
    const crd = this.store.get(CRD_KEY, name);
    if (!crd?.obj.metadata.deletionTimestamp) return;
    const spec = crd.obj.spec as CrdSpec;
    const storageKey = `${spec.group}/${spec.names.plural}`;
    const t = this.typeForStorageKey(storageKey);
    if (t)
      for (const s of this.store.list(storageKey))
        if (!s.obj.metadata.deletionTimestamp)
          this.delete(t, s.obj.metadata.namespace, s.obj.metadata.name ?? '');
    if (this.store.count(storageKey) > 0 || (crd.obj.metadata.finalizers ?? []).length) return;
    const cur = this.store.get(CRD_KEY, name);
    if (!cur) return;
    const next = clone(cur.obj);
    const rv = this.store.nextResourceVersion();
    next.metadata.resourceVersion = String(rv);
    this.store.commit('DELETED', CRD_KEY, name, next, rv);
  }

  /** Sets NamesAccepted / Established, acceptedNames and storedVersions, as the CRD controllers do. */
  private establishCrd(name: string): void {
    const cur = this.store.get(CRD_KEY, name);
    if (!cur || cur.obj.metadata.deletionTimestamp) return;
    const spec = cur.obj.spec as CrdSpec;
    const now = nowTimestamp();
    const status = isObject(cur.obj.status) ? clone(cur.obj.status) : {};
    const prevConds = Array.isArray(status.conditions)
      ? (status.conditions as Record<string, unknown>[])
      : [];
    const cond = (type: string, reason: string, message: string): Record<string, unknown> => {
      const prev = prevConds.find((c) => c.type === type);
      return {
        type,
        status: 'True',
        lastTransitionTime: prev?.status === 'True' ? prev.lastTransitionTime : now,
        reason,
        message,
      };
    };
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
    const t = this.mustType('apiextensions.k8s.io', 'v1', 'customresourcedefinitions');
    this.update(t, undefined, name, next, {}, 'status');
  }
}

/**
 * Merge patch turning a manager's previous applied configuration into its new one: fields it set
 * before and omits now become null (removed); everything else is the new configuration.
 */
export function appliedConfigPatch(previous: unknown, next: unknown): unknown {
  if (!isObject(previous) || !isObject(next)) return next;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(previous)) if (!(k in next)) out[k] = null;
  for (const [k, v] of Object.entries(next))
    out[k] = isObject(v) && isObject(previous[k]) ? appliedConfigPatch(previous[k], v) : v;
  return out;
}

function defaultCrd(obj: KObject): void {
  const spec = obj.spec;
  if (!isObject(spec)) return;
  if (!isObject(spec.conversion)) spec.conversion = { strategy: 'None' };
  if (isObject(spec.names)) {
    if (!spec.names.singular && typeof spec.names.kind === 'string')
      spec.names.singular = spec.names.kind.toLowerCase();
    if (!spec.names.listKind && typeof spec.names.kind === 'string')
      spec.names.listKind = `${spec.names.kind}List`;
  }
}

/** The checks of apiextensions validation that decide whether a CRD can be served. */
function validateCrd(obj: KObject): FieldError[] {
  const errs: FieldError[] = [];
  const req = (field: string): FieldError => ({
    type: 'FieldValueRequired',
    field,
    message: 'Required value',
  });
  const spec = obj.spec;
  if (!isObject(spec)) return [req('spec')];
  const names = isObject(spec.names) ? spec.names : undefined;
  if (typeof spec.group !== 'string' || !spec.group) errs.push(req('spec.group'));
  else if (!spec.group.includes('.'))
    errs.push({
      type: 'FieldValueInvalid',
      field: 'spec.group',
      message: `Invalid value: ${JSON.stringify(spec.group)}: should be a domain with at least one dot`,
    });
  if (!names) errs.push(req('spec.names'));
  else {
    if (typeof names.plural !== 'string' || !names.plural) errs.push(req('spec.names.plural'));
    else errs.push(...validateName(names.plural, true, 'spec.names.plural'));
    if (typeof names.kind !== 'string' || !names.kind) errs.push(req('spec.names.kind'));
  }
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster')
    errs.push({
      type: 'FieldValueNotSupported',
      field: 'spec.scope',
      message: `Unsupported value: ${JSON.stringify(spec.scope ?? '')}: supported values: "Cluster", "Namespaced"`,
    });
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  if (versions.length === 0) errs.push(req('spec.versions'));
  else if (versions.filter((v) => isObject(v) && v.storage === true).length !== 1)
    errs.push({
      type: 'FieldValueInvalid',
      field: 'spec.versions',
      message: `Invalid value: ${JSON.stringify(versions.map((v) => (isObject(v) ? v.name : v)))}: must have exactly one version marked as storage version`,
    });
  versions.forEach((v, i) => {
    if (!isObject(v) || typeof v.name !== 'string' || !v.name) errs.push(req(`spec.versions[${i}].name`));
  });
  if (
    names &&
    typeof names.plural === 'string' &&
    typeof spec.group === 'string' &&
    obj.metadata.name !== `${names.plural}.${spec.group}`
  )
    errs.push({
      type: 'FieldValueInvalid',
      field: 'metadata.name',
      message: `Invalid value: ${JSON.stringify(obj.metadata.name)}: must be spec.names.plural+"."+spec.group`,
    });
  return errs;
}
