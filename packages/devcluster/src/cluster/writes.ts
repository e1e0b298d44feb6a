/**
 * The write rules of the API: create / update / patch / delete with Kubernetes semantics
 * (resourceVersion preconditions, generation, status subresource, finalizers, deletion with
 * propagation policies). Follow-up work an object's deletion starts (dependents, namespace contents,
 * CRD instances) is handed to the controllers through `DeletionHooks`.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { AppliedConfigs } from './apply.js';
import type { AdmissionAttributes, UserInfo } from './admission.js';
import { ApiError, alreadyExists, badRequest, invalid, notFound } from '../objects/errors.js';
import {
  applyJsonPatch,
  applyMergePatch,
  applyStrategicMergePatch,
  type PatchType,
} from '../objects/patch.js';
import type { TypeRegistry } from '../resources/registry.js';
import { NS_KEY } from '../resources/registry.js';
import { storageKeyOf, viewOf, type ResourceType } from '../resources/resources.js';
import { deepEqual } from '../schema/schema.js';
import { checkObjectSize, DEFAULT_MAX_OBJECT_BYTES } from '../objects/object-size.js';
import { objectKey, type Store, type StoredObject } from '../storage/store.js';
import { patchStrictness } from './patch-strict.js';
import {
  checkDeletePreconditions,
  checkUpdateRequest,
  nextForUpdate,
  type WriteTarget,
} from './write-rules.js';
import { admit, decodeBody, defaultCrd, toStorage, type WriteOptions } from './strategy.js';
import { clone, isObject, type KObject } from '../objects/types.js';

export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

export interface DeleteOptions {
  propagationPolicy?: PropagationPolicy;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
  /** Who deletes (admission policies see it as request.userInfo). */
  user?: UserInfo;
}

export const FOREGROUND = 'foregroundDeletion';
export const ORPHAN = 'orphan';

/** What the controllers do when a delete only marks an object (deletionTimestamp set). */
export interface DeletionHooks {
  /** Whether a CRD still has instances (then its deletion waits for their cleanup). */
  hasInstances(crd: KObject): boolean;
  /** The object was marked for deletion; start the work its finalizers or kind call for. */
  markedForDeletion(t: ResourceType, stored: StoredObject, finalizers: string[]): void;
  /**
   * Validating admission (policies) after the write rules and defaulting, before storing;
   * throws the ApiError that refuses the write.
   */
  validatingAdmission(a: AdmissionAttributes): void;
}

/** Writes made in-process (start-up, tests) without a user act as the server itself. */
const SERVER_USER: UserInfo = {
  username: 'system:apiserver',
  groups: ['system:masters', 'system:authenticated'],
};

export const nowTimestamp = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

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

/** What `Writes` works on; the hooks are the controllers' side of a deletion and admission. */
export interface WritesDeps {
  store: Store;
  registry: TypeRegistry;
  applied: AppliedConfigs;
  hooks: DeletionHooks;
  /** Largest object stored (etcd's `--max-request-bytes`); 0: no limit. */
  maxObjectBytes?: number;
}

/** A patch as the request sends it: its content type and body. */
export interface PatchRequest {
  type: PatchType;
  body: unknown;
}

/** One write as validating admission policies see it. */
interface PolicyRequest {
  operation: AdmissionAttributes['operation'];
  target: WriteTarget;
  object: KObject | null;
  oldObject: KObject | null;
  user: UserInfo | undefined;
}

export class Writes {
  private readonly store: Store;
  private readonly registry: TypeRegistry;
  private readonly applied: AppliedConfigs;
  private readonly hooks: DeletionHooks;
  private readonly maxObjectBytes: number;

  constructor(deps: WritesDeps) {
    this.store = deps.store;
    this.registry = deps.registry;
    this.applied = deps.applied;
    this.hooks = deps.hooks;
    this.maxObjectBytes = deps.maxObjectBytes ?? DEFAULT_MAX_OBJECT_BYTES;
  }

  private admitPolicies(t: ResourceType, r: PolicyRequest): void {
    this.hooks.validatingAdmission({
      operation: r.operation,
      group: t.group,
      version: t.version,
      resource: t.plural,
      subResource: r.target.subresource ?? '',
      name: r.target.name,
      namespace: t.namespaced ? (r.target.namespace ?? '') : '',
      userInfo: r.user ?? SERVER_USER,
      object: r.object,
      oldObject: r.oldObject,
    });
  }

  get(t: ResourceType, namespace: string | undefined, name: string): StoredObject {
    const s = this.store.get(storageKeyOf(t), objectKey(t.namespaced ? namespace : undefined, name));
    if (!s) throw notFound(t.plural, t.group, name);
    return s;
  }

  list(t: ResourceType, namespace: string | undefined): StoredObject[] {
    return this.store.list(storageKeyOf(t), t.namespaced ? namespace : undefined);
  }

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
  create(
    t: ResourceType,
    namespace: string | undefined,
    body: unknown,
    opts: WriteOptions = {},
  ): StoredObject {
    if (t.convert) return this.create(this.registry.storageType(t), namespace, toStorage(t, body), opts);
    const obj = decodeBody(t, body);
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
    admit(t, obj, opts);
    this.admitPolicies(t, {
      operation: 'CREATE',
      target: { namespace, name: m.name },
      object: obj,
      oldObject: null,
      user: opts.user,
    });
    if (opts.dryRun) return { obj, rv: this.store.resourceVersion };
    checkObjectSize(obj, this.maxObjectBytes);
    const rv = this.store.nextResourceVersion();
    m.resourceVersion = String(rv);
    return this.store.commit('ADDED', storageKeyOf(t), key, { obj, rv }).stored;
  }

