/**
 * Rules about one object at a time, after its schema check passed. Each rule is a named function of
 * the object; adding a rule is one function here, its entry in the kind's list, and one corpus row.
 */
import { MAX_IFNAME_LENGTH, VRF_TABLE_RANGE } from '../names/kubernetes.js';
import { isCommunity, isRouteTarget } from '../grammar/patterns.js';
import { deviceNames } from '../names/devices.js';
import type {
  Layer2NetworkConfiguration,
  RoutingTable,
  VRFRouteConfiguration,
} from '../resources/objects.js';
import { checkGatewayAddress, checkNetworkPrefix, normalizePrefix, parsePrefix } from '../grammar/prefix.js';
import type { PrefixItem } from '../resources/schema.js';
import { RESERVED_VRF_NAMES } from '../resources/cel-rules.js';
import { checkSelector } from './selector-rules.js';
import { VRF_EXTRA_RULES } from './vrf-extras-rules.js';
import { claim, problem, type Problem, type ProblemObject } from './problem.js';

export type ObjectRule<T> = (o: T) => Problem[];

const VRF = 'VRFRouteConfiguration';
const L2 = 'Layer2NetworkConfiguration';
const TABLE = 'RoutingTable';

// ------------------------------------------------------------------------------------ VRF

const vrfPrefixLists: ObjectRule<VRFRouteConfiguration> = (o) =>
  (['import', 'export'] as const).flatMap((list) =>
    checkPrefixList({ kind: VRF, name: o.metadata.name }, `spec.${list}`, o.spec[list] ?? []),
  );

const vrfAggregates: ObjectRule<VRFRouteConfiguration> = (o) =>
  checkAddressList(
    { kind: VRF, name: o.metadata.name },
    'spec.aggregate',
    o.spec.aggregate ?? [],
    checkNetworkPrefix,
  );

const vrfCommunity: ObjectRule<VRFRouteConfiguration> = ({ metadata, spec }) =>
  spec.community !== undefined && !isCommunity(spec.community)
    ? [
        problem(
          { kind: VRF, name: metadata.name },
          'spec.community',
          spec.community,
          'has a part out of range (16-bit AA:NN, 32-bit A:B:C)',
        ),
      ]
    : [];

const vrfRouteTarget: ObjectRule<VRFRouteConfiguration> = ({ metadata, spec }) =>
  spec.routeTarget !== undefined && !isRouteTarget(spec.routeTarget)
    ? [
        problem(
          { kind: VRF, name: metadata.name },
          'spec.routeTarget',
          spec.routeTarget,
          'has a part out of range for ASN:NN or IPv4:NN',
        ),
      ]
    : [];

const vrfNameNotReserved: ObjectRule<VRFRouteConfiguration> = ({ metadata, spec }) =>
  (RESERVED_VRF_NAMES as readonly string[]).includes(spec.vrf)
    ? [
        problem(
          { kind: VRF, name: metadata.name },
          'spec.vrf',
          spec.vrf,
          `is a reserved name (${RESERVED_VRF_NAMES.join(', ')} are not accepted as VRF names)`,
        ),
      ]
    : [];

const vrfInterfaceNames: ObjectRule<VRFRouteConfiguration> = ({ metadata, spec }) =>
  checkInterfaceNames({ kind: VRF, name: metadata.name }, 'spec.vrf', spec.vrf, vrfDeviceNames(spec.vrf));

export const VRF_RULES: ObjectRule<VRFRouteConfiguration>[] = [
  vrfNameNotReserved,
  vrfPrefixLists,
  vrfAggregates,
  vrfCommunity,
  vrfRouteTarget,
  vrfInterfaceNames,
  ...VRF_EXTRA_RULES,
];

// ------------------------------------------------------------------------------------ Layer-2

const layer2Gateways: ObjectRule<Layer2NetworkConfiguration> = ({ metadata, spec }) =>
  checkAddressList(
    { kind: L2, name: metadata.name },
    'spec.anycastGateways',
    spec.anycastGateways ?? [],
    checkGatewayAddress,
  );

