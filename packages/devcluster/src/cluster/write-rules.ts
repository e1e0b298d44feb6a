/**
 * The checks and metadata rules of an update and a delete, as pure functions of the request and
 * the stored object: what `Writes` runs before it stores anything.
 */
import { badRequest, conflict, invalid } from '../objects/errors.js';
import type { ResourceType } from '../resources/resources.js';
import type { StoredObject } from '../storage/store.js';
import { clone, type KObject, type ObjectMeta } from '../objects/types.js';

/** The object a write addresses: its namespace (namespaced types), its name, and the subresource. */
export interface WriteTarget {
  namespace: string | undefined;
  name: string;
  subresource?: 'status';
}

/** Refuses an update whose body names another object or holds a stale (or, if required, no) resourceVersion. */
export function checkUpdateRequest(
  t: ResourceType,
  target: WriteTarget,
  incoming: KObject,
  old: StoredObject,
): void {
  const { namespace, name } = target;
  if (incoming.metadata.name !== undefined && incoming.metadata.name !== name)
    throw badRequest(
      `the name of the object (${String(incoming.metadata.name)}) does not match the name on the URL (${name})`,
    );
  if (t.namespaced && incoming.metadata.namespace && incoming.metadata.namespace !== namespace)
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
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
}

/** The object an update stores, before admission: the incoming body with what it may not change kept. */
export function nextForUpdate(
  t: ResourceType,
  target: WriteTarget,
  incoming: KObject,
  old: KObject,
): KObject {
  if (target.subresource === 'status' && !t.statusWriteKeepsMetadata) {
    const next = clone(old);
    if (incoming.status === undefined) delete next.status;
    else next.status = incoming.status;
    return next;
  }
  const next = incoming;
  // The part the other endpoint owns stays as it was: status for the resource, spec for a
  // status write that keeps metadata (Node).
  const reset = target.subresource === 'status' ? 'spec' : t.statusSubresource ? 'status' : undefined;
  if (reset) {
    if (old[reset] === undefined) delete next[reset];
    else next[reset] = clone(old[reset]);
  }
  keepServerMetadata(t, target.name, next.metadata, old.metadata);
  return next;
}

/** Identity, creation, deletion and generation stay the server's; empty lists are dropped. */
function keepServerMetadata(t: ResourceType, name: string, m: ObjectMeta, om: ObjectMeta): void {
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

/** Refuses a delete whose uid or resourceVersion precondition the stored object does not meet. */
export function checkDeletePreconditions(
  t: ResourceType,
  name: string,
  om: ObjectMeta,
  pre: { uid?: string; resourceVersion?: string } | undefined,
): void {
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
}
