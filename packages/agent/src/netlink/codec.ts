/**
 * Encoding and decoding of the link details the `netlink` package leaves as raw buffers: it parses
 * IFLA_LINKINFO only as bytes, so the kind-specific data (VRF table, VXLAN id/port/local/learning/
 * link, macvlan mode, veth peer) and the bridge-port data (learning, hairpin, neighbour suppression)
 * are built and read here, on top of the package's own per-kind encoders (`ifla.formatVxlan`, …).
 */
import netlink from 'netlink';
import type { ifla as IflaTypes, rt as RtTypes, StreamData } from 'netlink';
import { addressBytes, addressFromBytes } from './address.js';
import type { BridgePortOptions, DeviceKind, MacvlanMode } from './model.js';

const { AttrStream, ifla, rt } = netlink;

/** Serializes an attribute stream built by the package's encoders into one buffer. */
export function toBuffer(data: StreamData): Buffer {
  const stream = new AttrStream();
  stream.emit(data);
  return Buffer.concat(stream.bufs);
}

const u8 = (v: number): Buffer => Buffer.from([v]);
const u16be = (v: number): Buffer => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(v);
  return b;
};

/** IFLA_VETH_PEER (1) of IFLA_INFO_DATA: a struct ifinfomsg followed by the peer's link attributes. */
const VETH_PEER = 1;

export interface LinkInfoSpec {
  kind: DeviceKind;
  vrfTable?: number;
  vxlan?: { vni: number; local: string; port: number; learning: boolean; linkIndex?: number };
  veth?: { peer: string; peerMtu?: number; peerMac?: Buffer };
  macvlan?: { mode: MacvlanMode };
}

/** IFLA_LINKINFO for creating a device of this kind. */
export function encodeLinkInfo(spec: LinkInfoSpec): Buffer {
  let data: StreamData | undefined;
  switch (spec.kind) {
    case 'vrf':
      data = ifla.formatVrf({ table: spec.vrfTable });
      break;
    case 'vxlan': {
      const v = spec.vxlan!;
      const local = addressBytes(v.local);
      data = ifla.formatVxlan({
        id: v.vni,
        ...(local.length === 4 ? { local } : { local6: local }),
        port: u16be(v.port),
        learning: v.learning ? 1 : 0,
        ...(v.linkIndex !== undefined ? { link: v.linkIndex } : {}),
      });
      break;
    }
    case 'veth': {
      const v = spec.veth!;
      const peerAttrs = ifla.formatLinkAttrs({
        ifname: v.peer,
        ...(v.peerMtu !== undefined ? { mtu: v.peerMtu } : {}),
        ...(v.peerMac ? { address: v.peerMac } : {}),
      });
      const peer: StreamData = (out) => {
        out.emit(rt.formatLink({}));
        out.emit(peerAttrs);
      };
      data = (out) => out.push(VETH_PEER, peer);
      break;
    }
    case 'macvlan':
      data = ifla.formatMacvlan({ mode: ifla.formatMacvlanMode({ [spec.macvlan!.mode]: true }) });
      break;
    case 'bridge':
      data = undefined;
      break;
  }
  return toBuffer(ifla.formatInfo({ kind: spec.kind, ...(data ? { data: toBuffer(data) } : {}) }));
}

/** IFLA_LINKINFO that changes a live VXLAN's learning flag (the kernel keeps every attribute not sent). */
export function encodeVxlanChange(change: { learning: boolean }): Buffer {
  const data = toBuffer(ifla.formatVxlan({ learning: change.learning ? 1 : 0 }));
  return toBuffer(ifla.formatInfo({ kind: 'vxlan', data }));
}

/** IFLA_LINKINFO that sets bridge-port options on an existing port (what `ip link set … type bridge_slave` sends). */
export function encodeBridgePort(options: BridgePortOptions): Buffer {
  const port = ifla.formatBridgePort({
    learning: options.learning ? 1 : 0,
    mode: options.hairpin ? ifla.BridgePortMode.HAIRPIN : ifla.BridgePortMode.UNSPEC,
    neighSuppress: u8(options.neighSuppress ? 1 : 0),
  });
  return toBuffer(ifla.formatInfo({ slaveKind: 'bridge', slaveData: toBuffer(port) }));
}

/** What read.ts needs from one link's IFLA_LINKINFO. */
export interface DecodedLinkInfo {
  kind?: string;
  vrfTable?: number;
  vxlan?: { vni: number; local?: string; port: number; learning: boolean; linkIndex?: number };
  macvlanMode?: MacvlanMode;
  slaveKind?: string;
  port?: BridgePortOptions;
}

