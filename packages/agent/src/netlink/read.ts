/**
 * Current host state over netlink: one link dump and one address dump (never a request per device),
 * turned into the host model. Devices carrying nodenet's mark (interface alias OWNER_ALIAS) are
 * returned as owned; unmarked ones with a nodenet-looking name as unowned (candidates for a name
 * conflict or, once, for adoption: ownership.ts). The full name/index map is kept so references to
 * other devices (a master, the VTEP underlay) can be named.
 */
import { isManagedDevice } from '@nodenet/api';
import netlink from 'netlink';
import type { RtNetlinkSocket } from 'netlink';
import { addressFromBytes, compareStrings, macFromBytes } from './address.js';
import { decodeLinkInfo } from './codec.js';
import { NetlinkReadError } from './errors.js';
import { DEVICE_KINDS, OWNER_ALIAS, type Device, type DeviceKind, type HostModel } from './model.js';

const { FlagsGet } = netlink;

const RTM_NEWLINK = 16;
const RTM_GETLINK = 18;
const RTM_NEWADDR = 20;
const RTM_GETADDR = 22;
const IFLA_ADDRESS = 1;
const IFLA_IFNAME = 3;
const IFLA_MTU = 4;
const IFLA_LINK = 5;
const IFLA_MASTER = 10;
const IFLA_LINKINFO = 18;
const IFLA_IFALIAS = 20;
const IFLA_EXT_MASK = 29;
const IFLA_LINK_NETNSID = 37;
const IFA_ADDRESS = 1;
const IFA_LOCAL = 2;
const IFF_UP = 1;
/** RTEXT_FILTER_SKIP_STATS: the dump leaves out the per-link statistics, a large share of each message. */
const RTEXT_FILTER_SKIP_STATS = 1 << 3;

export interface HostSnapshot {
  /** Devices nodenet owns (marked), by name. */
  devices: HostModel;
  /** Unmarked devices with a nodenet-looking name: never changed, never deleted. */
  unowned: HostModel;
  /** Every link's index by name, managed or not. */
  indexByName: Map<string, number>;
  /** Every link's MTU by name, managed or not (the underlay's bounds the VXLAN devices'). */
  mtuByName: Map<string, number>;
  /** Every link's name by index. */
  nameByIndex: Map<number, string>;
}

export interface LinkTable {
  indexByName: Map<string, number>;
  nameByIndex: Map<number, string>;
  mtuByName: Map<string, number>;
}

/** The few attributes of a link message the driver uses (the package's parser decodes all ~60, ten times slower). */
export interface RawLink {
  index: number;
  up: boolean;
  name?: string;
  mtu?: number;
  mac?: Buffer;
  master?: number;
  link?: number;
  linkinfo?: Buffer;
  alias?: string;
  foreignLink: boolean;
}

/** One dump request: its message type and payload, the type of the answers wanted, what it reads (for errors). */
interface DumpRequest {
  type: number;
  payload: Buffer;
  want: number;
  what: string;
}

/** One dump request on the socket; returns the payloads of the messages of the wanted type. */
async function dump(socket: RtNetlinkSocket, request: DumpRequest): Promise<Buffer[]> {
  try {
    const [msgs] = await socket.socket.request(request.type, request.payload, {
      flags: FlagsGet.DUMP,
      timeout: 30_000,
    });
    return msgs.filter((m) => m.type === request.want).map((m) => m.data);
  } catch (err) {
    throw new NetlinkReadError(request.what, { cause: err });
  }
}

export function parseLink(data: Buffer): RawLink {
  const link: RawLink = {
    index: data.readInt32LE(4),
    up: (data.readUInt32LE(8) & IFF_UP) !== 0,
    foreignLink: false,
  };
  for (let off = 16; off + 4 <= data.length;) {
    const len = data.readUInt16LE(off);
    if (len < 4) break;
    const type = data.readUInt16LE(off + 2) & 0x3fff;
    const start = off + 4;
    const end = off + len;
    switch (type) {
      case IFLA_IFNAME: {
        const nul = data.indexOf(0, start);
        link.name = data.toString('latin1', start, nul >= start && nul < end ? nul : end);
        break;
      }
      case IFLA_MTU:
        link.mtu = data.readUInt32LE(start);
        break;
      case IFLA_ADDRESS:
        link.mac = data.subarray(start, end);
        break;
      case IFLA_MASTER:
        link.master = data.readUInt32LE(start);
        break;
      case IFLA_LINK:
        link.link = data.readUInt32LE(start);
        break;
      case IFLA_LINKINFO:
        link.linkinfo = data.subarray(start, end);
        break;
      case IFLA_IFALIAS: {
        const nul = data.indexOf(0, start);
        link.alias = data.toString('utf8', start, nul >= start && nul < end ? nul : end);
        break;
      }
      case IFLA_LINK_NETNSID:
        link.foreignLink = true;
        break;
    }
    off += (len + 3) & ~3;
  }
  return link;
}

