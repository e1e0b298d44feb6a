/**
 * Rules across objects: who may use a VLAN, a VNI, a VRF's settings, a table id, an interface name
 * or a gateway subnet. Every such rule is a claim, granted in blame order: objects that are part of
 * the revision in force first (they are running on the fleet), then by creation time (both
 * timestamps come from the API server, so they compare), within one second of it by the order in
 * which the caller saw them created (`createdOrder`; a timestamp has one-second resolution), then by
 * kind and name. The loser is the object refused, and its message names the holder: the object a
 * person just applied is the one that is told, never the established one.
 */
import { VRF_TABLE_RANGE, type ResourceKind } from '../names/kubernetes.js';
import type {
  InputObject,
  Layer2NetworkConfiguration,
  RoutingTable,
  VRFRouteConfiguration,
} from '../resources/objects.js';
import { parsePrefix } from '../grammar/prefix.js';
import { PrefixIndex } from './prefix-index.js';
import { layer2DeviceNames, vrfDeviceNames } from './object-rules.js';
import { claim, problem, type Problem } from './problem.js';
import { VRF_REACH_RULES } from './vrf-reach.js';
import type { UnderlayContext } from './underlay-guards.js';

export interface ValidationContext {
  /**
   * `<kind>/<name>` of the input objects that the revision in force was built from. Their claims
   * are granted first.
   */
  inForce?: ReadonlySet<string>;
  /**
   * The range agents allocate VRF tables from (agent setting `vrfTableRange`); default
   * VRF_TABLE_RANGE. More distinct VRFs than it holds can not be applied anywhere.
   */
  vrfTableRange?: { min: number; max: number };
  /**
   * Breaks ties of `creationTimestamp` (one-second resolution): smaller was created first. The
   * configurator gives the resourceVersion at which its watch first saw each object (creation-order.ts
   * there; the API server's order). Undefined for an object: ranked after those it knows, by kind and
   * name.
   */
  createdOrder?: (o: InputObject) => bigint | undefined;
  /**
   * The nodes' addresses and the site's underlay settings (underlay-guards.ts). Absent: no node
   * addresses known, no underlay prefix, the default VRF closed to peerings.
   */
  underlay?: UnderlayContext;
}

export interface ClaimInputs {
  vrfs: VRFRouteConfiguration[];
  l2s: Layer2NetworkConfiguration[];
  tables: RoutingTable[];
  /** VRF names that some VRFRouteConfiguration defines, valid or not. */
  definedVrfs: ReadonlySet<unknown>;
  /** See ValidationContext.vrfTableRange. */
  vrfTableRange?: { min: number; max: number };
}

export type ClaimRule = (input: ClaimInputs) => Problem[];

const KIND_ORDER: Record<string, number> = {
  VRFRouteConfiguration: 0,
  Layer2NetworkConfiguration: 1,
  RoutingTable: 2,
  BGPPeering: 3,
  AgentConfiguration: 4,
};

/** After every order a caller knows (a resourceVersion is an int64 in etcd). */
const UNKNOWN_ORDER = 1n << 64n;

export const objectKey = (o: { kind: string; metadata: { name: string } }): string =>
  `${o.kind}/${o.metadata.name}`;

/** Sorts objects so that earlier ones win every claim (see the module comment). */
export function blameOrder<T extends InputObject>(objects: readonly T[], context: ValidationContext): T[] {
  const inForce = context.inForce ?? new Set<string>();
  const rank = (o: T): [number, string, bigint, number, string] => [
    inForce.size > 0 && inForce.has(objectKey(o)) ? 0 : 1,
    // RFC 3339 in UTC from the API server sorts as text; objects without one (tests, dry runs) last.
    o.metadata.creationTimestamp ?? '~',
    context.createdOrder?.(o) ?? UNKNOWN_ORDER,
    KIND_ORDER[o.kind] ?? 9,
    o.metadata.name,
  ];
  // Each object's rank once, not once per comparison (n log n tuples made this slow for thousands).
  return objects
    .map((o) => ({ o, r: rank(o) }))
    .sort(({ r: ra }, { r: rb }) => {
      for (let i = 0; i < ra.length; i++) {
        if (ra[i]! < rb[i]!) return -1;
        if (ra[i]! > rb[i]!) return 1;
      }
      return 0;
    })
    .map(({ o }) => o);
}

const holderName = (o: InputObject): string => `${o.kind} ${o.metadata.name}`;

