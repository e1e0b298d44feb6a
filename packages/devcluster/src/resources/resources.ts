/**
 * Resource types the server serves: what a type is, and one type per served version of every
 * CustomResourceDefinition. The built-in kinds are in builtin-types.ts.
 */
import type { FieldError } from '../objects/errors.js';
import type { Schema } from '../schema/schema.js';
import { crdTable, defaultTable, type PrinterColumn, type TableSpec } from './table.js';
import type { KObject } from '../objects/types.js';

export interface ResourceType {
  group: string;
  version: string;
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  statusSubresource: boolean;
  /** Status sent on create is kept (Node), otherwise dropped when there is a status subresource. */
  keepStatusOnCreate: boolean;
  /**
   * A `/status` write keeps the metadata it sends and resets only `spec`, as kube-apiserver's
   * nodeStatusStrategy does for Nodes; without it a status write changes only status (custom
   * resources' ResetObjectMetaForStatus).
   */
  statusWriteKeepsMetadata?: boolean;
  /** metadata.generation is maintained (custom resources and CRDs). */
  generation: boolean;
  /** PUT without metadata.resourceVersion is refused (custom resources). */
  requireResourceVersion: boolean;
  schema?: Schema;
  table: TableSpec;
  /** Extra checks for built-in kinds (run after schema validation). */
  validateBuiltin?: (obj: KObject) => FieldError[];
  /** Name of the CRD that defines this type. */
  crd?: string;
  /** Storage shared with another type (events.k8s.io/v1 Events are stored as core/v1 Events). */
  storageKey?: string;
  /** Conversion between this type's form and the stored form, when they differ. */
  convert?: { toStorage(obj: KObject): KObject; fromStorage(obj: KObject): KObject };
  /**
   * Verbs discovery lists when not every verb is served: the review kinds are create-only and
   * never stored (answered in `auth/endpoints.ts`).
   */
  verbs?: string[];
  /** Subresources besides `status`, for discovery (`serviceaccounts/token`). */
  subresources?: { name: string; group: string; version: string; kind: string; verbs: string[] }[];
}

export const apiVersionOf = (t: Pick<ResourceType, 'group' | 'version'>): string =>
  t.group ? `${t.group}/${t.version}` : t.version;
/** Objects of one group+resource share storage across versions. */
export const storageKeyOf = (t: Pick<ResourceType, 'group' | 'plural' | 'storageKey'>): string =>
  t.storageKey ?? `${t.group}/${t.plural}`;

/** The object as this type presents it (converted from the stored form where needed). */
export const viewOf = (t: ResourceType, obj: KObject): KObject =>
  t.convert ? t.convert.fromStorage(obj) : obj;

// core/v1 Event <-> events.k8s.io/v1 Event, as k8s.io/kubernetes/pkg/apis/events/v1 converts them

export function builtin(
  p: Pick<ResourceType, 'group' | 'version' | 'plural' | 'kind' | 'namespaced'> & Partial<ResourceType>,
): ResourceType {
  return {
    singular: p.kind.toLowerCase(),
    listKind: `${p.kind}List`,
    shortNames: [],
    categories: [],
    statusSubresource: false,
    keepStatusOnCreate: false,
    generation: false,
    requireResourceVersion: false,
    table: defaultTable,
    ...p,
  };
}

export interface CrdVersion {
  name: string;
  served?: boolean;
  storage?: boolean;
  schema?: { openAPIV3Schema?: Schema };
  subresources?: { status?: unknown; scale?: unknown };
  additionalPrinterColumns?: PrinterColumn[];
}

export interface CrdSpec {
  group: string;
  scope: 'Namespaced' | 'Cluster';
  names: {
    plural: string;
    singular?: string;
    kind: string;
    listKind?: string;
    shortNames?: string[];
    categories?: string[];
  };
  versions: CrdVersion[];
}

/** One ResourceType per served version of a CRD. */
export function typesFromCrd(crdName: string, spec: CrdSpec): ResourceType[] {
  return spec.versions
    .filter((v) => v.served !== false)
    .map((v) => ({
      group: spec.group,
      version: v.name,
      plural: spec.names.plural,
      singular: spec.names.singular ?? spec.names.kind.toLowerCase(),
      kind: spec.names.kind,
      listKind: spec.names.listKind ?? `${spec.names.kind}List`,
      namespaced: spec.scope === 'Namespaced',
      shortNames: spec.names.shortNames ?? [],
      categories: spec.names.categories ?? [],
      statusSubresource: v.subresources?.status !== undefined,
      keepStatusOnCreate: false,
      generation: true,
      requireResourceVersion: true,
      schema: v.schema?.openAPIV3Schema,
      table: crdTable(v.additionalPrinterColumns),
      crd: crdName,
    }));
}
