/**
 * Server-side `Table` rendering (`Accept: application/json;as=Table;g=meta.k8s.io;v=v1`), which is what
 * `kubectl get` asks for: CRDs use their additionalPrinterColumns, built-ins their usual columns.
 */
import { evaluateJsonPath, parseJsonPath } from '../query/jsonpath.js';
import { isObject, type KObject } from '../objects/types.js';

export interface ColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

/** Renders the cells of one row; `now` in ms. */
export type CellRenderer = (obj: KObject, now: number) => unknown[];

export interface TableSpec {
  columns: ColumnDefinition[];
  cells: CellRenderer;
}

/** k8s.io/apimachinery/pkg/util/duration.HumanDuration, used for every AGE column. */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    const d = Math.floor(hours / 24);
    return h === 0 ? `${d}d` : `${d}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.floor(hours / 24) % 365;
    const y = Math.floor(hours / 24 / 365);
    return dy === 0 ? `${y}y` : `${y}y${dy}d`;
  }
  return `${Math.floor(hours / 24 / 365)}y`;
}

export function age(timestamp: unknown, now: number): string {
  if (typeof timestamp !== 'string') return '<unknown>';
  const t = Date.parse(timestamp);
  return Number.isNaN(t) ? '<unknown>' : humanDuration(now - t);
}

export const nameColumn: ColumnDefinition = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace. Cannot be updated.',
  priority: 0,
};

export const ageColumn: ColumnDefinition = {
  name: 'Age',
  type: 'string',
  format: '',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
  priority: 0,
};

export function column(name: string, type = 'string', priority = 0, description = ''): ColumnDefinition {
  return { name, type, format: '', description, priority };
}

export const defaultTable: TableSpec = {
  columns: [nameColumn, ageColumn],
  cells: (obj, now) => [obj.metadata.name ?? '', age(obj.metadata.creationTimestamp, now)],
};

/** Cell value of one printer column, typed as the apiextensions table convertor does. */
function printerCell(
  col: PrinterColumn,
  steps: ReturnType<typeof parseJsonPath> | undefined,
  obj: KObject,
  now: number,
): unknown {
  if (!steps) return null;
  const results = evaluateJsonPath(steps, obj);
  if (results.length === 0) return null;
  const value = results[0];
  switch (col.type) {
    case 'date':
      return typeof value === 'string' ? age(value, now) : null;
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    default:
      if (results.length > 1)
        return results.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join(' ');
      if (typeof value === 'string') return value;
      if (isObject(value) || Array.isArray(value)) return JSON.stringify(value);
      return String(value);
  }
}

/** Table spec for a CRD version: Name plus its printer columns (Name and Age when it has none). */
export function crdTable(printerColumns: PrinterColumn[] | undefined): TableSpec {
  if (!printerColumns || printerColumns.length === 0) return defaultTable;
  const compiled = printerColumns.map((c) => {
    try {
      return parseJsonPath(c.jsonPath);
    } catch {
      return undefined; // an unparsable column renders as <none>, like the real server
    }
  });
  return {
    columns: [
      nameColumn,
      ...printerColumns.map((c) => ({
        name: c.name,
        type: c.type,
        format: c.format ?? '',
        description: c.description ?? '',
        priority: c.priority ?? 0,
      })),
    ],
    cells: (obj, now) => [
      obj.metadata.name ?? '',
      ...printerColumns.map((c, i) => printerCell(c, compiled[i], obj, now)),
    ],
  };
}

function partialMetadata(obj: KObject): KObject {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
}

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export function tableRow(
  spec: TableSpec,
  obj: KObject,
  now: number,
  include: IncludeObject,
): Record<string, unknown> {
  const row: Record<string, unknown> = { cells: spec.cells(obj, now) };
  if (include === 'Metadata') row.object = partialMetadata(obj);
  else if (include === 'Object') row.object = obj;
  return row;
}

/** How the client asked for the table: what each row carries of its object, and the Table's apiVersion. */
export interface TableRequest {
  include: IncludeObject;
  apiVersion: string;
}

export function renderTable(
  spec: TableSpec,
  objects: KObject[],
  meta: { resourceVersion: string; continue?: string; remainingItemCount?: number },
  { include, apiVersion }: TableRequest,
): Record<string, unknown> {
  const now = Date.now();
  const metadata: Record<string, unknown> = { resourceVersion: meta.resourceVersion };
  if (meta.continue) metadata.continue = meta.continue;
  if (meta.remainingItemCount !== undefined) metadata.remainingItemCount = meta.remainingItemCount;
  const table: Record<string, unknown> = { kind: 'Table', apiVersion, metadata };
  table.columnDefinitions = spec.columns;
  table.rows = objects.map((o) => tableRow(spec, o, now, include));
  return table;
}