/** Objects of one VRF agree on what the VRF's devices and EVPN instance are. */
const vrfSettingsAgree: ClaimRule = ({ vrfs }) => {
  const out: Problem[] = [];
  const byVrf = new Map<string, VRFRouteConfiguration>();
  for (const o of vrfs) {
    const s = o.spec;
    const first = claim(byVrf, s.vrf, o);
    if (!first) continue;
    const conflict = (field: string, value: unknown, theirs: unknown, what: string): void => {
      out.push(
        problem(
          { kind: 'VRFRouteConfiguration', name: o.metadata.name },
          field,
          value,
          `conflicts with VRFRouteConfiguration ${first.metadata.name}, which gives VRF ${s.vrf} ${what} ${String(theirs)}`,
        ),
      );
    };
    if (first.spec.vni !== s.vni) conflict('spec.vni', s.vni, first.spec.vni, 'VNI');
    if (
      first.spec.routeTarget !== undefined &&
      s.routeTarget !== undefined &&
      first.spec.routeTarget !== s.routeTarget
    ) {
      conflict('spec.routeTarget', s.routeTarget, first.spec.routeTarget, 'route target');
    }
    const mtu = s.mtu ?? 9000;
    const firstMtu = first.spec.mtu ?? 9000;
    // One set of devices per VRF: its bridge and VXLAN have one MTU.
    if (mtu !== firstMtu) conflict('spec.mtu', mtu, firstMtu, 'MTU');
  }
  return out;
};

/** Tables in `range` an agent can give a VRF: all but the kernel's 253–255. */
export function vrfTableCapacity(range: { min: number; max: number }): number {
  const kernel = [253, 254, 255].filter((t) => t >= range.min && t <= range.max).length;
  return Math.max(0, range.max - range.min + 1 - kernel);
}

/**
 * Every agent gives each distinct VRF a kernel table from one range; the VRF that would need one
 * more table than the range holds is refused (with every object that names it), in blame order.
 */
const vrfCountClaims: ClaimRule = ({ vrfs, vrfTableRange }) => {
  const range = vrfTableRange ?? VRF_TABLE_RANGE;
  const capacity = vrfTableCapacity(range);
  const out: Problem[] = [];
  const granted = new Set<string>();
  for (const o of vrfs) {
    if (granted.has(o.spec.vrf)) continue;
    if (granted.size < capacity) {
      granted.add(o.spec.vrf);
      continue;
    }
    out.push(
      problem(
        { kind: 'VRFRouteConfiguration', name: o.metadata.name },
        'spec.vrf',
        o.spec.vrf,
        `would be distinct VRF number ${capacity + 1}; agents allocate VRF tables from ${range.min}–${range.max}, which holds ${capacity}`,
      ),
    );
  }
  return out;
};

/** One L3 VNI carries one VRF. */
const l3VniClaims: ClaimRule = ({ vrfs }) => {
  const out: Problem[] = [];
  const byVrf = new Set<string>();
  const byVni = new Map<number, VRFRouteConfiguration>();
  for (const o of vrfs) {
    if (byVrf.has(o.spec.vrf)) continue;
    byVrf.add(o.spec.vrf);
    const other = claim(byVni, o.spec.vni, o);
    if (other) {
      out.push(
        problem(
          { kind: 'VRFRouteConfiguration', name: o.metadata.name },
          'spec.vni',
          o.spec.vni,
          `is already the VNI of VRF ${other.spec.vrf} (VRFRouteConfiguration ${other.metadata.name})`,
        ),
      );
    }
  }
  return out;
};

/** Each object of a VRF has its own route-map sequence number in it. */
const vrfSeqClaims: ClaimRule = ({ vrfs }) => {
  const out: Problem[] = [];
  const owners = new Map<string, string>();
  for (const o of vrfs) {
    const first = claim(owners, `${o.spec.vrf}/${o.spec.seq}`, o.metadata.name);
    if (first !== undefined) {
      out.push(
        problem(
          { kind: 'VRFRouteConfiguration', name: o.metadata.name },
          'spec.seq',
          o.spec.seq,
          `is already used in VRF ${o.spec.vrf} by VRFRouteConfiguration ${first}`,
        ),
      );
    }
  }
  return out;
};

const layer2Claims: ClaimRule = ({ vrfs, l2s, definedVrfs }) => {
  const out: Problem[] = [];
  const kind = 'Layer2NetworkConfiguration';
  const byVlan = new Map<number, string>();
  const byVni = new Map<number, string>();
  const l3Vni = new Map<number, VRFRouteConfiguration>();
  for (const v of vrfs) claim(l3Vni, v.spec.vni, v);
  for (const o of l2s) {
    const s = o.spec;
    const vlanOwner = claim(byVlan, s.id, o.metadata.name);
    if (vlanOwner !== undefined) {
      out.push(
        problem({ kind, name: o.metadata.name }, 'spec.id', s.id, `is already used by ${kind} ${vlanOwner}`),
      );
    }
    const vniOwner = claim(byVni, s.vni, o.metadata.name);
    if (vniOwner !== undefined) {
      out.push(
        problem({ kind, name: o.metadata.name }, 'spec.vni', s.vni, `is already used by ${kind} ${vniOwner}`),
      );
    }
    const l3 = l3Vni.get(s.vni);
    if (l3) {
      out.push(
        problem(
          { kind, name: o.metadata.name },
          'spec.vni',
          s.vni,
          `is the L3 VNI of VRF ${l3.spec.vrf} (VRFRouteConfiguration ${l3.metadata.name}); a VNI is either L2 or L3`,
        ),
      );
    }
    if (s.vrf !== undefined && !definedVrfs.has(s.vrf)) {
      out.push(
        problem(
          { kind, name: o.metadata.name },
          'spec.vrf',
          s.vrf,
          'names a VRF that no VRFRouteConfiguration defines',
        ),
      );
    }
  }
  return out;
};

