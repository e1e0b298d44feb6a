/**
 * Current host state over netlink: one link dump and one address dump (never a request per device),
 * turned into the host model. Only devices with a nodenet prefix are returned; the full name/index
 * map is kept so references to other devices (a master, the VTEP underlay) can be named.
 */
import { isManagedDevice } from '@nodenet/api';
import netlink from 'netlink';
import type { RtNetlinkSocket } from 'netlink';
import { addressFromBytes, compareStrings, isLinkLocal6, macFromBytes } from './address.js';
import { decodeLinkInfo } from './codec.js';
import { NetlinkReadError } from './errors.js';
import { DEVICE_KINDS, type Device, type DeviceKind, type HostModel } from './model.js';

const { putU32 } = netlink;

/** RTEXT_FILTER_SKIP_STATS: the dump leaves out the per-link statistics, a large share of each message. */
const RTEXT_FILTER_SKIP_STATS = 1 << 3;

export interface HostSnapshot {
  /** Managed devices by name. */
  devices: HostModel;
  /** Every link's index by name, managed or not. */
  indexByName: Map<string, number>;
}

export interface LinkTable {
  indexByName: Map<string, number>;
  nameByIndex: Map<number, string>;
}

/** Dumps all links once; returns the managed devices (without addresses) and the full name/index map. */
export async function readLinks(socket: RtNetlinkSocket): Promise<{ devices: HostModel; table: LinkTable }> {
  let links;
  try {
    links = await socket.getLinks({}, { extMask: putU32(RTEXT_FILTER_SKIP_STATS) });
  } catch (err) {
    throw new NetlinkReadError('links', { cause: err });
  }
  const table: LinkTable = { indexByName: new Map(), nameByIndex: new Map() };
  for (const l of links) {
    if (l.attrs.ifname !== undefined && l.data.index !== undefined) {
      table.indexByName.set(l.attrs.ifname, l.data.index);
      table.nameByIndex.set(l.data.index, l.attrs.ifname);
    }
  }
  const devices: HostModel = new Map();
  for (const l of links) {
    const name = l.attrs.ifname;
    if (name === undefined || !isManagedDevice(name)) continue;
    const info = l.attrs.linkinfo ? decodeLinkInfo(l.attrs.linkinfo) : {};
    // A managed name on a device of a kind nodenet never creates (e.g. a dummy) is still ours:
    // it is reported with its real kind so the diff replaces it.
    const kind = (info.kind ?? 'unknown') as DeviceKind;
    const device: Device = {
      name,
      kind,
      up: Boolean(l.data.flags?.up),
      addresses: [],
      ...(l.attrs.mtu !== undefined ? { mtu: l.attrs.mtu } : {}),
      ...(l.attrs.address ? { mac: macFromBytes(l.attrs.address) } : {}),
    };
    if (l.attrs.master) device.master = table.nameByIndex.get(l.attrs.master) ?? `ifindex ${l.attrs.master}`;
    if (info.slaveKind === 'bridge' && info.port) device.port = info.port;
    if (kind === 'vrf' && info.vrfTable !== undefined) device.vrf = { table: info.vrfTable };
    if (kind === 'vxlan' && info.vxlan) {
      const { linkIndex, local, ...rest } = info.vxlan;
      device.vxlan = { ...rest, local: local ?? 'none' };
      if (linkIndex) device.vxlan.dev = table.nameByIndex.get(linkIndex) ?? `ifindex ${linkIndex}`;
    }
    if (kind === 'veth') {
      // For a veth, IFLA_LINK is the peer's index (absent or foreign when the peer is in another netns).
      const peerIndex = l.attrs.link && l.attrs.link.length >= 4 ? l.attrs.link.readUInt32LE(0) : undefined;
      const peer =
        peerIndex !== undefined && l.attrs.linkNetnsid === undefined
          ? table.nameByIndex.get(peerIndex)
          : undefined;
      device.veth = { peer: peer ?? 'none' };
    }
    if (kind === 'macvlan' && info.macvlanMode) {
      const parentIndex = l.attrs.link && l.attrs.link.length >= 4 ? l.attrs.link.readUInt32LE(0) : undefined;
      device.macvlan = {
        mode: info.macvlanMode,
        parent: (parentIndex && table.nameByIndex.get(parentIndex)) || 'none',
      };
    }
    devices.set(name, device);
  }
  return { devices, table };
}

/** Fills in the addresses of the given devices from one address dump (IPv6 link-local left out). */
export async function readAddresses(
  socket: RtNetlinkSocket,
  devices: HostModel,
  table: LinkTable,
): Promise<void> {
  let addrs;
  try {
    addrs = await socket.getAddresses();
  } catch (err) {
    throw new NetlinkReadError('addresses', { cause: err });
  }
  for (const a of addrs) {
    const name = a.data.index !== undefined ? table.nameByIndex.get(a.data.index) : undefined;
    const device = name !== undefined ? devices.get(name) : undefined;
    if (!device) continue;
    const bytes = a.attrs.local ?? a.attrs.address;
    if (!bytes) continue;
    const cidr = `${addressFromBytes(bytes)}/${a.data.prefixlen}`;
    if (isLinkLocal6(cidr)) continue;
    device.addresses.push(cidr);
  }
  for (const d of devices.values()) d.addresses.sort(compareStrings);
}

/** The managed part of the host, as a host model. */
export async function readHost(socket: RtNetlinkSocket): Promise<HostSnapshot> {
  const { devices, table } = await readLinks(socket);
  await readAddresses(socket, devices, table);
  return { devices, indexByName: table.indexByName };
}

export const isKnownKind = (kind: string): kind is DeviceKind =>
  (DEVICE_KINDS as readonly string[]).includes(kind);
