/**
 * Validation of the input objects: first each spec against its schema (the same schema the CRD
 * carries, so this also catches objects written around the API server's checks), then the rules a
 * schema can not express. Every problem names the kind, the object, the field path and the value, so
 * that `Accepted=False` and the Event tell a person exactly what to fix. An input set with any
 * problem produces no revision at all (invariant 3).
 */
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/value';
import type { ResourceKind } from './constants.js';
import { MAX_IFNAME_LENGTH, MAX_VRF_NAME_LENGTH } from './constants.js';
import {
  CIDR_PATTERN,
  COMMUNITY_PATTERN,
  MAC_PATTERN,
  ROUTE_TARGET_PATTERN,
  VRF_NAME_PATTERN,
  isCommunity,
  isRouteTarget,
} from './grammar.js';
import { deviceNames } from './names.js';
import type { Inputs, Layer2NetworkConfiguration, RoutingTable, VRFRouteConfiguration } from './objects.js';
import { checkHostAddress, checkNetworkPrefix, parsePrefix } from './prefix.js';
import {
  Layer2NetworkConfigurationSpec,
  RoutingTableSpec,
  VRFRouteConfigurationSpec,
  type LabelSelector,
  type PrefixItem,
} from './schema.js';
import { SELECTOR_OPERATORS } from './selector.js';

export interface Problem {
  kind: ResourceKind;
  /** metadata.name of the object at fault. */
  name: string;
  /** Field path inside the object, e.g. `spec.import[2].cidr`. */
  field: string;
  /** The offending value (undefined for a missing field). */
  value: unknown;
  reason: string;
  /** `<kind> <name>: <field>: <reason> (got <value>)`, the text used in conditions, events and logs. */
  message: string;
}

/** Thrown where a caller needs an exception rather than a list. */
export class ValidationError extends Error {
  constructor(readonly problems: Problem[]) {
    super(
      problems.length === 1
        ? (problems[0] as Problem).message
        : `${problems.length} problems:\n${problems.map((p) => `- ${p.message}`).join('\n')}`,
    );
    this.name = 'ValidationError';
  }
}

/**
 * Records `value` as the holder of `key` unless another holder came first; returns that earlier
 * holder, which is what every "duplicates …" / "already used by …" check reports.
 */
function claim<K, V>(holders: Map<K, V>, key: K, value: V): V | undefined {
  const earlier = holders.get(key);
  if (earlier === undefined) holders.set(key, value);
  return earlier;
}

function problem(kind: ResourceKind, name: string, field: string, value: unknown, reason: string): Problem {
  const got = value === undefined ? '' : ` (got ${JSON.stringify(value)})`;
  return { kind, name, field, value, reason, message: `${kind} ${name}: ${field}: ${reason}${got}` };
}

/** Validates every input object and the set as a whole; returns all problems, in a stable order. */
export function validateInputs(inputs: Inputs): Problem[] {
  const problems: Problem[] = [];
  const sorted = <T extends { metadata: { name: string } }>(xs: T[]): T[] =>
    [...xs].sort((a, b) =>
      a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0,
    );

  // Objects that fail their schema are reported and left out of the cross-object checks, which
  // assume well-formed data.
  const vrfs = sorted(inputs.vrf).filter((o) =>
    keepIfValid(o, 'VRFRouteConfiguration', VRFRouteConfigurationSpec, problems),
  );
  const l2s = sorted(inputs.layer2).filter((o) =>
    keepIfValid(o, 'Layer2NetworkConfiguration', Layer2NetworkConfigurationSpec, problems),
  );
  const tables = sorted(inputs.routingTable).filter((o) =>
    keepIfValid(o, 'RoutingTable', RoutingTableSpec, problems),
  );

  for (const o of vrfs) problems.push(...checkVrf(o));
  for (const o of l2s) problems.push(...checkLayer2(o));
  for (const o of tables) problems.push(...checkRoutingTable(o));
  // A Layer-2 network naming a VRF whose only definition is itself invalid is not reported again.
  const definedVrfs = new Set(inputs.vrf.map((o) => (o.spec as { vrf?: unknown } | undefined)?.vrf));
  problems.push(...checkAcrossObjects(vrfs, l2s, tables, definedVrfs));
  return problems;
}

