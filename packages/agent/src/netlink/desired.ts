/**
 * The desired host model (pure): which devices a NodeConfig spec needs on this node, with every
 * attribute the driver manages. Layout (DESIGN, host model):
 *
 * per VRF `<v>`        vr.<v> VRF (own table) ← br.<v> bridge ← vx.<v> VXLAN (L3 VNI),
 *                      veth vd.<v> (default VRF) ↔ dv.<v> (in vr.<v>)
 * per Layer-2 network  l2.<id> bridge (in vr.<vrf> when set; anycast MAC + gateways) ← vx.<vni> VXLAN,
 *                      optional veth vm.<id> (bridge port) ↔ mv.<id> (parent for macvlan workloads)
 * per RoutingTable     taas.<tableId> VRF with that table
 */
import { deviceNames, MAX_IFNAME_LENGTH, type NodeConfigSpec } from '@nodenet/api';
import { compareStrings, isLinkLocal6, normalizeAddress, normalizeCidr, normalizeMac } from './address.js';
import { DesiredStateError } from './errors.js';
import {
  DEFAULT_VRF_TABLE_RANGE,
  DEFAULT_VXLAN_PORT,
  type BridgePortOptions,
  type Device,
  type HostModel,
  type HostSettings,
  type TableAllocation,
  type VxlanSettings,
} from './model.js';

/** VXLAN ports of an EVPN fabric: no data-plane learning (EVPN distributes MACs), ARP/ND suppressed on request. */
const vxlanPort = (neighSuppress: boolean): BridgePortOptions => ({
  learning: false,
  neighSuppress,
  hairpin: false,
});
/** Other bridge ports keep the kernel's defaults. */
const plainPort: BridgePortOptions = { learning: true, neighSuppress: false, hairpin: false };

/** Bytes VXLAN adds to a frame: outer Ethernet 14 + IP (20 or 40) + UDP 8 + VXLAN 8. */
export const vxlanOverhead = (vtepAddress: string): number => (vtepAddress.includes(':') ? 70 : 50);

/**
 * A VXLAN bound to the underlay can not carry frames larger than the underlay's MTU minus the
 * encapsulation; the kernel answers a bare EINVAL. Checked up front so the error names the network,
 * its MTU and the underlay's.
 */
export function checkUnderlayMtu(
  spec: Pick<NodeConfigSpec, 'vrf' | 'layer2'>,
  underlay: { name: string; mtu: number; vtepAddress: string },
): void {
  const overhead = vxlanOverhead(underlay.vtepAddress);
  const check = (field: string, mtu: number): void => {
    if (mtu + overhead > underlay.mtu) {
      throw new DesiredStateError(
        field,
        mtu,
        `needs an underlay MTU of at least ${mtu + overhead} (VXLAN adds ${overhead} bytes), but ${underlay.name} has ${underlay.mtu}`,
      );
    }
  };
  spec.vrf.forEach((v, i) => check(`vrf[${i}](${v.name}).mtu`, v.mtu));
  spec.layer2.forEach((l2, i) => check(`layer2[${i}](${l2.name}).mtu`, l2.mtu));
}

export interface DesiredInput {
  spec: Pick<NodeConfigSpec, 'vrf' | 'layer2' | 'routingTable'>;
  settings: HostSettings;
  /** Table of every VRF in spec.vrf (see allocateVrfTables). */
  tables: TableAllocation;
}

export function desiredModel({ spec, settings, tables }: DesiredInput): HostModel {
  const devices = new DesiredDevices();
  const vxlan = vxlanSettings(settings);
  vrfDevices(spec.vrf, { devices, vxlan, tables });
  layer2Devices(spec.layer2, { devices, vxlan, vrfNames: new Set(spec.vrf.map((v) => v.vrf)) });
  spec.routingTable.forEach((rt, i) => {
    devices.add(
      {
        name: deviceNames.routingTable(rt.tableId),
        kind: 'vrf',
        vrf: { table: rt.tableId },
        up: true,
        addresses: [],
      },
      `routingTable[${i}](${rt.name})`,
    );
  });
  return devices.model;
}

