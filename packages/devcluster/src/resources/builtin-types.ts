/**
 * The built-in kinds nodenet and kubectl need (Namespaces, Nodes, Leases, Events in both API groups,
 * …) with their printer columns and the checks the real API server makes on them.
 */
import type { FieldError } from '../objects/errors.js';
import { builtin, type ResourceType } from './resources.js';
import type { Schema } from '../schema/schema.js';
import { age, ageColumn, column, nameColumn } from './table.js';
import { isObject, type KObject } from '../objects/types.js';
import { plainText } from '../objects/text.js';

const EVENT_RENAMES: [core: string, events: string][] = [
  ['involvedObject', 'regarding'],
  ['message', 'note'],
  ['reportingComponent', 'reportingController'],
  ['source', 'deprecatedSource'],
  ['firstTimestamp', 'deprecatedFirstTimestamp'],
  ['lastTimestamp', 'deprecatedLastTimestamp'],
  ['count', 'deprecatedCount'],
];

function renameFields(obj: KObject, pairs: [from: string, to: string][], apiVersion: string): KObject {
  const out: KObject = { ...obj, apiVersion, kind: 'Event' };
  for (const [from, to] of pairs) {
    delete out[from];
    if (obj[from] !== undefined && obj[from] !== null) out[to] = obj[from];
  }
  return out;
}

const coreEventToEventsV1 = (o: KObject): KObject => renameFields(o, EVENT_RENAMES, 'events.k8s.io/v1');
const eventsV1ToCoreEvent = (o: KObject): KObject =>
  renameFields(
    o,
    EVENT_RENAMES.map(([c, e]) => [e, c]),
    'v1',
  );

const get = (v: unknown, ...path: string[]): unknown => {
  let cur = v;
  for (const p of path) cur = isObject(cur) ? cur[p] : undefined;
  return cur;
};
const str = (v: unknown, none = '<none>'): string =>
  v === undefined || v === null || v === '' ? none : plainText(v);

// RFC3339 with exactly six fractional digits, as metav1.MicroTime requires (a JS Date's three are refused).
const MICRO_TIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2})$/;

/**
 * kube-apiserver's rule for where an Event may be (core/v1 legacyValidateEvent): about a namespaced
 * object, in that object's namespace; about a cluster-scoped one, in `default` (or, for an Event
 * with an eventTime, `default` or `kube-system`).
 */
function eventNamespaceErrors(o: KObject): FieldError[] {
  const involved = get(o, 'involvedObject', 'namespace');
  const about = typeof involved === 'string' ? involved : '';
  const ns = o.metadata.namespace ?? '';
  const allowed = about ? [about] : get(o, 'eventTime') ? ['default', 'kube-system'] : ['', 'default'];
  if (allowed.includes(ns)) return [];
  return [
    {
      type: 'FieldValueInvalid',
      field: 'involvedObject.namespace',
      message: `Invalid value: ${JSON.stringify(about)}: does not match event.namespace`,
    },
  ];
}

function microTimeErrors(obj: KObject, fields: string[][]): FieldError[] {
  const errs: FieldError[] = [];
  for (const path of fields) {
    const v = get(obj, ...path);
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string' || !MICRO_TIME_RE.test(v)) {
      errs.push({
        type: 'FieldValueInvalid',
        field: path.join('.'),
        message: `Invalid value: ${JSON.stringify(v)}: must be an RFC3339 timestamp with microseconds (2006-01-02T15:04:05.000000Z07:00)`,
      });
    }
  }
  return errs;
}

const leaseSchema: Schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        holderIdentity: { type: 'string', nullable: true },
        leaseDurationSeconds: { type: 'integer', nullable: true },
        acquireTime: { type: 'string', nullable: true },
        renewTime: { type: 'string', nullable: true },
        leaseTransitions: { type: 'integer', nullable: true },
        strategy: { type: 'string', nullable: true },
        preferredHolder: { type: 'string', nullable: true },
      },
    },
  },
};

function nodeStatus(obj: KObject): string {
  const conditions = get(obj, 'status', 'conditions');
  const ready: unknown = Array.isArray(conditions)
    ? (conditions as unknown[]).find((c) => get(c, 'type') === 'Ready')
    : undefined;
  let s = ready === undefined ? 'Unknown' : get(ready, 'status') === 'True' ? 'Ready' : 'NotReady';
  if (get(obj, 'spec', 'unschedulable') === true) s += ',SchedulingDisabled';
  return s;
}