// ------------------------------------------------------------------------------------ schema

function keepIfValid(
  obj: { metadata: { name: string }; spec: unknown },
  kind: ResourceKind,
  schema: TSchema,
  out: Problem[],
): boolean {
  const name = obj.metadata.name;
  if (obj.spec === null || typeof obj.spec !== 'object') {
    out.push(problem(kind, name, 'spec', obj.spec, 'is required and must be an object'));
    return false;
  }
  const checker = compiled(schema);
  // The compiled check is cheap; errors are only collected for the rare object that fails it.
  if (checker.Check(obj.spec)) return true;
  const seen = new Set<string>();
  let ok = true;
  for (const err of checker.Errors(obj.spec)) {
    const field = 'spec' + jsonPointerToPath(err.path);
    // TypeBox reports a missing property twice (required, then wrong type): keep the first.
    if (seen.has(field)) continue;
    seen.add(field);
    ok = false;
    out.push(problem(kind, name, field, err.value, schemaReason(err)));
  }
  return ok;
}

const checkers = new Map<TSchema, TypeCheck<TSchema>>();
function compiled(schema: TSchema): TypeCheck<TSchema> {
  let checker = checkers.get(schema);
  if (!checker) checkers.set(schema, (checker = TypeCompiler.Compile(schema)));
  return checker;
}

function jsonPointerToPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((seg) => {
      const s = seg.replace(/~1/g, '/').replace(/~0/g, '~');
      return /^[0-9]+$/.test(s)
        ? `[${s}]`
        : /^[A-Za-z_][A-Za-z0-9_]*$/.test(s)
          ? `.${s}`
          : `[${JSON.stringify(s)}]`;
    })
    .join('');
}

const PATTERN_REASONS: Record<string, string> = {
  [VRF_NAME_PATTERN]: 'must be 1 to 12 characters of A-Z, a-z, 0-9, "_" or "-"',
  [MAC_PATTERN]: 'must be a MAC address like 02:00:5e:00:01:01',
  [COMMUNITY_PATTERN]: 'must be a BGP community (AA:NN, A:B:C or a well-known name such as no-export)',
  [ROUTE_TARGET_PATTERN]: 'must be a route target (ASN:NN or IPv4:NN)',
  [CIDR_PATTERN]: 'must be an IPv4 or IPv6 prefix in CIDR notation',
};

function schemaReason(err: ValueError): string {
  const s = err.schema as Record<string, unknown>;
  switch (err.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return 'is required';
    case ValueErrorType.Integer:
      return 'must be an integer';
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.NumberMinimum:
      return `must be at least ${String(s.minimum)}`;
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberMaximum:
      return `must be at most ${String(s.maximum)}`;
    case ValueErrorType.String:
      return 'must be a string';
    case ValueErrorType.Boolean:
      return 'must be true or false';
    case ValueErrorType.Array:
      return 'must be a list';
    case ValueErrorType.Object:
      return 'must be an object';
    case ValueErrorType.ArrayMaxItems:
      return `must have at most ${String(s.maxItems)} items`;
    case ValueErrorType.StringMinLength:
      return `must be at least ${String(s.minLength)} characters long`;
    case ValueErrorType.StringMaxLength:
      if (s.pattern === VRF_NAME_PATTERN && typeof err.value === 'string') return vrfNameTooLong(err.value);
      return `must be at most ${String(s.maxLength)} characters long`;
    case ValueErrorType.StringPattern:
      if (
        s.pattern === VRF_NAME_PATTERN &&
        typeof err.value === 'string' &&
        /^[A-Za-z0-9_-]+$/.test(err.value)
      ) {
        return vrfNameTooLong(err.value);
      }
      return PATTERN_REASONS[String(s.pattern)] ?? `must match ${String(s.pattern)}`;
    case ValueErrorType.Kind:
      if (Array.isArray(s.enum)) return `must be one of ${s.enum.join(', ')}`;
      return err.message;
    default:
      return err.message;
  }
}

