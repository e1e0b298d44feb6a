/**
 * Diff (pure): the ordered operations that turn the current host model into the desired one.
 *
 * Order: delete (ports before their masters), create and recreate (masters before ports, each
 * created with its MTU, MAC, master and link state in one request), set MTU/MAC/master, bridge-port
 * options, addresses (removals first), then link state.
 *
 * A live device is changed in place: deleting a bridge drops every port and neighbour on it, so a
 * device is recreated only when a setting the kernel cannot change in place differs (kind, VRF
 * table, VXLAN VNI/local/port/learning/underlay, veth peer, macvlan parent/mode), and the `recreate`
 * step says which. Its ports are then re-enslaved and its addresses re-added, nothing else is
 * touched. Devices in `current` that are not desired are deleted, so `current` must hold only the
 * devices nodenet owns (ownership.ts).
 */
import { compareStrings, isIpv6 } from './address.js';
import type { BridgePortOptions, Device, DeviceKind, HostModel, Operation } from './model.js';

/** Creation order: masters before the devices enslaved to them. Deletion uses the reverse. */
const KIND_RANK: Record<DeviceKind, number> = { vrf: 0, bridge: 1, vxlan: 2, veth: 3, macvlan: 4 };

/** Options the kernel gives a fresh bridge port. */
export const KERNEL_PORT_DEFAULTS: BridgePortOptions = {
  learning: true,
  neighSuppress: false,
  hairpin: false,
};

export function diff(current: HostModel, desired: HostModel): Operation[] {
  const deletes: Operation[] = [];
  const creates: Operation[] = [];
  /** Devices that get (re)created, and the state each has right after its create operation. */
  const fresh = new Map<string, Device>();
  /** Devices created by their own create operation (with MTU, MAC, master and link state). */
  const createdDirect = new Set<string>();
  const recreated = new Set<string>();

  for (const [name, cur] of current) {
    if (!desired.has(name))
      deletes.push({ op: 'delete', device: name, kind: cur.kind, reason: 'not in the desired state' });
  }
  for (const [name, want] of desired) {
    const cur = current.get(name);
    if (want.kind === 'veth' && !want.veth?.primary) continue; // handled with its primary end
    if (cur) {
      const reason = recreateReason(cur, want, current, desired);
      if (reason === undefined) continue;
      creates.push({ op: 'recreate', device: want, was: cur.kind, reason });
      recreated.add(name);
    } else {
      creates.push({ op: 'create', device: want, reason: 'missing' });
    }
    createdDirect.add(name);
    fresh.set(name, { ...want, port: undefined, addresses: [] });
    if (want.kind === 'veth' && want.veth) {
      // Creating the pair creates the peer too: with its name and MTU, but down, unenslaved, no addresses.
      const peer = desired.get(want.veth.peer);
      if (peer) {
        const peerCur = current.get(peer.name);
        // The old peer goes first: when it is still paired with the old `name`, that goes with it.
        if (peerCur && !deletes.some((d) => d.op === 'delete' && d.device === peer.name)) {
          deletes.push({
            op: 'delete',
            device: peer.name,
            kind: peerCur.kind,
            reason: `veth peer of ${name}, which is ${cur ? 'recreated' : 'created'} with it`,
          });
        }
        fresh.set(peer.name, { ...peer, master: undefined, up: false, port: undefined, addresses: [] });
      }
    }
  }
  // A deleted master releases its ports: their master, port options and (IPv6) addresses go with it.
  const released = new Set([...deletes.map((d) => deviceOf(d)), ...recreated]);

  const sets: Operation[] = [];
  const ports: Operation[] = [];
  const delAddrs: Operation[] = [];
  const addAddrs: Operation[] = [];
  const links: Operation[] = [];
  for (const [name, want] of desired) {
    let base = fresh.get(name) ?? current.get(name);
    if (!base) continue; // a non-primary veth end whose pair is created: covered via fresh
    if (base.master !== undefined && released.has(base.master) && !fresh.has(name)) {
      base = { ...base, master: undefined, port: undefined };
    }
    const created = createdDirect.has(name);
    const set: { mtu?: number; mac?: string; master?: string | null; learning?: boolean } = {};
    if (want.mtu !== undefined && want.mtu !== base.mtu) set.mtu = want.mtu;
    if (want.mac !== undefined && want.mac !== base.mac) set.mac = want.mac;
    if (want.vxlan && base.vxlan && want.vxlan.learning !== base.vxlan.learning)
      set.learning = want.vxlan.learning;
    const masterChanges = want.master !== base.master;
    if (masterChanges) set.master = want.master ?? null;
    if (!created && Object.keys(set).length > 0) sets.push({ op: 'set', device: name, ...set });

    if (want.port) {
      const enslavedNow = created || masterChanges;
      const havePort = enslavedNow ? KERNEL_PORT_DEFAULTS : (base.port ?? KERNEL_PORT_DEFAULTS);
      if (!samePort(havePort, want.port)) ports.push({ op: 'port', device: name, options: want.port });
    }

    // Enslaving to or releasing from a VRF cycles the device down and up, which flushes IPv6 addresses.
    const have = new Set(masterChanges ? base.addresses.filter((a) => !isIpv6(a)) : base.addresses);
    const wantAddrs = new Set(want.addresses);
    for (const a of [...have].sort(compareStrings))
      if (!wantAddrs.has(a)) delAddrs.push({ op: 'delAddress', device: name, address: a });
    for (const a of want.addresses)
      if (!have.has(a)) addAddrs.push({ op: 'addAddress', device: name, address: a });

    if (!created && want.up !== base.up) links.push({ op: want.up ? 'up' : 'down', device: name });
  }

  const rankOf = (m: HostModel, fallback: HostModel) => (n: string) =>
    KIND_RANK[(m.get(n) ?? fallback.get(n))!.kind];
  const rankD = rankOf(desired, current);
  const byRank = (rank: (n: string) => number, dir: 1 | -1) => (a: Operation, b: Operation) =>
    dir * (rank(deviceOf(a)) - rank(deviceOf(b))) || compareStrings(deviceOf(a), deviceOf(b));
  deletes.sort(
    (a, b) => -(KIND_RANK[kindOf(a)] - KIND_RANK[kindOf(b)]) || compareStrings(deviceOf(a), deviceOf(b)),
  );
  creates.sort(byRank(rankD, 1));
  sets.sort(byRank(rankD, 1));
  links.sort(byRank(rankD, 1));
  return [...deletes, ...creates, ...sets, ...ports, ...delAddrs, ...addAddrs, ...links];
}

