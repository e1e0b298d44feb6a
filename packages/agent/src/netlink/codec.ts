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

export function decodeLinkInfo(linkinfo: Buffer): DecodedLinkInfo {
  const info = ifla.parseInfo(linkinfo);
  const out: DecodedLinkInfo = { kind: info.kind, slaveKind: info.slaveKind };
  if (info.data) {
    switch (info.kind) {
      case 'vrf':
        out.vrfTable = ifla.parseVrf(info.data).table;
        break;
      case 'vxlan': {
        const v = ifla.parseVxlan(info.data);
        const local = v.local ?? v.local6;
        out.vxlan = {
          vni: v.id ?? 0,
          ...(local ? { local: addressFromBytes(local) } : {}),
          port: v.port ? v.port.readUInt16BE(0) : 0,
          learning: (v.learning ?? 0) !== 0,
          ...(v.link ? { linkIndex: v.link } : {}),
        };
        break;
      }
      case 'macvlan': {
        const mode = ifla.parseMacvlanMode(ifla.parseMacvlan(info.data).mode ?? 0);
        out.macvlanMode = (['private', 'vepa', 'bridge', 'passthru', 'source'] as const).find((m) => mode[m]);
        break;
      }
    }
  }
  if (info.slaveKind === 'bridge' && info.slaveData) {
    const p = ifla.parseBridgePort(info.slaveData);
    out.port = {
      learning: (p.learning ?? 0) !== 0,
      hairpin: p.mode === ifla.BridgePortMode.HAIRPIN,
      neighSuppress: p.neighSuppress ? p.neighSuppress[0] !== 0 : false,
    };
  }
  return out;
}

export type LinkMessage = RtTypes.LinkMessage;
export type LinkAttrs = IflaTypes.LinkAttrs;
