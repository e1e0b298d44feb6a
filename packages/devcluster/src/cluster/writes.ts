/**
 * The write rules of the API: create / update / patch / delete with Kubernetes semantics
 * (resourceVersion preconditions, generation, status subresource, finalizers, deletion with
 * propagation policies). Follow-up work an object's deletion starts (dependents, namespace contents,
 * CRD instances) is handed to the controllers through `DeletionHooks`.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { AppliedConfigs } from './apply.js';
import type { AdmissionAttributes, UserInfo } from './admission.js';
import { ApiError, alreadyExists, badRequest, conflict, invalid, notFound } from '../objects/errors.js';
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

export class Writes {
  constructor(
    private readonly store: Store,
    private readonly registry: TypeRegistry,
    private readonly applied: AppliedConfigs,
    private readonly hooks: DeletionHooks,
    /** Largest object stored (etcd's `--max-request-bytes`); 0: no limit. */
    private readonly maxObjectBytes = DEFAULT_MAX_OBJECT_BYTES,
  ) {}

  private admitPolicies(
    operation: AdmissionAttributes['operation'],
    t: ResourceType,
    namespace: string | undefined,
    name: string,
    subresource: string | undefined,
    object: KObject | null,
    oldObject: KObject | null,
    user: UserInfo | undefined,
  ): void {
    this.hooks.validatingAdmission({
      operation,
      group: t.group,
      version: t.version,
      resource: t.plural,
      subResource: subresource ?? '',
      name,
      namespace: t.namespaced ? (namespace ?? '') : '',
      userInfo: user ?? SERVER_USER,
      object,
      oldObject,
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
    this.admitPolicies('CREATE', t, namespace, m.name, undefined, obj, null, opts.user);
    if (opts.dryRun) return { obj, rv: this.store.resourceVersion };
    checkObjectSize(obj, this.maxObjectBytes);
    const rv = this.store.nextResourceVersion();
    m.resourceVersion = String(rv);
    return this.store.commit('ADDED', storageKeyOf(t), key, { obj, rv }).stored;
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
      return this.update(
        this.registry.storageType(t),
        namespace,
        name,
        toStorage(t, body),
        opts,
        subresource,
      );
    const old = this.get(t, namespace, name);
    const incoming = decodeBody(t, body);
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
    if (subresource === 'status' && !t.statusWriteKeepsMetadata) {
      next = clone(old.obj);
      if (incoming.status === undefined) delete next.status;
      else next.status = incoming.status;
    } else {
      next = incoming;
      // The part the other endpoint owns stays as it was: status for the resource, spec for a
      // status write that keeps metadata (Node).
      const reset = subresource === 'status' ? 'spec' : t.statusSubresource ? 'status' : undefined;
      if (reset) {
        if (old.obj[reset] === undefined) delete next[reset];
        else next[reset] = clone(old.obj[reset]);
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
    admit(t, next, opts);
    this.admitPolicies('UPDATE', t, namespace, name, subresource, next, old.obj, opts.user);
    if (t.generation && !deepEqual(specPart(next), specPart(old.obj)))
      next.metadata.generation = (old.obj.metadata.generation ?? 0) + 1;

    next.metadata.resourceVersion = old.obj.metadata.resourceVersion;
    if (deepEqual(next, old.obj)) return old; // no-op: no new resourceVersion, no event
    if (opts.dryRun) return { obj: next, rv: old.rv };
    checkObjectSize(next, this.maxObjectBytes);

    const key = objectKey(t.namespaced ? namespace : undefined, name);
    if (next.metadata.deletionTimestamp && !(next.metadata.finalizers ?? []).length) {
      const nrv = this.store.nextResourceVersion();
      next.metadata.resourceVersion = String(nrv);
      return this.store.commit('DELETED', storageKeyOf(t), key, { obj: next, rv: nrv }).stored;
    }
    const nrv = this.store.nextResourceVersion();
    next.metadata.resourceVersion = String(nrv);
    return this.store.commit('MODIFIED', storageKeyOf(t), key, { obj: next, rv: nrv }).stored;
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
    const requested = type;
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
    if (requested !== 'apply')
      opts = { ...opts, patch: patchStrictness(requested, opts.duplicateFields ?? [], patchBody, patched) };
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
    this.admitPolicies('DELETE', t, namespace, name, undefined, null, old.obj, opts.user);
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
    if (finalizers.length === 0 && !isNamespace && !(isCrd && this.hooks.hasInstances(old.obj))) {
      const rv = this.store.nextResourceVersion();
      next.metadata.resourceVersion = String(rv);
      return this.store.commit('DELETED', storageKeyOf(t), key, { obj: next, rv }).stored;
    }
    if (om.deletionTimestamp) return old; // already being deleted: nothing more to do
    next.metadata.deletionTimestamp = nowTimestamp();
    next.metadata.deletionGracePeriodSeconds = 0;
    if (finalizers.length) next.metadata.finalizers = finalizers;
    if (t.generation) next.metadata.generation = (om.generation ?? 0) + 1;
    if (isNamespace) next.status = { ...(isObject(next.status) ? next.status : {}), phase: 'Terminating' };
    const rv = this.store.nextResourceVersion();
    next.metadata.resourceVersion = String(rv);
    const stored = this.store.commit('MODIFIED', storageKeyOf(t), key, { obj: next, rv }).stored;
    this.hooks.markedForDeletion(t, stored, finalizers);
    return stored;
  }
}