/** Dumps all links once; returns owned and unowned devices (without addresses) and the full name/index map. */
export async function readLinks(
  socket: RtNetlinkSocket,
): Promise<{ devices: HostModel; unowned: HostModel; table: LinkTable }> {
  const req = Buffer.alloc(16 + 8);
  req.writeUInt16LE(8, 16);
  req.writeUInt16LE(IFLA_EXT_MASK, 18);
  req.writeUInt32LE(RTEXT_FILTER_SKIP_STATS, 20);
  const links = (
    await dump(socket, { type: RTM_GETLINK, payload: req, want: RTM_NEWLINK, what: 'links' })
  ).map(parseLink);
  const table: LinkTable = { indexByName: new Map(), nameByIndex: new Map(), mtuByName: new Map() };
  for (const l of links) {
    if (l.name !== undefined) {
      table.indexByName.set(l.name, l.index);
      table.nameByIndex.set(l.index, l.name);
      if (l.mtu !== undefined) table.mtuByName.set(l.name, l.mtu);
    }
  }
  const devices: HostModel = new Map();
  const unowned: HostModel = new Map();
  for (const l of links) {
    if (l.name === undefined) continue;
    const owned = l.alias === OWNER_ALIAS;
    if (!owned && !isManagedDevice(l.name)) continue;
    (owned ? devices : unowned).set(l.name, linkDevice(l, l.name, table));
  }
  return { devices, unowned, table };
}

/** A link as a device of the host model (without its addresses). */
export function linkDevice(l: RawLink, name: string, table: Pick<LinkTable, 'nameByIndex'>): Device {
  const info = l.linkinfo ? decodeLinkInfo(l.linkinfo) : {};
  // A marked device of a kind nodenet never creates (e.g. a dummy) is still ours: it is reported
  // with its real kind so the diff replaces it.
  const kind = (info.kind ?? 'unknown') as DeviceKind;
  const device: Device = {
    name,
    kind,
    up: l.up,
    addresses: [],
    ...(l.mtu !== undefined ? { mtu: l.mtu } : {}),
    ...(l.mac ? { mac: macFromBytes(l.mac) } : {}),
  };
  const nameOf = (index: number): string => table.nameByIndex.get(index) ?? `ifindex ${index}`;
  if (l.master) device.master = nameOf(l.master);
  if (info.slaveKind === 'bridge' && info.port) device.port = info.port;
  if (kind === 'vrf' && info.vrfTable !== undefined) device.vrf = { table: info.vrfTable };
  if (kind === 'vxlan' && info.vxlan) {
    const { linkIndex, local, ...rest } = info.vxlan;
    device.vxlan = { ...rest, local: local ?? 'none' };
    if (linkIndex) device.vxlan.dev = nameOf(linkIndex);
  }
  // For a veth, IFLA_LINK is the peer's index, for a macvlan its parent's (foreign when in another namespace).
  const linked = l.link !== undefined && !l.foreignLink ? table.nameByIndex.get(l.link) : undefined;
  if (kind === 'veth') device.veth = { peer: linked ?? 'none' };
  if (kind === 'macvlan' && info.macvlanMode)
    device.macvlan = { mode: info.macvlanMode, parent: linked ?? 'none' };
  return device;
}

/**
 * An address message: the device index and the address as the host model has it, undefined for
 * what the model leaves out (IPv6 link-local, fe80::/10: the kernel's own).
 */
export function parseAddress(data: Buffer): { index: number; cidr?: string } {
  const index = data.readUInt32LE(4);
  const prefixlen = data.readUInt8(1);
  let local: Buffer | undefined;
  let address: Buffer | undefined;
  for (let off = 8; off + 4 <= data.length;) {
    const len = data.readUInt16LE(off);
    if (len < 4) break;
    const type = data.readUInt16LE(off + 2) & 0x3fff;
    if (type === IFA_LOCAL) local = data.subarray(off + 4, off + len);
    else if (type === IFA_ADDRESS) address = data.subarray(off + 4, off + len);
    off += (len + 3) & ~3;
  }
  const bytes = local ?? address;
  if (!bytes) return { index };
  if (bytes.length === 16 && bytes[0] === 0xfe && (bytes[1]! & 0xc0) === 0x80) return { index };
  return { index, cidr: `${addressFromBytes(bytes)}/${prefixlen}` };
}

/** Fills in the addresses of the given devices from one address dump (IPv6 link-local left out). */
export async function readAddresses(
  socket: RtNetlinkSocket,
  devices: HostModel,
  table: LinkTable,
): Promise<void> {
  const msgs = await dump(socket, {
    type: RTM_GETADDR,
    payload: Buffer.alloc(8),
    want: RTM_NEWADDR,
    what: 'addresses',
  });
  for (const data of msgs) {
    const address = parseAddress(data);
    const name = table.nameByIndex.get(address.index);
    const device = name !== undefined ? devices.get(name) : undefined;
    if (device && address.cidr !== undefined) device.addresses.push(address.cidr);
  }
  for (const d of devices.values()) d.addresses.sort(compareStrings);
}

/** The owned part of the host and the unowned devices with nodenet-looking names, as host models. */
export async function readHost(socket: RtNetlinkSocket): Promise<HostSnapshot> {
  const { devices, unowned, table } = await readLinks(socket);
  await readAddresses(socket, new Map([...unowned, ...devices]), table);
  return { devices, unowned, ...table };
}

export const isKnownKind = (kind: string): kind is DeviceKind =>
  (DEVICE_KINDS as readonly string[]).includes(kind);