/** The model being built, refusing a name too long for the kernel or already taken by another entry. */
class DesiredDevices {
  readonly model: HostModel = new Map();
  /** The spec field each device was made for, to name both sides of a clash. */
  private readonly origin = new Map<string, string>();

  add(device: Device, from: string): void {
    if (device.name.length > MAX_IFNAME_LENGTH) {
      throw new DesiredStateError(
        from,
        device.name,
        `device name longer than ${MAX_IFNAME_LENGTH} characters`,
      );
    }
    const clash = this.origin.get(device.name);
    if (clash !== undefined) {
      throw new DesiredStateError(from, device.name, `device name already used by ${clash}`);
    }
    this.origin.set(device.name, from);
    this.model.set(device.name, device);
  }
}

/** The VXLAN settings of a VNI on this node (local address, port, underlay from the agent's settings). */
type VxlanOf = (vni: number) => VxlanSettings;

function vxlanSettings(settings: HostSettings): VxlanOf {
  const local = checkedVtep(settings);
  const port = settings.vxlanPort ?? DEFAULT_VXLAN_PORT;
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new DesiredStateError('settings.vxlanPort', port, 'must be an integer 1–65535');
  }
  return (vni) => ({
    vni,
    local,
    port,
    learning: false,
    ...(settings.vtepInterface ? { dev: settings.vtepInterface } : {}),
  });
}

/**
 * Several VRFRouteConfigurations may configure one VRF (each adds its own route-maps in FRR); the
 * VRF has one set of devices, made for the first entry. Validation makes them agree on the VNI and
 * MTU; a spec that does not is refused here rather than applied half.
 */
function vrfDevices(
  vrfs: NodeConfigSpec['vrf'],
  ctx: { devices: DesiredDevices; vxlan: VxlanOf; tables: TableAllocation },
): void {
  const firstOfVrf = new Map<string, { vni: number; mtu: number; from: string }>();
  const loopbacks = loopbackAddresses(vrfs);
  vrfs.forEach((v, i) => {
    const from = `vrf[${i}](${v.name})`;
    const first = firstOfVrf.get(v.vrf);
    if (first) {
      if (first.vni !== v.vni || first.mtu !== v.mtu) {
        throw new DesiredStateError(
          from,
          { vni: v.vni, mtu: v.mtu },
          `VRF ${v.vrf} already has VNI ${first.vni} and MTU ${first.mtu} from ${first.from}`,
        );
      }
      return;
    }
    firstOfVrf.set(v.vrf, { vni: v.vni, mtu: v.mtu, from });
    const table = ctx.tables.get(v.vrf);
    if (table === undefined) throw new DesiredStateError(`${from}.vrf`, v.vrf, 'no routing table allocated');
    for (const device of vrfDeviceSet(v, { table, vxlan: ctx.vxlan, loopbacks: loopbacks.get(v.vrf) ?? [] }))
      ctx.devices.add(device, from);
  });
}

/** The devices of one VRF: its VRF device, the L3 VNI bridge and VXLAN, the veth pair to the default VRF. */
function vrfDeviceSet(
  v: NodeConfigSpec['vrf'][number],
  ctx: { table: number; vxlan: VxlanOf; loopbacks: string[] },
): Device[] {
  const vrf = deviceNames.vrf(v.vrf);
  const bridge = deviceNames.vrfBridge(v.vrf);
  const toDefault = deviceNames.vrfToDefault(v.vrf);
  const inVrf = deviceNames.defaultToVrf(v.vrf);
  return [
    // The node's loopback addresses (of every entry of the VRF) are host routes on its device.
    { name: vrf, kind: 'vrf', vrf: { table: ctx.table }, up: true, addresses: ctx.loopbacks },
    { name: bridge, kind: 'bridge', master: vrf, mtu: v.mtu, up: true, addresses: [] },
    {
      name: deviceNames.vrfVxlan(v.vrf),
      kind: 'vxlan',
      vxlan: ctx.vxlan(v.vni),
      master: bridge,
      mtu: v.mtu,
      up: true,
      port: vxlanPort(true),
      addresses: [],
    },
    {
      name: toDefault,
      kind: 'veth',
      veth: { peer: inVrf, primary: true },
      mtu: v.mtu,
      up: true,
      addresses: [],
    },
    {
      name: inVrf,
      kind: 'veth',
      veth: { peer: toDefault },
      master: vrf,
      mtu: v.mtu,
      up: true,
      addresses: [],
    },
  ];
}