/** Calls `fn` for each attribute in buf[start, end): its type (flags masked off) and payload bounds. */
export function forEachAttr(
  buf: Buffer,
  start: number,
  end: number,
  fn: (type: number, from: number, to: number) => void,
): void {
  for (let off = start; off + 4 <= end;) {
    const len = buf.readUInt16LE(off);
    if (len < 4 || off + len > end) break;
    fn(buf.readUInt16LE(off + 2) & 0x3fff, off + 4, off + len);
    off += (len + 3) & ~3;
  }
}

// Attribute numbers from linux/if_link.h, for the decoder below.
const INFO_KIND = 1;
const INFO_DATA = 2;
const INFO_SLAVE_KIND = 4;
const INFO_SLAVE_DATA = 5;
const VRF_TABLE = 1;
const VXLAN_ID = 1;
const VXLAN_LINK = 3;
const VXLAN_LOCAL = 4;
const VXLAN_LEARNING = 7;
const VXLAN_PORT = 15;
const VXLAN_LOCAL6 = 17;
const MACVLAN_MODE = 1;
const BRPORT_MODE = 4;
const BRPORT_LEARNING = 8;
const BRPORT_NEIGH_SUPPRESS = 32;
const MACVLAN_MODES: [number, MacvlanMode][] = [
  [1, 'private'],
  [2, 'vepa'],
  [4, 'bridge'],
  [8, 'passthru'],
  [16, 'source'],
];

const str = (buf: Buffer, from: number, to: number): string => {
  const nul = buf.indexOf(0, from);
  return buf.toString('latin1', from, nul >= from && nul < to ? nul : to);
};

/**
 * Reads IFLA_LINKINFO. Only the attributes the driver compares are decoded (the package's generic
 * parsers decode every attribute into objects, which costs more than the whole dump on a large host);
 * `decodeLinkInfo` agrees with `ifla.parseInfo`/`parseVxlan`/`parseBridgePort`, as the codec tests check.
 */
export function decodeLinkInfo(linkinfo: Buffer): DecodedLinkInfo {
  const out: DecodedLinkInfo = {};
  let data: [number, number] | undefined;
  let slaveData: [number, number] | undefined;
  forEachAttr(linkinfo, 0, linkinfo.length, (type, from, to) => {
    if (type === INFO_KIND) out.kind = str(linkinfo, from, to);
    else if (type === INFO_DATA) data = [from, to];
    else if (type === INFO_SLAVE_KIND) out.slaveKind = str(linkinfo, from, to);
    else if (type === INFO_SLAVE_DATA) slaveData = [from, to];
  });
  if (data) {
    const [from, to] = data;
    if (out.kind === 'vrf') {
      forEachAttr(linkinfo, from, to, (type, f) => {
        if (type === VRF_TABLE) out.vrfTable = linkinfo.readUInt32LE(f);
      });
    } else if (out.kind === 'vxlan') {
      const v: NonNullable<DecodedLinkInfo['vxlan']> = { vni: 0, port: 0, learning: false };
      forEachAttr(linkinfo, from, to, (type, f, t) => {
        if (type === VXLAN_ID) v.vni = linkinfo.readUInt32LE(f);
        else if (type === VXLAN_LINK) v.linkIndex = linkinfo.readUInt32LE(f) || undefined;
        else if (type === VXLAN_LOCAL || type === VXLAN_LOCAL6)
          v.local = addressFromBytes(linkinfo.subarray(f, t));
        else if (type === VXLAN_LEARNING) v.learning = linkinfo[f] !== 0;
        else if (type === VXLAN_PORT) v.port = linkinfo.readUInt16BE(f);
      });
      if (v.linkIndex === undefined) delete v.linkIndex;
      out.vxlan = v;
    } else if (out.kind === 'macvlan') {
      forEachAttr(linkinfo, from, to, (type, f) => {
        if (type === MACVLAN_MODE) {
          const mode = linkinfo.readUInt32LE(f);
          out.macvlanMode = MACVLAN_MODES.find(([bit]) => mode & bit)?.[1];
        }
      });
    }
  }
  if (out.slaveKind === 'bridge' && slaveData) {
    const port: BridgePortOptions = { learning: false, hairpin: false, neighSuppress: false };
    forEachAttr(linkinfo, slaveData[0], slaveData[1], (type, f) => {
      if (type === BRPORT_LEARNING) port.learning = linkinfo[f] !== 0;
      else if (type === BRPORT_MODE) port.hairpin = linkinfo[f] === ifla.BridgePortMode.HAIRPIN;
      else if (type === BRPORT_NEIGH_SUPPRESS) port.neighSuppress = linkinfo[f] !== 0;
    });
    out.port = port;
  }
  return out;
}

export type LinkMessage = RtTypes.LinkMessage;
export type LinkAttrs = IflaTypes.LinkAttrs;
