/**
 * The netlink half of a host plan (pure): the agent's desired model of both specs, its diff and its
 * L3 VNI hold-down, each operation as a step with what it changes (old → new) and its class.
 */
import { deviceNames } from '@nodenet/api';
import {
  allocateVrfTables,
  desiredModel,
  diff,
  holdL3Vnis,
  l3Vnis,
  type Device,
  type HostModel,
  type HostSettings,
  type Operation,
} from '../netlink/index.js';
import { operationClass, type VrfDevices } from './disruption.js';
import type { HostSpec, NetlinkStep } from './plan-types.js';

export function netlinkSteps(
  previous: HostSpec,
  next: HostSpec,
  settings: HostSettings,
): { netlink: NetlinkStep[]; upAfterFrr: string[] } {
  const range = settings.vrfTableRange;
  const before = allocateVrfTables({
    vrfs: previous.vrf.map((v) => v.vrf),
    range,
    reserved: previous.routingTable.map((r) => r.tableId),
  });
  // As the driver allocates: a VRF whose device is on the host keeps its table, a removed one's is remembered.
  const tables = allocateVrfTables({
    vrfs: next.vrf.map((v) => v.vrf),
    range,
    host: before,
    previous: before,
    reserved: next.routingTable.map((r) => r.tableId),
  });
  const current = desiredModel({ spec: previous, settings, tables: before });
  const desired = desiredModel({ spec: next, settings, tables });
  const held = holdL3Vnis(diff(current, desired), l3Vnis(next.vrf));
  const vrfDevices = vrfDeviceNames(previous, next);
  const models = { current, desired, fresh: freshDevices(held.operations, current, desired) };
  return {
    netlink: held.operations.map((op) => netlinkStep(op, models, vrfDevices)),
    upAfterFrr: held.gates.flatMap((g) => g.devices),
  };
}

/** The devices of the VRFs and routing tables on either side. */
function vrfDeviceNames(a: HostSpec, b: HostSpec): VrfDevices {
  const names = new Set<string>();
  for (const s of [a, b]) {
    for (const v of s.vrf) {
      names.add(deviceNames.vrf(v.vrf));
      names.add(deviceNames.vrfBridge(v.vrf));
      names.add(deviceNames.vrfVxlan(v.vrf));
      names.add(deviceNames.vrfToDefault(v.vrf));
      names.add(deviceNames.defaultToVrf(v.vrf));
    }
    for (const r of s.routingTable) names.add(deviceNames.routingTable(r.tableId));
  }
  return names;
}

/** The host before the change, the desired one, and the devices the plan (re)creates. */
interface PlanModels {
  current: HostModel;
  desired: HostModel;
  fresh: ReadonlySet<string>;
}

/** Devices created or re-created by the plan, veth peers created with their pair included. */
function freshDevices(ops: readonly Operation[], current: HostModel, desired: HostModel): Set<string> {
  const fresh = new Set<string>();
  for (const op of ops) {
    if (op.op !== 'create' && op.op !== 'recreate') continue;
    fresh.add(op.device.name);
    if (op.device.veth) fresh.add(op.device.veth.peer);
  }
  for (const name of desired.keys()) if (!current.has(name)) fresh.add(name);
  return fresh;
}

function netlinkStep(op: Operation, models: PlanModels, vrfDevices: VrfDevices): NetlinkStep {
  const device = op.op === 'create' || op.op === 'recreate' ? op.device.name : op.device;
  const fresh = models.fresh.has(device);
  const kind = (models.desired.get(device) ?? models.current.get(device))?.kind;
  const of = { device, ...(kind ? { kind } : {}), operation: op };
  switch (op.op) {
    case 'create':
      return { ...of, action: 'create', to: settingsText(op.device), class: operationClass(op, vrfDevices) };
    case 'recreate': {
      // diff.ts's reason: "<attribute> <old> → <new>: <why>".
      const m = /^(\S+) (.+?) → (.+?): /.exec(op.reason);
      const what = m ? { attribute: m[1]!, from: m[2]!, to: m[3]! } : { attribute: op.reason };
      return { ...of, action: 'recreate', ...what, class: operationClass(op, vrfDevices) };
    }
    case 'delete':
    case 'adopt':
      return { ...of, action: 'delete', class: operationClass(op, vrfDevices) };
    case 'set':
    case 'port':
    case 'addAddress':
    case 'delAddress':
    case 'up':
    case 'down':
      // The steps that finish a (re)created device belong to its creation: that step has the class.
      return {
        ...of,
        action: 'change',
        ...inPlaceChange(op, fresh ? undefined : models.current.get(device)),
        class: fresh ? 'none' : operationClass(op, vrfDevices),
      };
  }
}

type InPlace = Exclude<Operation, { op: 'create' | 'recreate' | 'delete' | 'adopt' }>;

/** What an in-place step changes, old → new; `cur` undefined: a device just created. */
function inPlaceChange(
  op: InPlace,
  cur: Device | undefined,
): { attribute: string; from: string; to: string } {
  switch (op.op) {
    case 'set': {
      const parts: [string, string, string][] = [];
      if (op.mtu !== undefined) parts.push(['mtu', String(cur?.mtu ?? 'kernel default'), String(op.mtu)]);
      if (op.mac !== undefined) parts.push(['mac', cur?.mac ?? 'kernel chosen', op.mac]);
      if (op.master !== undefined) parts.push(['master', cur?.master ?? 'none', op.master ?? 'none']);
      if (op.learning !== undefined)
        parts.push(['learning', onOff(cur?.vxlan?.learning), onOff(op.learning)]);
      return {
        attribute: parts.map((p) => p[0]).join(', '),
        from: parts.map((p) => p[1]).join(', '),
        to: parts.map((p) => p[2]).join(', '),
      };
    }
    case 'port':
      return {
        attribute: 'bridge port',
        from: cur?.port ? portText(cur.port) : 'kernel defaults',
        to: portText(op.options),
      };
    case 'addAddress':
      return { attribute: 'address', from: '-', to: op.address };
    case 'delAddress':
      return { attribute: 'address', from: op.address, to: '-' };
    case 'up':
    case 'down':
      return { attribute: 'link', from: op.op === 'up' ? 'down' : 'up', to: op.op };
  }
}

const onOff = (b: boolean | undefined): string => (b === undefined ? 'unset' : b ? 'on' : 'off');

const portText = (p: { learning: boolean; neighSuppress: boolean; hairpin: boolean }): string =>
  `learning ${onOff(p.learning)}, neigh_suppress ${onOff(p.neighSuppress)}, hairpin ${onOff(p.hairpin)}`;

/** A created device's settings, as a person reads them (the VXLAN's local address is the node's own). */
function settingsText(d: Device): string {
  const parts: string[] = [];
  if (d.vrf) parts.push(`table ${d.vrf.table}`);
  if (d.vxlan) parts.push(`vni ${d.vxlan.vni}`);
  if (d.veth) parts.push(`peer ${d.veth.peer}`);
  if (d.macvlan) parts.push(`parent ${d.macvlan.parent} mode ${d.macvlan.mode}`);
  if (d.master !== undefined) parts.push(`master ${d.master}`);
  if (d.mtu !== undefined) parts.push(`mtu ${d.mtu}`);
  if (d.mac !== undefined) parts.push(`mac ${d.mac}`);
  parts.push(d.up ? 'up' : 'down');
  return parts.join(', ');
}
