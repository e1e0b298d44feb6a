/**
 * Carries out diff operations over netlink. Requests are pipelined on one socket (the kernel handles
 * a socket's requests in order), with a bounded window of unanswered ones; the link index map is
 * refreshed with one link dump only when an operation refers to a device created in this run. The
 * first failure stops the run and is reported with the device, the operation and the kernel's answer.
 */
import netlink from 'netlink';
import type { RtNetlinkSocket } from 'netlink';
import { addressBytes, isIpv6, macBytes } from './address.js';
import { encodeBridgePort, encodeLinkInfo } from './codec.js';
import { NetlinkOperationError } from './errors.js';
import { describeOperation, type Operation } from './model.js';
import { readLinks } from './read.js';

const { FlagsNew } = netlink;

/** Unanswered requests at most: keeps the kernel's acks within the socket's receive buffer. */
const WINDOW = 64;
/** A request the kernel never answers (lost ack) fails instead of hanging the agent. */
const REQUEST_TIMEOUT_MS = 30_000;

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
  /** Index of every link by name, from the read that preceded the diff. Updated in place. */
  indexByName: Map<string, number>;
  /** Called after each operation the kernel accepted, in completion order. */
  onDone?: (op: Operation) => void;
}

/** Errno name from the package's "Request rejected: EEXIST" errors. */
export function errnoOf(err: unknown): string | undefined {
  const m = /Request rejected: (\w+)/.exec(err instanceof Error ? err.message : String(err));
  return m?.[1];
}

export function kernelAnswer(err: unknown): string {
  const errno = errnoOf(err);
  if (errno) return `${errno} (${ERRNO_TEXT[errno] ?? 'error'})`;
  return err instanceof Error ? err.message : String(err);
}

class MissingDevice extends Error {
  constructor(readonly device: string) {
    super(`device ${device} does not exist`);
  }
}

export async function applyOperations(ops: readonly Operation[], ctx: ApplyContext): Promise<void> {
  const { socket } = ctx;
  const inflight = new Set<Promise<void>>();
  let failure: { index: number; error: NetlinkOperationError } | undefined;
  let refreshedSinceCreate = true;

  const fail = (index: number, error: NetlinkOperationError): void => {
    if (!failure || index < failure.index) failure = { index, error };
  };
  const drain = async (): Promise<void> => {
    while (inflight.size > 0) await Promise.race(inflight);
  };
  const refresh = async (): Promise<void> => {
    await drain();
    const { table } = await readLinks(socket);
    ctx.indexByName.clear();
    for (const [n, i] of table.indexByName) ctx.indexByName.set(n, i);
    refreshedSinceCreate = true;
  };
  /** Index of a device; refreshes the map once if the device was created in this run. */
  const indexOf = async (name: string): Promise<number> => {
    let index = ctx.indexByName.get(name);
    if (index === undefined && !refreshedSinceCreate) {
      await refresh();
      index = ctx.indexByName.get(name);
    }
    if (index === undefined) throw new MissingDevice(name);
    return index;
  };

  for (let i = 0; i < ops.length && !failure; i++) {
    const op = ops[i]!;
    const device = op.op === 'create' ? op.device.name : op.device;
    let send: () => Promise<unknown>;
    try {
      send = await prepare(op, indexOf, socket);
    } catch (err) {
      if (err instanceof MissingDevice) {
        fail(
          i,
          new NetlinkOperationError(device, describeOperation(op), undefined, `nothing: ${err.message}`),
        );
        break;
      }
      throw err;
    }
    if (failure) break;
    if (op.op === 'create') refreshedSinceCreate = false;
    if (op.op === 'delete') ctx.indexByName.delete(op.device);
    const p: Promise<void> = send()
      .then(
        () => ctx.onDone?.(op),
        (err: unknown) => {
          const errno = errnoOf(err);
          // Already gone / already absent: the wanted end state holds (a veth peer dies with its pair).
          if (
            (op.op === 'delete' && errno === 'ENODEV') ||
            (op.op === 'delAddress' && errno === 'EADDRNOTAVAIL')
          ) {
            ctx.onDone?.(op);
            return;
          }
          fail(
            i,
            new NetlinkOperationError(device, describeOperation(op), errno, kernelAnswer(err), {
              cause: err,
            }),
          );
        },
      )
      .finally(() => inflight.delete(p));
    inflight.add(p);
    if (inflight.size >= WINDOW) await Promise.race(inflight);
  }
  await drain();
  if (failure) throw failure.error;
}

type IndexOf = (name: string) => Promise<number>;

/** Resolves the indexes an operation needs and returns the request that carries it out. */
async function prepare(
  op: Operation,
  indexOf: IndexOf,
  socket: RtNetlinkSocket,
): Promise<() => Promise<unknown>> {
  const opts = { timeout: REQUEST_TIMEOUT_MS };
  switch (op.op) {
    case 'delete': {
      const index = await indexOf(op.device);
      return () => socket.delLink({ index }, {}, opts);
    }
    case 'create': {
      const d = op.device;
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
        ...(d.veth
          ? { veth: { peer: d.veth.peer, ...(d.mtu !== undefined ? { peerMtu: d.mtu } : {}) } }
          : {}),
        ...(d.macvlan ? { macvlan: { mode: d.macvlan.mode } } : {}),
      });
      const link = d.kind === 'macvlan' && linkIndex !== undefined ? { link: u32(linkIndex) } : {};
      return () =>
        socket.newLink(
          { flags: d.up ? { up: true } : {}, change: { up: true } },
          {
            ifname: d.name,
            linkinfo,
            ...link,
            ...(d.mtu !== undefined ? { mtu: d.mtu } : {}),
            ...(d.mac !== undefined ? { address: macBytes(d.mac) } : {}),
            ...(master !== undefined ? { master } : {}),
          },
          { ...opts, flags: FlagsNew.CREATE | FlagsNew.EXCL },
        );
    }
    case 'set': {
      const index = await indexOf(op.device);
      const master = op.master === undefined ? undefined : op.master === null ? 0 : await indexOf(op.master);
      return () =>
        socket.setLink(
          { index },
          {
            ...(op.mtu !== undefined ? { mtu: op.mtu } : {}),
            ...(op.mac !== undefined ? { address: macBytes(op.mac) } : {}),
            ...(master !== undefined ? { master } : {}),
          },
          opts,
        );
    }
    case 'port': {
      const index = await indexOf(op.device);
      const linkinfo = encodeBridgePort(op.options);
      return () => socket.newLink({ index }, { linkinfo }, opts);
    }
    case 'addAddress':
    case 'delAddress': {
      const index = await indexOf(op.device);
      const [addr, len] = op.address.split('/') as [string, string];
      const v6 = isIpv6(addr);
      const bytes = addressBytes(addr);
      const data = { family: v6 ? AF_INET6 : AF_INET, prefixlen: Number(len), index };
      if (op.op === 'delAddress')
        return () => socket.delAddress(data, { local: bytes, address: bytes }, opts);
      // Anycast gateways exist on every node by design: duplicate address detection must not disable them.
      const attrs = { local: bytes, address: bytes, ...(v6 ? { flags: { nodad: true as const } } : {}) };
      return () => socket.newAddress(data, attrs, { ...opts, flags: FlagsNew.CREATE | FlagsNew.REPLACE });
    }
    case 'up':
    case 'down': {
      const index = await indexOf(op.device);
      return () =>
        socket.setLink({ index, flags: op.op === 'up' ? { up: true } : {}, change: { up: true } }, {}, opts);
    }
  }
}

function u32(v: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(v);
  return b;
}