function layer2Devices(
  networks: NodeConfigSpec['layer2'],
  ctx: { devices: DesiredDevices; vxlan: VxlanOf; vrfNames: Set<string> },
): void {
  networks.forEach((l2, i) => {
    const from = `layer2[${i}](${l2.name})`;
    if (l2.vrf !== undefined && !ctx.vrfNames.has(l2.vrf)) {
      throw new DesiredStateError(`${from}.vrf`, l2.vrf, 'no VRF of that name in the config');
    }
    for (const device of layer2DeviceSet(l2, { from, vxlan: ctx.vxlan })) ctx.devices.add(device, from);
  });
}

/** The devices of one Layer-2 network: its bridge and VXLAN, and the veth pair for macvlan workloads when asked. */
function layer2DeviceSet(
  l2: NodeConfigSpec['layer2'][number],
  ctx: { from: string; vxlan: VxlanOf },
): Device[] {
  const bridge = deviceNames.l2Bridge(l2.id);
  const devices: Device[] = [
    {
      name: bridge,
      kind: 'bridge',
      ...(l2.vrf !== undefined ? { master: deviceNames.vrf(l2.vrf) } : {}),
      mtu: l2.mtu,
      ...(l2.anycastMac !== undefined ? { mac: normalizeMac(l2.anycastMac) } : {}),
      up: true,
      addresses: gatewayAddresses(l2.anycastGateways, ctx.from),
    },
    {
      name: deviceNames.l2Vxlan(l2.vni),
      kind: 'vxlan',
      vxlan: ctx.vxlan(l2.vni),
      master: bridge,
      mtu: l2.mtu,
      up: true,
      port: vxlanPort(l2.neighSuppression),
      addresses: [],
    },
  ];
  if (!l2.createMacVLANInterface) return devices;
  const port = deviceNames.l2MacvlanPort(l2.id);
  const parent = deviceNames.l2Macvlan(l2.id);
  devices.push(
    {
      name: port,
      kind: 'veth',
      veth: { peer: parent, primary: true },
      master: bridge,
      mtu: l2.mtu,
      up: true,
      port: plainPort,
      addresses: [],
    },
    { name: parent, kind: 'veth', veth: { peer: port }, mtu: l2.mtu, up: true, addresses: [] },
  );
  return devices;
}

/** The anycast gateways as normalized prefixes, deduplicated and sorted. */
function gatewayAddresses(gateways: readonly string[], from: string): string[] {
  const addresses = gateways.map((gw, j) => {
    try {
      const cidr = normalizeCidr(gw);
      if (isLinkLocal6(cidr)) throw new Error('IPv6 link-local addresses are managed by the kernel');
      return cidr;
    } catch (err) {
      throw new DesiredStateError(`${from}.anycastGateways[${j}]`, gw, (err as Error).message);
    }
  });
  return [...new Set(addresses)].sort(compareStrings);
}

function checkedVtep(settings: HostSettings): string {
  try {
    return normalizeAddress(settings.vtepAddress);
  } catch {
    throw new DesiredStateError('settings.vtepAddress', settings.vtepAddress, 'not an IPv4 or IPv6 address');
  }
}

export interface TableAllocationInput {
  /** VRF names that need a table, in config order. */
  vrfs: string[];
  range?: { min: number; max: number };
  /** Tables the VRF devices on the host use now (vr.<v> → its table): a running VRF keeps its table. */
  host?: TableAllocation;
  /** The allocation persisted by the last run: a VRF whose device is gone gets its old table back. */
  previous?: TableAllocation;
  /** Tables taken by other means (RoutingTable entries), never handed to a VRF. */
  reserved?: Iterable<number>;
}