/** The VRF name limit exists because of interface names; say so, with the name that would not fit. */
function vrfNameTooLong(vrf: string): string {
  const longest = deviceNames.vrf(vrf);
  return (
    `is ${vrf.length} characters; interface name "${longest}" would exceed the kernel's ` +
    `${MAX_IFNAME_LENGTH}-character limit (VRF names have at most ${MAX_VRF_NAME_LENGTH})`
  );
}

// ------------------------------------------------------------------------------------ per object

function checkVrf(o: VRFRouteConfiguration): Problem[] {
  const kind = 'VRFRouteConfiguration';
  const name = o.metadata.name;
  const s = o.spec;
  const out: Problem[] = [];
  for (const list of ['import', 'export'] as const) {
    out.push(...checkPrefixList(kind, name, `spec.${list}`, s[list] ?? []));
  }
  out.push(...checkAddressList(kind, name, 'spec.aggregate', s.aggregate ?? [], checkNetworkPrefix));
  if (s.community !== undefined && !isCommunity(s.community)) {
    out.push(
      problem(
        kind,
        name,
        'spec.community',
        s.community,
        'has a part out of range (16-bit AA:NN, 32-bit A:B:C)',
      ),
    );
  }
  if (s.routeTarget !== undefined && !isRouteTarget(s.routeTarget)) {
    out.push(
      problem(kind, name, 'spec.routeTarget', s.routeTarget, 'has a part out of range for ASN:NN or IPv4:NN'),
    );
  }
  out.push(...checkInterfaceNames(kind, name, 'spec.vrf', s.vrf, vrfDeviceNames(s.vrf)));
  return out;
}

/** A list of prefixes or addresses: each must pass `check`, and none may repeat an earlier one. */
function checkAddressList(
  kind: ResourceKind,
  name: string,
  path: string,
  items: readonly string[],
  check: (text: string) => string | undefined,
): Problem[] {
  const out: Problem[] = [];
  const seen = new Map<string, number>();
  items.forEach((text, i) => {
    const field = `${path}[${i}]`;
    const reason = check(text);
    if (reason) out.push(problem(kind, name, field, text, reason));
    const first = claim(seen, text, i);
    if (first !== undefined) out.push(problem(kind, name, field, text, `duplicates ${path}[${first}]`));
  });
  return out;
}

function checkPrefixList(kind: ResourceKind, name: string, path: string, items: PrefixItem[]): Problem[] {
  const out: Problem[] = [];
  const seenCidr = new Map<string, number>();
  const seenSeq = new Map<number, number>();
  items.forEach((item, i) => {
    const at = `${path}[${i}]`;
    const parsed = parsePrefix(item.cidr);
    if (!parsed.ok) {
      out.push(problem(kind, name, `${at}.cidr`, item.cidr, parsed.reason));
    } else {
      const hostBits = checkNetworkPrefix(item.cidr);
      if (hostBits) out.push(problem(kind, name, `${at}.cidr`, item.cidr, hostBits));
      const { length, max } = parsed.prefix;
      // FRR's own rule: len < ge <= le <= max (and le >= len).
      if (item.ge !== undefined) {
        if (item.ge <= length) {
          out.push(
            problem(kind, name, `${at}.ge`, item.ge, `must be greater than the prefix length ${length}`),
          );
        } else if (item.ge > max) {
          out.push(
            problem(kind, name, `${at}.ge`, item.ge, `must be at most ${max} for IPv${parsed.prefix.family}`),
          );
        }
      }
      if (item.le !== undefined) {
        if (item.le < length) {
          out.push(problem(kind, name, `${at}.le`, item.le, `must be at least the prefix length ${length}`));
        } else if (item.le > max) {
          out.push(
            problem(kind, name, `${at}.le`, item.le, `must be at most ${max} for IPv${parsed.prefix.family}`),
          );
        } else if (item.ge !== undefined && item.le < item.ge) {
          out.push(problem(kind, name, `${at}.le`, item.le, `must be at least ge (${item.ge})`));
        }
      }
    }
    const firstCidr = claim(seenCidr, item.cidr, i);
    if (firstCidr !== undefined) {
      out.push(problem(kind, name, `${at}.cidr`, item.cidr, `duplicates ${path}[${firstCidr}].cidr`));
    }
    const firstSeq = claim(seenSeq, item.seq, i);
    if (firstSeq !== undefined) {
      out.push(problem(kind, name, `${at}.seq`, item.seq, `duplicates ${path}[${firstSeq}].seq`));
    }
  });
  return out;
}