  update(t: ResourceType, target: WriteTarget, body: unknown, opts: WriteOptions = {}): StoredObject {
    if (t.convert) return this.update(this.registry.storageType(t), target, toStorage(t, body), opts);
    const old = this.get(t, target.namespace, target.name);
    const incoming = decodeBody(t, body);
    checkUpdateRequest(t, target, incoming, old);
    const next = nextForUpdate(t, target, incoming, old.obj);
    if (t.plural === 'customresourcedefinitions') defaultCrd(next);
    admit(t, next, opts);
    this.admitPolicies(t, {
      operation: 'UPDATE',
      target,
      object: next,
      oldObject: old.obj,
      user: opts.user,
    });
    if (t.generation && !deepEqual(specPart(next), specPart(old.obj)))
      next.metadata.generation = (old.obj.metadata.generation ?? 0) + 1;

    next.metadata.resourceVersion = old.obj.metadata.resourceVersion;
    if (deepEqual(next, old.obj)) return old; // no-op: no new resourceVersion, no event
    if (opts.dryRun) return { obj: next, rv: old.rv };
    checkObjectSize(next, this.maxObjectBytes);
    return this.commitUpdate(t, target, next);
  }

  /** Stores an updated object; one marked for deletion whose last finalizer went is deleted. */
  private commitUpdate(t: ResourceType, target: WriteTarget, next: KObject): StoredObject {
    const key = objectKey(t.namespaced ? target.namespace : undefined, target.name);
    const nrv = this.store.nextResourceVersion();
    next.metadata.resourceVersion = String(nrv);
    const gone = next.metadata.deletionTimestamp && !(next.metadata.finalizers ?? []).length;
    return this.store.commit(gone ? 'DELETED' : 'MODIFIED', storageKeyOf(t), key, { obj: next, rv: nrv })
      .stored;
  }

  patch(t: ResourceType, target: WriteTarget, request: PatchRequest, opts: WriteOptions = {}): StoredObject {
    const { namespace, name, subresource } = target;
    let recordApplied: ((uid: string | undefined) => void) | undefined;
    let { type, body: patchBody } = request;
    if (type === 'apply') {
      const existing = this.store.get(storageKeyOf(t), objectKey(t.namespaced ? namespace : undefined, name));
      const plan = this.applied.plan(existing?.obj, { name, body: patchBody, subresource }, opts);
      recordApplied = plan.record;
      if ('create' in plan) {
        if (subresource) throw notFound(t.plural, t.group, name);
        const created = this.create(t, namespace, plan.create, opts);
        recordApplied(created.obj.metadata.uid);
        return created;
      }
      patchBody = plan.mergePatch;
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
    if (request.type !== 'apply')
      opts = {
        ...opts,
        patch: patchStrictness(request.type, opts.duplicateFields ?? [], patchBody, patched),
      };
    const result = this.update(t, target, patched, opts);
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
    checkDeletePreconditions(t, name, om, opts.preconditions);
    this.admitPolicies(t, {
      operation: 'DELETE',
      target: { namespace, name },
      object: null,
      oldObject: old.obj,
      user: opts.user,
    });
    if (opts.dryRun) return old;
    const key = objectKey(t.namespaced ? namespace : undefined, name);
    const next = clone(old.obj);
    const finalizers = [...(next.metadata.finalizers ?? [])];
    if (!om.deletionTimestamp) finalizers.push(...this.propagationFinalizers(om.uid, opts.propagationPolicy));
    const isNamespace = t.plural === 'namespaces' && !t.group;
    const isCrd = t.plural === 'customresourcedefinitions';
    if (finalizers.length === 0 && !isNamespace && !(isCrd && this.hooks.hasInstances(old.obj))) {
      const rv = this.store.nextResourceVersion();
      next.metadata.resourceVersion = String(rv);
      return this.store.commit('DELETED', storageKeyOf(t), key, { obj: next, rv }).stored;
    }
    if (om.deletionTimestamp) return old; // already being deleted: nothing more to do
    return this.markForDeletion(t, key, next, finalizers);
  }

  /** The finalizer an Orphan or Foreground delete adds while the object has dependents. */
  private propagationFinalizers(uid: string | undefined, policy: PropagationPolicy = 'Background'): string[] {
    if (!this.store.dependents.get(uid ?? '')?.size) return [];
    if (policy === 'Orphan') return [ORPHAN];
    if (policy === 'Foreground') return [FOREGROUND];
    return [];
  }

  /** Marks an object for deletion (the controllers finish it once its finalizers are gone). */
  private markForDeletion(t: ResourceType, key: string, next: KObject, finalizers: string[]): StoredObject {
    next.metadata.deletionTimestamp = nowTimestamp();
    next.metadata.deletionGracePeriodSeconds = 0;
    if (finalizers.length) next.metadata.finalizers = finalizers;
    if (t.generation) next.metadata.generation = (next.metadata.generation ?? 0) + 1;
    if (t.plural === 'namespaces' && !t.group)
      next.status = { ...(isObject(next.status) ? next.status : {}), phase: 'Terminating' };
    const rv = this.store.nextResourceVersion();
    next.metadata.resourceVersion = String(rv);
    const stored = this.store.commit('MODIFIED', storageKeyOf(t), key, { obj: next, rv }).stored;
    this.hooks.markedForDeletion(t, stored, finalizers);
    return stored;
  }
}