/**
 * Assigns each VRF a kernel table from the range (pure). A VRF keeps the table its device has on the
 * host, else the one it had in the previous allocation, else gets the lowest free one; a table is
 * never given to two VRFs. The result depends only on the inputs, so a restart reproduces it.
 */
export function allocateVrfTables(input: TableAllocationInput): TableAllocation {
  const range = input.range ?? DEFAULT_VRF_TABLE_RANGE;
  if (
    !Number.isInteger(range.min) ||
    !Number.isInteger(range.max) ||
    range.min < 1 ||
    range.max < range.min ||
    range.max > 0xfffffffe
  ) {
    throw new DesiredStateError(
      'settings.vrfTableRange',
      range,
      'must be integers with 1 ≤ min ≤ max < 4294967295',
    );
  }
  // 253–255 are the kernel's default, main and local tables.
  const taken = new Set<number>([253, 254, 255, ...(input.reserved ?? [])]);
  const inRange = (t: number | undefined): t is number =>
    t !== undefined && Number.isInteger(t) && t >= range.min && t <= range.max && !taken.has(t);
  const result = new Map<string, number>();
  const vrfs = [...new Set(input.vrfs)];
  for (const source of [input.host, input.previous]) {
    for (const vrf of vrfs) {
      if (result.has(vrf)) continue;
      const t = source?.get(vrf);
      if (inRange(t)) {
        result.set(vrf, t);
        taken.add(t);
      }
    }
  }
  // Tables remembered for VRFs that are gone stay theirs while other tables are free, so that a VRF
  // that comes back finds its table again.
  const current = new Set(vrfs);
  const remembered = new Set(
    [...(input.previous ?? new Map<string, number>())].filter(([vrf]) => !current.has(vrf)).map(([, t]) => t),
  );
  let next = range.min;
  for (const vrf of vrfs) {
    if (result.has(vrf)) continue;
    while (next <= range.max && (taken.has(next) || remembered.has(next))) next++;
    if (next > range.max) {
      // Range exhausted but for remembered tables: give one up.
      next = range.min;
      remembered.clear();
      while (next <= range.max && taken.has(next)) next++;
    }
    if (next > range.max) {
      throw new DesiredStateError('settings.vrfTableRange', range, `no free table left for VRF ${vrf}`);
    }
    result.set(vrf, next);
    taken.add(next);
  }
  return result;
}

/**
 * The allocation to persist: the current one, plus the remembered tables of removed VRFs that no
 * current VRF has taken since.
 */
export function rememberedTables(
  previous: TableAllocation | undefined,
  current: TableAllocation,
): TableAllocation {
  const used = new Set(current.values());
  const kept = new Map<string, number>();
  for (const [vrf, table] of previous ?? []) {
    if (!current.has(vrf) && !used.has(table)) kept.set(vrf, table);
  }
  return new Map([...kept, ...current]);
}

/** Per VRF name, the node's loopback addresses as host prefixes (`/32`, `/128`), sorted. */
function loopbackAddresses(vrfs: NodeConfigSpec['vrf']): Map<string, string[]> {
  const out = new Map<string, Set<string>>();
  vrfs.forEach((v, i) => {
    (v.loopbackAddresses ?? []).forEach((l, j) => {
      let cidr: string;
      try {
        cidr = normalizeCidr(`${l.address}/${l.address.includes(':') ? 128 : 32}`);
      } catch (err) {
        throw new DesiredStateError(
          `vrf[${i}](${v.name}).loopbackAddresses[${j}]`,
          l.address,
          (err as Error).message,
        );
      }
      if (!out.has(v.vrf)) out.set(v.vrf, new Set());
      out.get(v.vrf)!.add(cidr);
    });
  });
  return new Map([...out].map(([k, set]) => [k, [...set].sort(compareStrings)]));
}
