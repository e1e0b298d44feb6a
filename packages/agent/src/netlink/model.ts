/**
 * The host model the netlink driver works on: the devices nodenet owns, described the same way
 * whether they come from a NodeConfig (desired.ts) or from the kernel (read.ts), so that diff.ts
 * can compare the two field by field.
 */
import { VRF_TABLE_RANGE } from '@nodenet/api';

export type DeviceKind = 'vrf' | 'bridge' | 'vxlan' | 'veth' | 'macvlan';

export const DEVICE_KINDS: readonly DeviceKind[] = ['vrf', 'bridge', 'vxlan', 'veth', 'macvlan'];

/** Options of a device enslaved to a bridge (IFLA_BRPORT_*). */
export interface BridgePortOptions {
  learning: boolean;
  neighSuppress: boolean;
  hairpin: boolean;
}

export interface VxlanSettings {
  vni: number;
  /** Local (VTEP) address, normalized. */
  local: string;
  /** UDP destination port. */
  port: number;
  learning: boolean;
  /** Underlay device the VXLAN is bound to (IFLA_VXLAN_LINK), if any. */
  dev?: string;
}

export type MacvlanMode = 'private' | 'vepa' | 'bridge' | 'passthru' | 'source';

export interface Device {
  name: string;
  kind: DeviceKind;
  /** Kind-specific settings. A difference in any of them recreates the device: the kernel can't change them in place. */
  vrf?: { table: number };
  vxlan?: VxlanSettings;
  /** `primary` marks the end whose creation creates the pair. */
  veth?: { peer: string; primary?: boolean };
  macvlan?: { parent: string; mode: MacvlanMode };
  /** Master device name; undefined means none. */
  master?: string;
  /** undefined in a desired model: leave the kernel's value alone. */
  mtu?: number;
  /** Lower-case colon form; undefined in a desired model: leave the kernel's choice alone. */
  mac?: string;
  up: boolean;
  /** Present when the device is (or is to be) a bridge port. */
  port?: BridgePortOptions;
  /** Addresses with prefix length, normalized, sorted. IPv6 link-local addresses are not modelled. */
  addresses: string[];
}

/** Devices by name. */
export type HostModel = Map<string, Device>;

/**
 * Interface alias (IFLA_IFALIAS) that marks a device as nodenet's. Ownership goes by this mark, not
 * by name: a device without it is never changed or deleted, whatever it is called (docs/host-devices.md).
 */
export const OWNER_ALIAS = 'nodenet';

/** Settings of the node the driver configures (from the agent's configuration, not from the NodeConfig). */
export interface HostSettings {
  /** VTEP address every VXLAN uses as its local address. */
  vtepAddress: string;
  /** Optional underlay device the VXLANs are bound to. */
  vtepInterface?: string;
  /** VXLAN UDP port (default 4789). */
  vxlanPort?: number;
  /** Range VRF tables are allocated from (default 100–4000). */
  vrfTableRange?: { min: number; max: number };
}

export const DEFAULT_VXLAN_PORT = 4789;
// One range for the agents and for validation, which keeps RoutingTable ids out of it.
export const DEFAULT_VRF_TABLE_RANGE = VRF_TABLE_RANGE;

/**
 * VRF name → kernel table. A Map, never a plain object: VRF names are chosen by people, and a name
 * such as `constructor` or `__proto__` must not read Object.prototype's members (issue #25).
 */
export type TableAllocation = ReadonlyMap<string, number>;

/** One step of an apply, in the order diff.ts emits them. */
export type Operation =
  /** Mark a device an older agent made (it matches the applied checkpoint exactly) as nodenet's. */
  | { op: 'adopt'; device: string; kind: DeviceKind; reason: string }
  | { op: 'delete'; device: string; kind: DeviceKind; reason: string }
  | { op: 'create'; device: Device; reason: string }
  /** Delete the device and create it anew: only for a setting the kernel cannot change in place (`reason`). */
  | { op: 'recreate'; device: Device; was: DeviceKind; reason: string }
  | {
      op: 'set';
      device: string;
      mtu?: number;
      mac?: string;
      master?: string | null;
      /** VXLAN data-plane learning (the one VXLAN setting the kernel changes in place). */
      learning?: boolean;
    }
  | { op: 'port'; device: string; options: BridgePortOptions }
  | { op: 'delAddress'; device: string; address: string }
  | { op: 'addAddress'; device: string; address: string }
  | { op: 'up' | 'down'; device: string };

/** Short human form of an operation, for logs and error messages. */
export function describeOperation(op: Operation): string {
  switch (op.op) {
    case 'adopt':
      return `adopt ${op.kind} ${op.device} (${op.reason})`;
    case 'delete':
      return `delete ${op.kind} ${op.device} (${op.reason})`;
    case 'create':
      return `create ${op.device.kind} ${op.device.name} (${op.reason})${op.device.up ? '' : ' down'}`;
    case 'recreate':
      return `recreate ${op.device.kind} ${op.device.name} (${op.reason})${op.device.up ? '' : ' down'}`;
    case 'set': {
      const parts: string[] = [];
      if (op.mtu !== undefined) parts.push(`mtu ${op.mtu}`);
      if (op.mac !== undefined) parts.push(`address ${op.mac}`);
      if (op.master !== undefined) parts.push(op.master === null ? 'nomaster' : `master ${op.master}`);
      if (op.learning !== undefined) parts.push(`learning ${onOff(op.learning)}`);
      return `set ${op.device} ${parts.join(' ')}`;
    }
    case 'port':
      return `set bridge port ${op.device} learning ${onOff(op.options.learning)} neigh_suppress ${onOff(op.options.neighSuppress)} hairpin ${onOff(op.options.hairpin)}`;
    case 'delAddress':
      return `delete address ${op.address} from ${op.device}`;
    case 'addAddress':
      return `add address ${op.address} to ${op.device}`;
    case 'up':
    case 'down':
      return `set ${op.device} ${op.op}`;
  }
}

const onOff = (b: boolean): string => (b ? 'on' : 'off');