const layer2GatewaysNeedMac: ObjectRule<Layer2NetworkConfiguration> = ({ metadata, spec }) =>
  (spec.anycastGateways ?? []).length > 0 && spec.anycastMac === undefined
    ? [
        problem(
          { kind: L2, name: metadata.name },
          'spec.anycastMac',
          undefined,
          'is required when spec.anycastGateways is set',
        ),
      ]
    : [];

const layer2UnicastMac: ObjectRule<Layer2NetworkConfiguration> = ({ metadata, spec }) =>
  spec.anycastMac !== undefined && (parseInt(spec.anycastMac.slice(0, 2), 16) & 1) === 1
    ? [
        problem(
          { kind: L2, name: metadata.name },
          'spec.anycastMac',
          spec.anycastMac,
          'must be a unicast MAC (lowest bit of the first octet clear)',
        ),
      ]
    : [];

const layer2Selector: ObjectRule<Layer2NetworkConfiguration> = ({ metadata, spec }) =>
  spec.nodeSelector ? checkSelector(L2, metadata.name, 'spec.nodeSelector', spec.nodeSelector) : [];

const layer2InterfaceNames: ObjectRule<Layer2NetworkConfiguration> = ({ metadata, spec }) =>
  checkInterfaceNames({ kind: L2, name: metadata.name }, 'spec.id', spec.id, layer2DeviceNames(spec));

export const LAYER2_RULES: ObjectRule<Layer2NetworkConfiguration>[] = [
  layer2Gateways,
  layer2GatewaysNeedMac,
  layer2UnicastMac,
  layer2Selector,
  layer2InterfaceNames,
];

// ------------------------------------------------------------------------------------ RoutingTable

const tableNotKernel: ObjectRule<RoutingTable> = ({ metadata, spec }) =>
  // 253 default, 254 main, 255 local: owned by the kernel, never by nodenet.
  spec.tableId >= 253 && spec.tableId <= 255
    ? [
        problem(
          { kind: TABLE, name: metadata.name },
          'spec.tableId',
          spec.tableId,
          'is reserved by the kernel (253 default, 254 main, 255 local)',
        ),
      ]
    : [];

const tableOutsideVrfRange: ObjectRule<RoutingTable> = ({ metadata, spec }) =>
  // Agents allocate the tables of VRFs from this range; a RoutingTable inside it would take the
  // table of a running VRF on some node, and every agent would re-create that VRF.
  spec.tableId >= VRF_TABLE_RANGE.min &&
  spec.tableId <= VRF_TABLE_RANGE.max &&
  !(spec.tableId >= 253 && spec.tableId <= 255)
    ? [
        problem(
          { kind: TABLE, name: metadata.name },
          'spec.tableId',
          spec.tableId,
          `is inside ${VRF_TABLE_RANGE.min}–${VRF_TABLE_RANGE.max}, the range agents allocate VRF tables from; choose another id`,
        ),
      ]
    : [];

const tableInterfaceNames: ObjectRule<RoutingTable> = ({ metadata, spec }) =>
  checkInterfaceNames({ kind: TABLE, name: metadata.name }, 'spec.tableId', spec.tableId, [
    deviceNames.routingTable(spec.tableId),
  ]);

export const TABLE_RULES: ObjectRule<RoutingTable>[] = [
  tableNotKernel,
  tableOutsideVrfRange,
  tableInterfaceNames,
];

// ------------------------------------------------------------------------------------ shared checks

export const vrfDeviceNames = (vrf: string): string[] => [
  deviceNames.vrf(vrf),
  deviceNames.vrfBridge(vrf),
  deviceNames.vrfVxlan(vrf),
  deviceNames.vrfToDefault(vrf),
  deviceNames.defaultToVrf(vrf),
];

export const layer2DeviceNames = (s: Layer2NetworkConfiguration['spec']): string[] => [
  deviceNames.l2Bridge(s.id),
  deviceNames.l2Vxlan(s.vni),
  ...(s.createMacVLANInterface ? [deviceNames.l2MacvlanPort(s.id), deviceNames.l2Macvlan(s.id)] : []),
];