function deviceOf(op: Operation): string {
  return op.op === 'create' || op.op === 'recreate' ? op.device.name : op.device;
}

function kindOf(op: Operation): DeviceKind {
  if (op.op === 'delete' || op.op === 'adopt') return op.kind;
  if (op.op === 'create' || op.op === 'recreate') return op.device.kind;
  throw new Error('kindOf: not a delete or create');
}

const samePort = (a: BridgePortOptions, b: BridgePortOptions): boolean =>
  a.learning === b.learning && a.neighSuppress === b.neighSuppress && a.hairpin === b.hairpin;

/**
 * Why `cur` can't be turned into `want` in place, or undefined when it can. Everything else (MTU,
 * MAC, master, port options, addresses, link state) is changed on the live device.
 */
export function recreateReason(
  cur: Device,
  want: Device,
  current: HostModel,
  desired: HostModel,
): string | undefined {
  if (cur.kind !== want.kind) return `kind ${cur.kind} → ${want.kind}: a device cannot change its kind`;
  switch (want.kind) {
    case 'vrf':
      if (cur.vrf?.table !== want.vrf?.table)
        return `table ${cur.vrf?.table} → ${want.vrf?.table}: the kernel cannot change a VRF's table`;
      return undefined;
    case 'vxlan': {
      const c = cur.vxlan;
      const w = want.vxlan!;
      const fixed = "the kernel cannot change a VXLAN's";
      if (!c) return 'VXLAN settings unreadable';
      if (c.vni !== w.vni) return `VNI ${c.vni} → ${w.vni}: ${fixed} VNI`;
      if (c.local !== w.local) return `local ${c.local} → ${w.local}: ${fixed} local address`;
      if (c.port !== w.port) return `port ${c.port} → ${w.port}: ${fixed} UDP port`;
      if (c.dev !== w.dev) return `dev ${c.dev ?? 'none'} → ${w.dev ?? 'none'}: ${fixed} underlay device`;
      return undefined;
    }
    case 'veth': {
      const peerName = want.veth!.peer;
      if (cur.veth?.peer !== peerName)
        return `peer ${cur.veth?.peer ?? 'none'} → ${peerName}: a veth pair cannot change its peer`;
      const peerCur = current.get(peerName);
      const peerWant = desired.get(peerName);
      if (!peerCur) return `peer ${peerName} missing`;
      if (peerWant && peerCur.kind !== peerWant.kind) return `peer ${peerName} is a ${peerCur.kind}`;
      return undefined;
    }
    case 'macvlan': {
      const c = cur.macvlan;
      const w = want.macvlan!;
      if (c?.parent !== w.parent) return `parent ${c?.parent ?? 'none'} → ${w.parent}`;
      if (c.mode !== w.mode) return `mode ${c.mode} → ${w.mode}`;
      return undefined;
    }
    case 'bridge':
      return undefined;
  }
}
