/**
 * The resource types the server serves: the built-in ones plus those the registered CRDs define,
 * looked up by group/version/plural (requests) or by storage key (controllers, shared storage).
 */
import { BUILTIN_TYPES } from './builtin-types.js';
import { storageKeyOf, typesFromCrd, type CrdSpec, type ResourceType } from './resources.js';
import type { KObject } from '../objects/types.js';
import { AUTH_TYPES } from './auth-kinds.js';
import { WORKLOAD_TYPES } from './workloads.js';

export const CRD_KEY = 'apiextensions.k8s.io/customresourcedefinitions';
export const NS_KEY = '/namespaces';

const typeKey = (group: string, version: string, plural: string): string => `${group}/${version}/${plural}`;

export class TypeRegistry {
  private readonly types = new Map<string, ResourceType>();

  constructor() {
    for (const t of [...BUILTIN_TYPES, ...WORKLOAD_TYPES, ...AUTH_TYPES])
      this.types.set(typeKey(t.group, t.version, t.plural), t);
  }

  typeFor(group: string, version: string, plural: string): ResourceType | undefined {
    return this.types.get(typeKey(group, version, plural));
  }

  mustType(group: string, version: string, plural: string): ResourceType {
    const t = this.typeFor(group, version, plural);
    if (!t) throw new Error(`unknown built-in type ${group}/${version}/${plural}`);
    return t;
  }

  all(): ResourceType[] {
    return [...this.types.values()];
  }

  /** (Re)registers the types a CRD object defines. */
  registerCrd(crd: KObject): void {
    const name = crd.metadata.name ?? '';
    this.unregisterCrd(name);
    for (const t of typesFromCrd(name, crd.spec as CrdSpec))
      this.types.set(typeKey(t.group, t.version, t.plural), t);
  }

  unregisterCrd(name: string): void {
    for (const [k, t] of this.types) if (t.crd === name) this.types.delete(k);
  }

  /** The type that owns a storage key (the first registered: several versions may share storage). */
  typeForStorageKey(storageKey: string): ResourceType | undefined {
    for (const t of this.types.values()) if (storageKeyOf(t) === storageKey) return t;
    return undefined;
  }

  /** The type that owns the storage a converting type (events.k8s.io Events) shares. */
  storageType(t: ResourceType): ResourceType {
    const owner = this.typeForStorageKey(storageKeyOf(t));
    if (!owner) throw new Error(`no type stores ${storageKeyOf(t)}`);
    return owner;
  }

  /** Namespaced types that own their storage (each stored object counted once). */
  namespacedStorageTypes(): ResourceType[] {
    return this.all().filter((t) => t.namespaced && this.typeForStorageKey(storageKeyOf(t)) === t);
  }
}