/**
 * A list of prefixes or addresses: each must pass `check`, and none may repeat an earlier one. Two
 * spellings of one prefix (`2001:DB8:0::/32`, `2001:db8::/32`) are the same entry once rendered.
 */
function checkAddressList(
  obj: ProblemObject,
  path: string,
  items: readonly string[],
  check: (text: string) => string | undefined,
): Problem[] {
  const out: Problem[] = [];
  const seen = new Map<string, number>();
  items.forEach((text, i) => {
    const field = `${path}[${i}]`;
    const reason = check(text);
    if (reason) out.push(problem(obj, field, text, reason));
    const first = claim(seen, normalizePrefix(text), i);
    if (first !== undefined) out.push(problem(obj, field, text, `duplicates ${path}[${first}]`));
  });
  return out;
}

/**
 * A prefix list. An entry repeats another only when it matches the same routes with the same action
 * (prefix, ge, le, action: das-schiff-network-operator #154): `::/0 deny` next to
 * `::/0 permit ge 44 le 128` is a legitimate list.
 */
export function checkPrefixList(obj: ProblemObject, path: string, items: PrefixItem[]): Problem[] {
  const out: Problem[] = [];
  const seenEntry = new Map<string, number>();
  const seenSeq = new Map<number, number>();
  items.forEach((item, i) => {
    const at = `${path}[${i}]`;
    const parsed = parsePrefix(item.cidr);
    if (!parsed.ok) {
      out.push(problem(obj, `${at}.cidr`, item.cidr, parsed.reason));
    } else {
      const hostBits = checkNetworkPrefix(item.cidr);
      if (hostBits) out.push(problem(obj, `${at}.cidr`, item.cidr, hostBits));
      out.push(...checkGeLe(obj, at, item, parsed.prefix));
    }
    const key = `${normalizePrefix(item.cidr)} ${item.action ?? 'permit'} ge ${item.ge ?? '-'} le ${item.le ?? '-'}`;
    const firstEntry = claim(seenEntry, key, i);
    if (firstEntry !== undefined) {
      out.push(
        problem(
          obj,
          `${at}.cidr`,
          item.cidr,
          `duplicates ${path}[${firstEntry}] (same prefix, action, ge and le)`,
        ),
      );
    }
    const firstSeq = claim(seenSeq, item.seq, i);
    if (firstSeq !== undefined) {
      out.push(problem(obj, `${at}.seq`, item.seq, `duplicates ${path}[${firstSeq}].seq`));
    }
  });
  return out;
}

/** FRR's own rule: len < ge <= le <= max (and le >= len). */
function checkGeLe(
  obj: ProblemObject,
  at: string,
  item: PrefixItem,
  prefix: { length: number; max: number; family: number },
): Problem[] {
  const { length, max, family } = prefix;
  const out: Problem[] = [];
  if (item.ge !== undefined) {
    if (item.ge <= length) {
      out.push(problem(obj, `${at}.ge`, item.ge, `must be greater than the prefix length ${length}`));
    } else if (item.ge > max) {
      out.push(problem(obj, `${at}.ge`, item.ge, `must be at most ${max} for IPv${family}`));
    }
  }
  if (item.le !== undefined) {
    if (item.le < length) {
      out.push(problem(obj, `${at}.le`, item.le, `must be at least the prefix length ${length}`));
    } else if (item.le > max) {
      out.push(problem(obj, `${at}.le`, item.le, `must be at most ${max} for IPv${family}`));
    } else if (item.ge !== undefined && item.le < item.ge) {
      out.push(problem(obj, `${at}.le`, item.le, `must be at least ge (${item.ge})`));
    }
  }
  return out;
}

function checkInterfaceNames(obj: ProblemObject, field: string, value: unknown, names: string[]): Problem[] {
  const tooLong = names.find((n) => n.length > MAX_IFNAME_LENGTH);
  return tooLong
    ? [problem(obj, field, value, `interface name "${tooLong}" would exceed ${MAX_IFNAME_LENGTH} characters`)]
    : [];
}
