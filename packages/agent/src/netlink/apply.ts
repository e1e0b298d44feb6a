/**
 * Carries out diff operations over netlink, in order, in batches of up to BATCH_SIZE messages per
 * datagram (batch.ts). Every device it creates gets nodenet's mark (interface alias OWNER_ALIAS) by
 * a request right after the create, in the same datagram: the kernel ignores IFLA_IFALIAS on create. The link index map comes from the read that preceded the diff and is
 * refreshed with one link dump only when an operation refers to a device created in this run. A
 * batch with a failure ends the run, reported with the device, the operation and the kernel's answer.
 */
import netlink from 'netlink';
import type { ifla, rt as Rt, RtNetlinkSocket } from 'netlink';
import { sendBatch, type BatchMessage } from './batch.js';
import { addressBytes, isIpv6, macBytes } from './address.js';
import { encodeBridgePort, encodeLinkInfo, encodeVxlanChange } from './codec.js';
import { NetlinkOperationError } from './errors.js';
import { describeOperation, OWNER_ALIAS, type Device, type Operation } from './model.js';
import { readLinks } from './read.js';

const { AttrStream, FlagsNew, rt } = netlink;

const RTM_NEWLINK = 16;
const RTM_DELLINK = 17;
const RTM_SETLINK = 19;
const RTM_NEWADDR = 20;
const RTM_DELADDR = 21;

const AF_INET = 2;
const AF_INET6 = 10;

/** Short descriptions of the errno values the kernel answers link/address requests with. */
const ERRNO_TEXT: Record<string, string> = {
  EEXIST: 'File exists',
  ENODEV: 'No such device',
  ENOENT: 'No such file or directory',
  EOPNOTSUPP: 'Operation not supported',
  EINVAL: 'Invalid argument',
  EBUSY: 'Device or resource busy',
  ERANGE: 'Numerical result out of range',
  EADDRNOTAVAIL: 'Cannot assign requested address',
  EADDRINUSE: 'Address already in use',
  EPERM: 'Operation not permitted',
  ENOBUFS: 'No buffer space available',
  ENOSPC: 'No space left on device',
  ELOOP: 'Too many levels of symbolic links',
  ENFILE: 'Too many open files in system',
};

export interface ApplyContext {
  socket: RtNetlinkSocket;
  /** Socket for the link dump that refreshes indexes (default: `socket`). */
  dumpSocket?: RtNetlinkSocket;
  /** Index of every link by name, from the read that preceded the diff. Updated in place. */
  indexByName: Map<string, number>;
  /** Called after each operation the kernel accepted, in completion order. */
  onDone?: (op: Operation) => void;
}

/** Errno name from the package's "Request rejected: EEXIST" errors. */
export function errnoOf(err: unknown): string | undefined {
  const m = /Request rejected: (\w+)/.exec(err instanceof Error ? err.message : String(err));
  return m?.[1] === undefined ? undefined : canonicalErrno(m[1]);
}

/** Linux has one number for ENOTSUP and EOPNOTSUPP; Node names it ENOTSUP, the kernel sources EOPNOTSUPP. */
export const canonicalErrno = (name: string): string => (name === 'ENOTSUP' ? 'EOPNOTSUPP' : name);

export const describeErrno = (errno: string): string => `${errno} (${ERRNO_TEXT[errno] ?? 'error'})`;

export function kernelAnswer(err: unknown): string {
  const errno = errnoOf(err) ?? (err as NodeJS.ErrnoException | undefined)?.code;
  if (errno) return describeErrno(errno);
  return err instanceof Error ? err.message : String(err);
}

class MissingDevice extends Error {
  constructor(readonly device: string) {
    super(`device ${device} does not exist`);
  }
}

/** Messages per datagram: large enough to amortize the syscall, small enough for the socket buffers. */
const BATCH_SIZE = 128;

export async function applyOperations(ops: readonly Operation[], ctx: ApplyContext): Promise<void> {
  const run = new OperationRun(ctx);
  for (const op of ops) await run.add(op);
  await run.flush();
}

/** A message of an operation waiting to be sent; `last` marks the operation's final one. */
interface Queued extends Prepared {
  op: Operation;
  last: boolean;
}

/** One run of operations: queues their messages, sends them in batches, resolves indexes. */
class OperationRun {
  private batch: Queued[] = [];
  private createdSinceRefresh = false;

  constructor(private readonly ctx: ApplyContext) {}

  async add(op: Operation): Promise<void> {
    const messages = await this.prepared(op);
    if (op.op === 'create' || op.op === 'recreate') this.createdSinceRefresh = true;
    if (op.op === 'delete') this.ctx.indexByName.delete(op.device);
    if (op.op === 'recreate') this.ctx.indexByName.delete(op.device.name);
    messages.forEach((m, i) => this.batch.push({ op, ...m, last: i === messages.length - 1 }));
    if (this.batch.length >= BATCH_SIZE) await this.flush();
  }

