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

/** The two models a diff compares. */
interface Models {
  current: HostModel;
  desired: HostModel;
}

/** The delete, create and recreate steps, and what they leave behind for the in-place steps. */
interface Replacements {
  deletes: Operation[];
  creates: Operation[];
  /** Devices that get (re)created, and the state each has right after its create operation. */
  fresh: Map<string, Device>;
  /** Devices created by their own create operation (with MTU, MAC, master and link state). */
  createdDirect: Set<string>;
  recreated: Set<string>;
}

/** The in-place steps, by the place each kind of step takes in the order. */
interface InPlaceSteps {
  sets: Operation[];
  ports: Operation[];
  delAddrs: Operation[];
  addAddrs: Operation[];
  links: Operation[];
}

export function diff(current: HostModel, desired: HostModel): Operation[] {
  const models = { current, desired };
  const replaced = replacements(models);
  // A deleted master releases its ports: their master, port options and (IPv6) addresses go with it.
  const released = new Set([...replaced.deletes.map((d) => deviceOf(d)), ...replaced.recreated]);
  const steps = inPlaceSteps(models, replaced, released);
  return ordered(models, replaced, steps);
}

/** Deletes of the devices not desired, and creates/recreates of those missing or not changeable in place. */
function replacements(models: Models): Replacements {
  const { current, desired } = models;
  const out: Replacements = {
    deletes: [],
    creates: [],
    fresh: new Map(),
    createdDirect: new Set(),
    recreated: new Set(),
  };
  for (const [name, cur] of current) {
    if (!desired.has(name))
      out.deletes.push({ op: 'delete', device: name, kind: cur.kind, reason: 'not in the desired state' });
  }
  for (const [name, want] of desired) {
    if (want.kind === 'veth' && !want.veth?.primary) continue; // handled with its primary end
    const cur = current.get(name);
    const create = createOperation(cur, want, models);
    if (create === undefined) continue;
    out.creates.push(create);
    if (create.op === 'recreate') out.recreated.add(name);
    out.createdDirect.add(name);
    out.fresh.set(name, { ...want, port: undefined, addresses: [] });
    if (want.kind === 'veth' && want.veth)
      createdWithPair(want.veth.peer, { name, recreated: cur !== undefined }, models, out);
  }
  return out;
}

/** A create for a missing device, a recreate for one the kernel cannot turn into `want` in place. */
function createOperation(cur: Device | undefined, want: Device, models: Models): Operation | undefined {
  if (!cur) return { op: 'create', device: want, reason: 'missing' };
  const reason = recreateReason(cur, want, models.current, models.desired);
  return reason === undefined ? undefined : { op: 'recreate', device: want, was: cur.kind, reason };
}

/**
 * Creating a veth pair creates the peer too: with its name and MTU, but down, unenslaved, no
 * addresses. The old peer goes first: when it is still paired with the old primary, that goes with it.
 */
function createdWithPair(
  peerName: string,
  primary: { name: string; recreated: boolean },
  models: Models,
  out: Replacements,
): void {
  const peer = models.desired.get(peerName);
  if (!peer) return;
  const peerCur = models.current.get(peer.name);
  if (peerCur && !out.deletes.some((d) => d.op === 'delete' && d.device === peer.name)) {
    out.deletes.push({
      op: 'delete',
      device: peer.name,
      kind: peerCur.kind,
      reason: `veth peer of ${primary.name}, which is ${primary.recreated ? 'recreated' : 'created'} with it`,
    });
  }
  out.fresh.set(peer.name, { ...peer, master: undefined, up: false, port: undefined, addresses: [] });
}

/** MTU, MAC, master, port options, addresses and link state changed on the live (or fresh) devices. */
function inPlaceSteps(models: Models, replaced: Replacements, released: Set<string>): InPlaceSteps {
  const steps: InPlaceSteps = { sets: [], ports: [], delAddrs: [], addAddrs: [], links: [] };
  for (const [name, want] of models.desired) {
    const base = startingState(name, models, replaced, released);
    if (!base) continue; // a non-primary veth end whose pair is created: covered via fresh
    const created = replaced.createdDirect.has(name);
    const masterChanges = want.master !== base.master;
    const set = setOperation(want, base, masterChanges);
    if (!created && set) steps.sets.push(set);
    if (want.port && portChanges(want.port, base, created || masterChanges))
      steps.ports.push({ op: 'port', device: name, options: want.port });
    addressSteps(want, base, masterChanges, steps);
    if (!created && want.up !== base.up) steps.links.push({ op: want.up ? 'up' : 'down', device: name });
  }
  return steps;
}

