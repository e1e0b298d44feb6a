/** Netlink model fixtures shared by the desired-model, diff and ownership tests. */
import type { NodeLayer2Entry, VrfEntry } from '@nodenet/api';
import { desiredModel, type Device, type HostModel } from '@nodenet/agent';

export const settings = { vtepAddress: '10.50.0.1' };

export const l2 = (over: Partial<NodeLayer2Entry> = {}): NodeLayer2Entry => ({
  name: 'net-a',
  id: 100,
  mtu: 1500,
  vni: 1100,
  anycastGateways: [],
  advertiseNeighbors: false,
  createMacVLANInterface: false,
  neighSuppression: false,
  ...over,
});

export const vrf = (name: string, vni = 5000, mtu = 9000): VrfEntry => ({
  name: `cfg-${name}`,
  vrf: name,
  vni,
  import: [],
  export: [],
  aggregate: [],
  seq: 10,
  mtu,
});

export const model = (
  spec: { vrf?: VrfEntry[]; layer2?: NodeLayer2Entry[]; routingTable?: { name: string; tableId: number }[] },
  tables: Record<string, number> = {},
): HostModel =>
  desiredModel({
    spec: { vrf: spec.vrf ?? [], layer2: spec.layer2 ?? [], routingTable: spec.routingTable ?? [] },
    settings,
    tables: new Map(Object.entries(tables)),
  });

/** What the kernel shows right after the desired model was applied (the fields read.ts fills in). */
export function asApplied(m: HostModel): HostModel {
  const out: HostModel = new Map();
  for (const [n, d] of m) {
    const { veth, ...rest } = d;
    const cur: Device = { ...rest, mac: d.mac ?? '02:00:00:00:00:99', mtu: d.mtu ?? 65575 };
    if (veth) cur.veth = { peer: veth.peer };
    if (d.port === undefined && d.master?.startsWith('l2.'))
      cur.port = { learning: true, neighSuppress: false, hairpin: false };
    out.set(n, cur);
  }
  return out;
}