function nodeRoles(obj: KObject): string {
  const roles = Object.keys(obj.metadata.labels ?? {})
    .filter((k) => k.startsWith('node-role.kubernetes.io/'))
    .map((k) => k.slice('node-role.kubernetes.io/'.length))
    .filter((r) => r !== '');
  return roles.length ? roles.sort().join(',') : '<none>';
}

function nodeAddress(obj: KObject, type: string): string {
  const addrs = get(obj, 'status', 'addresses');
  const a: unknown = Array.isArray(addrs)
    ? (addrs as unknown[]).find((x) => get(x, 'type') === type)
    : undefined;
  return str(get(a, 'address'));
}

function eventObject(obj: KObject, ref: string): string {
  const kind = str(get(obj, ref, 'kind'), '');
  const name = str(get(obj, ref, 'name'), '');
  return `${kind.toLowerCase()}/${name}`;
}

function eventLastSeen(obj: KObject, now: number): string {
  const t =
    get(obj, 'lastTimestamp') ??
    get(obj, 'eventTime') ??
    get(obj, 'series', 'lastObservedTime') ??
    obj.metadata.creationTimestamp;
  return age(t, now);
}

export const BUILTIN_TYPES: ResourceType[] = [
  builtin({
    group: '',
    version: 'v1',
    plural: 'namespaces',
    kind: 'Namespace',
    namespaced: false,
    shortNames: ['ns'],
    statusSubresource: true,
    table: {
      columns: [nameColumn, column('Status', 'string', 0, 'The status of the namespace'), ageColumn],
      cells: (o, now) => [
        o.metadata.name,
        str(get(o, 'status', 'phase'), 'Active'),
        age(o.metadata.creationTimestamp, now),
      ],
    },
  }),
  builtin({
    group: '',
    version: 'v1',
    plural: 'nodes',
    kind: 'Node',
    namespaced: false,
    shortNames: ['no'],
    statusSubresource: true,
    keepStatusOnCreate: true,
    statusWriteKeepsMetadata: true,
    table: {
      columns: [
        nameColumn,
        column('Status', 'string', 0, 'The status of the node'),
        column('Roles', 'string', 0, 'The roles of the node'),
        ageColumn,
        column('Version', 'string', 0, 'Kubelet Version reported by the node.'),
        column('Internal-IP', 'string', 1, 'List of internal IPs in the node.'),
        column('External-IP', 'string', 1, 'List of external IPs in the node.'),
        column(
          'OS-Image',
          'string',
          1,
          'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).',
        ),
        column('Kernel-Version', 'string', 1, 'Kernel Version reported by the node.'),
        column('Container-Runtime', 'string', 1, 'Container Runtime Version reported by the node.'),
      ],
      cells: (o, now) => [
        o.metadata.name,
        nodeStatus(o),
        nodeRoles(o),
        age(o.metadata.creationTimestamp, now),
        str(get(o, 'status', 'nodeInfo', 'kubeletVersion'), ''),
        nodeAddress(o, 'InternalIP'),
        nodeAddress(o, 'ExternalIP'),
        str(get(o, 'status', 'nodeInfo', 'osImage'), '<unknown>'),
        str(get(o, 'status', 'nodeInfo', 'kernelVersion'), '<unknown>'),
        str(get(o, 'status', 'nodeInfo', 'containerRuntimeVersion'), '<unknown>'),
      ],
    },
  }),
  builtin({
    group: '',
    version: 'v1',
    plural: 'configmaps',
    kind: 'ConfigMap',
    namespaced: true,
    shortNames: ['cm'],
    table: {
      columns: [nameColumn, column('Data', 'integer', 0, 'Number of data entries'), ageColumn],
      cells: (o, now) => [
        o.metadata.name,
        Object.keys(isObject(o.data) ? o.data : {}).length +
          Object.keys(isObject(o.binaryData) ? o.binaryData : {}).length,
        age(o.metadata.creationTimestamp, now),
      ],
    },
  }),
  builtin({
    group: '',
    version: 'v1',
    plural: 'secrets',
    kind: 'Secret',
    namespaced: true,
    table: {
      columns: [nameColumn, column('Type'), column('Data', 'integer'), ageColumn],
      cells: (o, now) => [
        o.metadata.name,
        str(o.type, 'Opaque'),
        Object.keys(isObject(o.data) ? o.data : {}).length,
        age(o.metadata.creationTimestamp, now),
      ],
    },
  }),
  // Pods are stored and listed (kubectl describe node lists them) but nothing runs them.
  builtin({
    group: '',
    version: 'v1',
    plural: 'pods',
    kind: 'Pod',
    namespaced: true,
    shortNames: ['po'],
    categories: ['all'],
    statusSubresource: true,
    keepStatusOnCreate: true,
    table: {
      columns: [nameColumn, column('Ready'), column('Status'), column('Restarts'), ageColumn],
      cells: (o, now) => {
        const statuses = get(o, 'status', 'containerStatuses');
        const list = Array.isArray(statuses) ? statuses : [];
        const containers = get(o, 'spec', 'containers');
        const total = Array.isArray(containers) ? containers.length : list.length;
        const ready = list.filter((c) => get(c, 'ready') === true).length;
        const restarts = list.reduce((n: number, c) => n + (Number(get(c, 'restartCount')) || 0), 0);
        return [
          o.metadata.name,
          `${ready}/${total}`,
          str(get(o, 'status', 'phase'), 'Pending'),
          String(restarts),
          age(o.metadata.creationTimestamp, now),
        ];
      },
    },
  }),
  builtin({
    group: '',
    version: 'v1',
    plural: 'serviceaccounts',
    kind: 'ServiceAccount',
    namespaced: true,
    shortNames: ['sa'],
    subresources: [
      {
        name: 'token',
        group: 'authentication.k8s.io',
        version: 'v1',
        kind: 'TokenRequest',
        verbs: ['create'],
      },
    ],
  }),
  builtin({
    group: '',
    version: 'v1',
    plural: 'events',
    kind: 'Event',
    namespaced: true,
    shortNames: ['ev'],
    validateBuiltin: eventNamespaceErrors,
    table: {
      columns: [
        column('Last Seen'),
        column('Type'),
        column('Reason'),
        column('Object'),
        column('Message'),
        column('Source', 'string', 1),
        column('First Seen', 'string', 1),
        column('Count', 'integer', 1),
        { ...nameColumn, priority: 1 },
      ],
      cells: (o, now) => [
        eventLastSeen(o, now),
        str(o.type, ''),
        str(o.reason, ''),
        eventObject(o, 'involvedObject'),
        str(o.message, ''),
        str(get(o, 'source', 'component') ?? o.reportingComponent, ''),
        age(get(o, 'firstTimestamp') ?? o.metadata.creationTimestamp, now),
        typeof o.count === 'number' ? o.count : 1,
        o.metadata.name,
      ],
    },
  }),
  builtin({
    group: 'events.k8s.io',
    version: 'v1',
    plural: 'events',
    kind: 'Event',
    namespaced: true,
    shortNames: ['ev'],
    storageKey: '/events',
    convert: { toStorage: eventsV1ToCoreEvent, fromStorage: coreEventToEventsV1 },
    validateBuiltin: (o) => microTimeErrors(o, [['eventTime']]),
    table: {
      columns: [column('Last Seen'), column('Type'), column('Reason'), column('Object'), column('Message')],
      cells: (o, now) => [
        eventLastSeen(o, now),
        str(o.type, ''),
        str(o.reason, ''),
        eventObject(o, 'regarding'),
        str(o.note, ''),
      ],
    },
  }),
  builtin({
    group: 'coordination.k8s.io',
    version: 'v1',
    plural: 'leases',
    kind: 'Lease',
    namespaced: true,
    schema: leaseSchema,
    validateBuiltin: (o) =>
      microTimeErrors(o, [
        ['spec', 'acquireTime'],
        ['spec', 'renewTime'],
      ]),
    table: {
      columns: [nameColumn, column('Holder', 'string', 0, 'The holder of the lease'), ageColumn],
      cells: (o, now) => [
        o.metadata.name,
        str(get(o, 'spec', 'holderIdentity'), ''),
        age(o.metadata.creationTimestamp, now),
      ],
    },
  }),
  builtin({
    group: 'apiextensions.k8s.io',
    version: 'v1',
    plural: 'customresourcedefinitions',
    kind: 'CustomResourceDefinition',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    statusSubresource: true,
    generation: true,
    table: {
      columns: [nameColumn, column('Created At', 'date', 0, 'Creation timestamp')],
      cells: (o) => [o.metadata.name, o.metadata.creationTimestamp],
    },
  }),
];

// ---------------------------------------------------------------- custom resources