/** The device as the in-place steps find it: fresh from its create, released by its master, or as read. */
function startingState(
  name: string,
  models: Models,
  replaced: Replacements,
  released: Set<string>,
): Device | undefined {
  const fresh = replaced.fresh.get(name);
  if (fresh) return fresh;
  const base = models.current.get(name);
  if (base?.master !== undefined && released.has(base.master))
    return { ...base, master: undefined, port: undefined };
  return base;
}

/** The one `set` step for MTU, MAC, VXLAN learning and master, or undefined when none differs. */
function setOperation(want: Device, base: Device, masterChanges: boolean): Operation | undefined {
  const set: { mtu?: number; mac?: string; master?: string | null; learning?: boolean } = {};
  if (want.mtu !== undefined && want.mtu !== base.mtu) set.mtu = want.mtu;
  if (want.mac !== undefined && want.mac !== base.mac) set.mac = want.mac;
  if (want.vxlan && base.vxlan && want.vxlan.learning !== base.vxlan.learning)
    set.learning = want.vxlan.learning;
  if (masterChanges) set.master = want.master ?? null;
  return Object.keys(set).length > 0 ? { op: 'set', device: want.name, ...set } : undefined;
}

/** Whether the port options differ from what the device has (the kernel's defaults when just enslaved). */
function portChanges(want: BridgePortOptions, base: Device, enslavedNow: boolean): boolean {
  const have = enslavedNow ? KERNEL_PORT_DEFAULTS : (base.port ?? KERNEL_PORT_DEFAULTS);
  return !samePort(have, want);
}

/** Address removals and additions. Enslaving to or releasing from a VRF cycles the device down and up, which flushes IPv6 addresses. */
function addressSteps(want: Device, base: Device, masterChanges: boolean, steps: InPlaceSteps): void {
  const have = new Set(masterChanges ? base.addresses.filter((a) => !isIpv6(a)) : base.addresses);
  const wantAddrs = new Set(want.addresses);
  for (const a of [...have].sort(compareStrings))
    if (!wantAddrs.has(a)) steps.delAddrs.push({ op: 'delAddress', device: want.name, address: a });
  for (const a of want.addresses)
    if (!have.has(a)) steps.addAddrs.push({ op: 'addAddress', device: want.name, address: a });
}

/** The steps in apply order: deletes ports first, creates/sets/link state masters first, each by name within a rank. */
function ordered(models: Models, replaced: Replacements, steps: InPlaceSteps): Operation[] {
  const { deletes, creates } = replaced;
  const rank = (n: string): number => KIND_RANK[(models.desired.get(n) ?? models.current.get(n))!.kind];
  const mastersFirst = (a: Operation, b: Operation): number =>
    rank(deviceOf(a)) - rank(deviceOf(b)) || compareStrings(deviceOf(a), deviceOf(b));
  deletes.sort(
    (a, b) => -(KIND_RANK[kindOf(a)] - KIND_RANK[kindOf(b)]) || compareStrings(deviceOf(a), deviceOf(b)),
  );
  creates.sort(mastersFirst);
  steps.sets.sort(mastersFirst);
  steps.links.sort(mastersFirst);
  return [
    ...deletes,
    ...creates,
    ...steps.sets,
    ...steps.ports,
    ...steps.delAddrs,
    ...steps.addAddrs,
    ...steps.links,
  ];
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
    case 'vxlan':
      return vxlanRecreateReason(cur, want);
    case 'veth':
      return vethRecreateReason(cur, want, { current, desired });
    case 'macvlan':
      return macvlanRecreateReason(cur, want);
    case 'bridge':
      return undefined;
  }
}

function vxlanRecreateReason(cur: Device, want: Device): string | undefined {
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

function vethRecreateReason(cur: Device, want: Device, models: Models): string | undefined {
  const peerName = want.veth!.peer;
  if (cur.veth?.peer !== peerName)
    return `peer ${cur.veth?.peer ?? 'none'} → ${peerName}: a veth pair cannot change its peer`;
  const peerCur = models.current.get(peerName);
  const peerWant = models.desired.get(peerName);
  if (!peerCur) return `peer ${peerName} missing`;
  if (peerWant && peerCur.kind !== peerWant.kind) return `peer ${peerName} is a ${peerCur.kind}`;
  return undefined;
}

function macvlanRecreateReason(cur: Device, want: Device): string | undefined {
  const c = cur.macvlan;
  const w = want.macvlan!;
  if (c?.parent !== w.parent) return `parent ${c?.parent ?? 'none'} → ${w.parent}`;
  if (c.mode !== w.mode) return `mode ${c.mode} → ${w.mode}`;
  return undefined;
}