  /** Sends the queued messages; throws for the first operation the kernel refused. */
  async flush(): Promise<void> {
    if (this.batch.length === 0) return;
    const sent = this.batch;
    this.batch = [];
    let failures;
    try {
      failures = await sendBatch(
        this.ctx.socket,
        sent.map((b) => b.message),
      );
    } catch (err) {
      throw new NetlinkOperationError(
        { ...failureOf(sent[0]!.op), errno: undefined, kernelMessage: kernelAnswer(err) },
        { cause: err },
      );
    }
    const firstError = this.report(sent, new Map(failures.map((f) => [f.index, f.errno])));
    if (firstError) throw firstError;
  }

  /** Reports each operation all of whose messages the kernel accepted; returns the first refusal. */
  private report(sent: Queued[], failed: Map<number, string>): NetlinkOperationError | undefined {
    let firstError: NetlinkOperationError | undefined;
    const failedOps = new Set<Operation>();
    sent.forEach((b, i) => {
      const errno = failed.get(i);
      // Already gone / already absent: the wanted end state holds (a veth peer dies with its pair).
      if (errno === undefined || errno === b.harmless) {
        if (b.last && !failedOps.has(b.op)) this.ctx.onDone?.(b.op);
        return;
      }
      failedOps.add(b.op);
      firstError ??= new NetlinkOperationError({
        ...failureOf(b.op),
        errno,
        kernelMessage: describeErrno(errno),
      });
    });
    return firstError;
  }

  /** The operation's messages; a device it refers to that does not exist fails it (after what came before is sent). */
  private async prepared(op: Operation): Promise<Prepared[]> {
    try {
      return await prepare(op, (name) => this.indexOf(name));
    } catch (err) {
      if (!(err instanceof MissingDevice)) throw err;
      await this.flush();
      throw new NetlinkOperationError({
        ...failureOf(op),
        errno: undefined,
        kernelMessage: `nothing: ${err.message}`,
      });
    }
  }

  /** Index of a device; after creations, flushes them and refreshes the map once with one link dump. */
  private async indexOf(name: string): Promise<number> {
    let index = this.ctx.indexByName.get(name);
    if (
      index === undefined &&
      (this.createdSinceRefresh || this.batch.some((b) => b.op.op === 'create' || b.op.op === 'recreate'))
    ) {
      await this.flush();
      const { table } = await readLinks(this.ctx.dumpSocket ?? this.ctx.socket);
      this.ctx.indexByName.clear();
      for (const [n, i] of table.indexByName) this.ctx.indexByName.set(n, i);
      this.createdSinceRefresh = false;
      index = this.ctx.indexByName.get(name);
    }
    if (index === undefined) throw new MissingDevice(name);
    return index;
  }
}

const deviceOf = (op: Operation): string =>
  op.op === 'create' || op.op === 'recreate' ? op.device.name : op.device;

const failureOf = (op: Operation): { device: string; operation: string } => ({
  device: deviceOf(op),
  operation: describeOperation(op),
});

type IndexOf = (name: string) => Promise<number>;

/** One request of an operation; `harmless` is an errno that still leaves the wanted state. */
interface Prepared {
  message: BatchMessage;
  harmless?: string;
}

function linkMessage(type: number, flags: number, data: Rt.Link, attrs: ifla.LinkAttrs): BatchMessage {
  const out = new AttrStream();
  rt.formatLinkMessage({ kind: 'link', data, attrs }, out);
  return { type, flags, payload: out.bufs };
}

function addressMessage(type: number, flags: number, data: Rt.Address, attrs: Rt.AddressAttrs): BatchMessage {
  const out = new AttrStream();
  rt.formatAddressMessage({ kind: 'address', data, attrs }, out);
  return { type, flags, payload: out.bufs };
}

const deleteMessage = (name: string): Prepared => ({
  message: linkMessage(RTM_DELLINK, 0, {}, { ifname: name }),
  harmless: 'ENODEV',
});

const markMessage = (name: string): Prepared => ({
  message: linkMessage(RTM_SETLINK, 0, {}, { ifname: name, ifalias: OWNER_ALIAS }),
});