/**
 * Gateway subnets of Layer-2 networks in one VRF (or in the default one) must not overlap: two
 * connected routes for one subnet in one table make the kernel pick one bridge for both.
 */
const gatewaySubnetClaims: ClaimRule = ({ l2s }) => {
  const out: Problem[] = [];
  const held = new PrefixIndex<{ subnet: string; holder: string }>();
  for (const o of l2s) {
    const vrf = o.spec.vrf ?? '';
    (o.spec.anycastGateways ?? []).forEach((gw, i) => {
      const p = parsePrefix(gw);
      if (!p.ok) return;
      // Canonical already: the network address as ipaddr.js prints it.
      const subnet = `${p.prefix.network}/${p.prefix.length}`;
      const clash = held.overlapping(vrf, p.prefix);
      // A network's own gateways may share a subnet (two addresses in one subnet).
      if (clash && clash.holder !== o.metadata.name) {
        out.push(
          problem(
            { kind: 'Layer2NetworkConfiguration', name: o.metadata.name },
            `spec.anycastGateways[${i}]`,
            gw,
            `subnet ${subnet} overlaps ${clash.subnet} of Layer2NetworkConfiguration ${clash.holder} in ${vrf ? `VRF ${vrf}` : 'the default VRF'}`,
          ),
        );
      } else {
        held.add(vrf, p.prefix, { subnet, holder: o.metadata.name });
      }
    });
  }
  return out;
};

const tableClaims: ClaimRule = ({ tables }) => {
  const out: Problem[] = [];
  const byTable = new Map<number, string>();
  for (const o of tables) {
    const owner = claim(byTable, o.spec.tableId, o.metadata.name);
    if (owner !== undefined) {
      out.push(
        problem(
          { kind: 'RoutingTable', name: o.metadata.name },
          'spec.tableId',
          o.spec.tableId,
          `is already used by RoutingTable ${owner}`,
        ),
      );
    }
  }
  return out;
};

/**
 * Interface names across kinds: a numeric VRF name and a Layer-2 VNI both make `vx.<n>`. Clashes
 * within one kind are the VLAN, VNI and table-id claims above, which say it more precisely.
 */
const deviceNameClaims = (ordered: readonly InputObject[]): Problem[] => {
  const out: Problem[] = [];
  const holders = new Map<string, { kind: ResourceKind; holder: string; label: string }>();
  for (const o of ordered) {
    const [names, field, value, holder] = devicesOf(o);
    // One holder record per object, shared by its devices.
    const mine = { kind: o.kind, holder, label: holderName(o) };
    for (const dev of names) {
      const first = claim(holders, dev, mine);
      if (first && first.kind !== o.kind) {
        out.push(
          problem(
            { kind: o.kind, name: o.metadata.name },
            field,
            value,
            `interface name "${dev}" is already used by ${first.label}`,
          ),
        );
        break;
      }
    }
  }
  return out;
};

function devicesOf(o: InputObject): [string[], string, unknown, string] {
  switch (o.kind) {
    case 'VRFRouteConfiguration':
      // All objects of one VRF share its devices.
      return [vrfDeviceNames(o.spec.vrf), 'spec.vrf', o.spec.vrf, `vrf/${o.spec.vrf}`];
    case 'Layer2NetworkConfiguration':
      return [layer2DeviceNames(o.spec), 'spec.vni', o.spec.vni, objectKey(o)];
    case 'RoutingTable':
      return [[`taas.${o.spec.tableId}`], 'spec.tableId', o.spec.tableId, objectKey(o)];
    case 'BGPPeering':
    case 'AgentConfiguration':
      // A peering, or an agent configuration, creates no device.
      return [[], 'spec', undefined, objectKey(o)];
  }
}

const PER_KIND_RULES: ClaimRule[] = [
  vrfCountClaims,
  vrfSettingsAgree,
  l3VniClaims,
  vrfSeqClaims,
  layer2Claims,
  gatewaySubnetClaims,
  tableClaims,
  ...VRF_REACH_RULES,
];

/** Every cross-object rule, objects already in blame order. */
export function checkClaims(input: ClaimInputs, ordered: readonly InputObject[]): Problem[] {
  return [...PER_KIND_RULES.flatMap((rule) => rule(input)), ...deviceNameClaims(ordered)];
}