function checkLayer2(o: Layer2NetworkConfiguration): Problem[] {
  const kind = 'Layer2NetworkConfiguration';
  const name = o.metadata.name;
  const s = o.spec;
  const out: Problem[] = [];
  const gateways = s.anycastGateways ?? [];
  out.push(...checkAddressList(kind, name, 'spec.anycastGateways', gateways, checkHostAddress));
  if (gateways.length > 0 && s.anycastMac === undefined) {
    out.push(
      problem(kind, name, 'spec.anycastMac', undefined, 'is required when spec.anycastGateways is set'),
    );
  }
  if (s.anycastMac !== undefined && (parseInt(s.anycastMac.slice(0, 2), 16) & 1) === 1) {
    out.push(
      problem(
        kind,
        name,
        'spec.anycastMac',
        s.anycastMac,
        'must be a unicast MAC (lowest bit of the first octet clear)',
      ),
    );
  }
  if (s.nodeSelector) out.push(...checkSelector(kind, name, 'spec.nodeSelector', s.nodeSelector));
  const names = [deviceNames.l2Bridge(s.id), deviceNames.l2Vxlan(s.vni)];
  if (s.createMacVLANInterface) names.push(deviceNames.l2MacvlanPort(s.id), deviceNames.l2Macvlan(s.id));
  out.push(...checkInterfaceNames(kind, name, 'spec.id', s.id, names));
  return out;
}

function checkSelector(kind: ResourceKind, name: string, path: string, sel: LabelSelector): Problem[] {
  const out: Problem[] = [];
  (sel.matchExpressions ?? []).forEach((req, i) => {
    const at = `${path}.matchExpressions[${i}]`;
    const values = req.values ?? [];
    if (!(SELECTOR_OPERATORS as readonly string[]).includes(req.operator)) {
      out.push(
        problem(
          kind,
          name,
          `${at}.operator`,
          req.operator,
          `must be one of ${SELECTOR_OPERATORS.join(', ')}`,
        ),
      );
    } else if ((req.operator === 'In' || req.operator === 'NotIn') && values.length === 0) {
      out.push(
        problem(kind, name, `${at}.values`, req.values, `must be non-empty for operator ${req.operator}`),
      );
    } else if ((req.operator === 'Exists' || req.operator === 'DoesNotExist') && values.length > 0) {
      out.push(problem(kind, name, `${at}.values`, req.values, `must be empty for operator ${req.operator}`));
    }
  });
  return out;
}

function checkRoutingTable(o: RoutingTable): Problem[] {
  const kind = 'RoutingTable';
  const id = o.spec.tableId;
  const out: Problem[] = [];
  // 253 default, 254 main, 255 local: owned by the kernel, never by nodenet.
  if (id >= 253 && id <= 255) {
    out.push(
      problem(
        kind,
        o.metadata.name,
        'spec.tableId',
        id,
        'is reserved by the kernel (253 default, 254 main, 255 local)',
      ),
    );
  }
  out.push(...checkInterfaceNames(kind, o.metadata.name, 'spec.tableId', id, [deviceNames.routingTable(id)]));
  return out;
}

const vrfDeviceNames = (vrf: string): string[] => [
  deviceNames.vrf(vrf),
  deviceNames.vrfBridge(vrf),
  deviceNames.vrfVxlan(vrf),
  deviceNames.vrfToDefault(vrf),
  deviceNames.defaultToVrf(vrf),
];

function checkInterfaceNames(
  kind: ResourceKind,
  name: string,
  field: string,
  value: unknown,
  names: string[],
): Problem[] {
  const tooLong = names.find((n) => n.length > MAX_IFNAME_LENGTH);
  return tooLong
    ? [
        problem(
          kind,
          name,
          field,
          value,
          `interface name "${tooLong}" would exceed ${MAX_IFNAME_LENGTH} characters`,
        ),
      ]
    : [];
}

// ------------------------------------------------------------------------------------ across objects