/** Resolves the indexes an operation needs and encodes its requests. */
async function prepare(op: Operation, indexOf: IndexOf): Promise<Prepared[]> {
  switch (op.op) {
    // Operations on a device itself name it (IFLA_IFNAME, index 0): the kernel looks it up by name, so
    // a device created earlier in this run needs no index lookup. Only references to other devices
    // (master, VXLAN underlay, macvlan parent) and addresses need indexes.
    case 'adopt':
      return [markMessage(op.device)];
    case 'delete':
      return [deleteMessage(op.device)];
    case 'create':
      return createMessages(op.device, indexOf);
    case 'recreate':
      return [deleteMessage(op.device.name), ...(await createMessages(op.device, indexOf))];
    case 'set': {
      const master = op.master === undefined ? undefined : op.master === null ? 0 : await indexOf(op.master);
      const out: Prepared[] = [];
      if (op.mtu !== undefined || op.mac !== undefined || master !== undefined) {
        const attrs = {
          ifname: op.device,
          ...(op.mtu !== undefined ? { mtu: op.mtu } : {}),
          ...(op.mac !== undefined ? { address: macBytes(op.mac) } : {}),
          ...(master !== undefined ? { master } : {}),
        };
        out.push({ message: linkMessage(RTM_SETLINK, 0, {}, attrs) });
      }
      if (op.learning !== undefined) {
        // RTM_NEWLINK on an existing VXLAN with only this attribute: the kernel's changelink keeps the rest.
        const linkinfo = encodeVxlanChange({ learning: op.learning });
        out.push({ message: linkMessage(RTM_NEWLINK, 0, {}, { ifname: op.device, linkinfo }) });
      }
      return out;
    }
    case 'port':
    case 'addAddress':
    case 'delAddress':
    case 'up':
    case 'down':
      return [{ message: await prepareOther(op, indexOf) }];
  }
}

/** The create request, then the mark on the device (and on a veth's peer, created with it). */
async function createMessages(d: Device, indexOf: IndexOf): Promise<Prepared[]> {
  const create = await createMessage(d, indexOf);
  return [
    { message: create },
    markMessage(d.name),
    ...(d.kind === 'veth' && d.veth ? [markMessage(d.veth.peer)] : []),
  ];
}

async function createMessage(d: Device, indexOf: IndexOf): Promise<BatchMessage> {
  const master = d.master !== undefined ? await indexOf(d.master) : undefined;
  const linkIndex =
    d.kind === 'vxlan' && d.vxlan?.dev !== undefined
      ? await indexOf(d.vxlan.dev)
      : d.kind === 'macvlan' && d.macvlan
        ? await indexOf(d.macvlan.parent)
        : undefined;
  const linkinfo = encodeLinkInfo({
    kind: d.kind,
    ...(d.vrf ? { vrfTable: d.vrf.table } : {}),
    ...(d.vxlan
      ? {
          vxlan: {
            vni: d.vxlan.vni,
            local: d.vxlan.local,
            port: d.vxlan.port,
            learning: d.vxlan.learning,
            ...(linkIndex !== undefined ? { linkIndex } : {}),
          },
        }
      : {}),
    ...(d.veth ? { veth: { peer: d.veth.peer, ...(d.mtu !== undefined ? { peerMtu: d.mtu } : {}) } } : {}),
    ...(d.macvlan ? { macvlan: { mode: d.macvlan.mode } } : {}),
  });
  return linkMessage(
    RTM_NEWLINK,
    FlagsNew.CREATE | FlagsNew.EXCL,
    { flags: d.up ? { up: true } : {}, change: { up: true } },
    {
      ifname: d.name,
      linkinfo,
      ...(d.kind === 'macvlan' && linkIndex !== undefined ? { link: u32(linkIndex) } : {}),
      ...(d.mtu !== undefined ? { mtu: d.mtu } : {}),
      ...(d.mac !== undefined ? { address: macBytes(d.mac) } : {}),
      ...(master !== undefined ? { master } : {}),
    },
  );
}

async function prepareOther(
  op: Exclude<Operation, { op: 'adopt' | 'delete' | 'create' | 'recreate' | 'set' }>,
  indexOf: IndexOf,
): Promise<BatchMessage> {
  switch (op.op) {
    case 'port':
      // RTM_NEWLINK on an existing port with bridge slave data: what `ip link set … type bridge_slave` sends.
      return linkMessage(RTM_NEWLINK, 0, {}, { ifname: op.device, linkinfo: encodeBridgePort(op.options) });
    case 'addAddress':
    case 'delAddress': {
      const index = await indexOf(op.device);
      const [addr, len] = op.address.split('/') as [string, string];
      const v6 = isIpv6(addr);
      const bytes = addressBytes(addr);
      const data = { family: v6 ? AF_INET6 : AF_INET, prefixlen: Number(len), index };
      if (op.op === 'delAddress')
        return addressMessage(RTM_DELADDR, 0, data, { local: bytes, address: bytes });
      // Anycast gateways exist on every node by design: duplicate address detection must not disable them.
      const attrs = { local: bytes, address: bytes, ...(v6 ? { flags: { nodad: true as const } } : {}) };
      return addressMessage(RTM_NEWADDR, FlagsNew.CREATE | FlagsNew.REPLACE, data, attrs);
    }
    case 'up':
    case 'down':
      return linkMessage(
        RTM_SETLINK,
        0,
        { flags: op.op === 'up' ? { up: true } : {}, change: { up: true } },
        { ifname: op.device },
      );
  }
}

function u32(v: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(v);
  return b;
}