function checkAcrossObjects(
  vrfs: VRFRouteConfiguration[],
  l2s: Layer2NetworkConfiguration[],
  tables: RoutingTable[],
  definedVrfs: Set<unknown>,
): Problem[] {
  const out: Problem[] = [];

  // VRFs: several objects may configure one VRF (each with its own route-map seq), but must agree
  // on its VNI and route target, and one VNI can not carry two VRFs.
  const byVrf = new Map<string, VRFRouteConfiguration>();
  const seqOwner = new Map<string, string>();
  const l3Vni = new Map<number, VRFRouteConfiguration>();
  for (const o of vrfs) {
    const s = o.spec;
    const first = byVrf.get(s.vrf);
    if (first) {
      if (first.spec.vni !== s.vni) {
        out.push(
          problem(
            'VRFRouteConfiguration',
            o.metadata.name,
            'spec.vni',
            s.vni,
            `conflicts with VRFRouteConfiguration ${first.metadata.name}, which gives VRF ${s.vrf} VNI ${first.spec.vni}`,
          ),
        );
      }
      if (
        first.spec.routeTarget !== undefined &&
        s.routeTarget !== undefined &&
        first.spec.routeTarget !== s.routeTarget
      ) {
        out.push(
          problem(
            'VRFRouteConfiguration',
            o.metadata.name,
            'spec.routeTarget',
            s.routeTarget,
            `conflicts with VRFRouteConfiguration ${first.metadata.name}, which gives VRF ${s.vrf} route target ${first.spec.routeTarget}`,
          ),
        );
      }
    } else {
      byVrf.set(s.vrf, o);
      const other = claim(l3Vni, s.vni, o);
      if (other) {
        out.push(
          problem(
            'VRFRouteConfiguration',
            o.metadata.name,
            'spec.vni',
            s.vni,
            `is already the VNI of VRF ${other.spec.vrf} (VRFRouteConfiguration ${other.metadata.name})`,
          ),
        );
      }
    }
    const seqKey = `${s.vrf}/${s.seq}`;
    const seqFirst = claim(seqOwner, seqKey, o.metadata.name);
    if (seqFirst !== undefined) {
      out.push(
        problem(
          'VRFRouteConfiguration',
          o.metadata.name,
          'spec.seq',
          s.seq,
          `is already used in VRF ${s.vrf} by VRFRouteConfiguration ${seqFirst}`,
        ),
      );
    }
  }

  const byVlan = new Map<number, string>();
  const byL2Vni = new Map<number, string>();
  for (const o of l2s) {
    const s = o.spec;
    const kind = 'Layer2NetworkConfiguration';
    const vlanOwner = claim(byVlan, s.id, o.metadata.name);
    if (vlanOwner !== undefined) {
      out.push(
        problem(
          kind,
          o.metadata.name,
          'spec.id',
          s.id,
          `is already used by Layer2NetworkConfiguration ${vlanOwner}`,
        ),
      );
    }
    const vniOwner = claim(byL2Vni, s.vni, o.metadata.name);
    if (vniOwner !== undefined) {
      out.push(
        problem(
          kind,
          o.metadata.name,
          'spec.vni',
          s.vni,
          `is already used by Layer2NetworkConfiguration ${vniOwner}`,
        ),
      );
    }
    const l3 = l3Vni.get(s.vni);
    if (l3) {
      out.push(
        problem(
          kind,
          o.metadata.name,
          'spec.vni',
          s.vni,
          `is the L3 VNI of VRF ${l3.spec.vrf} (VRFRouteConfiguration ${l3.metadata.name}); a VNI is either L2 or L3`,
        ),
      );
    }
    if (s.vrf !== undefined && !definedVrfs.has(s.vrf)) {
      out.push(
        problem(
          kind,
          o.metadata.name,
          'spec.vrf',
          s.vrf,
          'names a VRF that no VRFRouteConfiguration defines',
        ),
      );
    }
  }

  const byTable = new Map<number, string>();
  for (const o of tables) {
    const owner = claim(byTable, o.spec.tableId, o.metadata.name);
    if (owner !== undefined) {
      out.push(
        problem(
          'RoutingTable',
          o.metadata.name,
          'spec.tableId',
          o.spec.tableId,
          `is already used by RoutingTable ${owner}`,
        ),
      );
    }
  }
  return out;
}
