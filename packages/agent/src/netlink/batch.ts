/**
 * Batched netlink requests: many rtnetlink messages in one datagram, acknowledged once.
 *
 * The kernel handles every message of a datagram in order within one sendmsg call, and answers a
 * message without NLM_F_ACK only when it fails. So a batch is sent with the ACK flag on its last
 * message only: when that ack arrives, every message before it has been handled, and the failures
 * among them have already been reported with their sequence numbers. This takes the per-message
 * syscalls and reply handling out of an apply (the kernel's own work is unchanged) and is what
 * keeps the driver close to `ip -batch`, which sends and waits for each command separately.
 */
import { getSystemErrorName } from 'node:util';
import netlink from 'netlink';
import type { NetlinkMessage, RtNetlinkSocket } from 'netlink';

const { Flags, MessageType, formatMessage, parseError } = netlink;

export interface BatchMessage {
  type: number;
  /** NLM_F_* flags besides REQUEST and ACK. */
  flags: number;
  /** Payload (the family header and its attributes). */
  payload: Uint8Array[];
}

export interface BatchFailure {
  /** Position of the failed message in the batch. */
  index: number;
  /** errno name, e.g. EEXIST. */
  errno: string;
}

const BATCH_TIMEOUT_MS = 30_000;

/** Sends the messages as one datagram and resolves with the failures (empty: all accepted). */
export function sendBatch(
  rtSocket: RtNetlinkSocket,
  messages: readonly BatchMessage[],
): Promise<BatchFailure[]> {
  const socket = rtSocket.socket;
  if (messages.length === 0) return Promise.resolve([]);
  const port = socket.address().port;
  const seqs = new Map<number, number>();
  const bufs: Uint8Array[] = [];
  messages.forEach((m, i) => {
    const seq = socket.generateSeq();
    seqs.set(seq, i);
    const last = i === messages.length - 1;
    const flags = m.flags | Flags.REQUEST | (last ? Flags.ACK : 0);
    for (const b of formatMessage({ type: m.type, flags, seq, port, data: m.payload })) bufs.push(b);
    // Messages in one datagram are 4-byte aligned (NLMSG_ALIGN).
    const len = bufs.reduce((n, b) => n + b.length, 0);
    if (len % 4) bufs.push(Buffer.alloc(4 - (len % 4)));
  });
  const lastSeq = [...seqs.keys()].at(-1)!;
  const datagram = Buffer.concat(bufs);

  return new Promise<BatchFailure[]>((resolve, reject) => {
    const failures: BatchFailure[] = [];
    const onMessage = (msgs: NetlinkMessage[]): void => {
      for (const msg of msgs) {
        if (msg.type !== (MessageType.ERROR as number)) continue;
        const index = seqs.get(msg.seq);
        if (index === undefined) continue;
        const { errno } = parseError(msg.data, msg.flags);
        if (errno !== 0) failures.push({ index, errno: errnoName(errno) });
        if (msg.seq === lastSeq) finish();
      }
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(
        new Error(
          `no answer from the kernel to a batch of ${messages.length} requests within ${BATCH_TIMEOUT_MS} ms`,
        ),
      );
    }, BATCH_TIMEOUT_MS);
    const cleanup = (): void => {
      clearTimeout(timer);
      socket.off('message', onMessage);
      socket.unref();
    };
    const finish = (): void => {
      cleanup();
      resolve(failures.sort((a, b) => a.index - b.index));
    };
    socket.on('message', onMessage);
    // Keep the event loop alive until the final ack.
    socket.ref();
    socket.socket.send(datagram, {}, (err) => {
      if (err) {
        cleanup();
        reject(err);
      }
    });
  });
}

function errnoName(errno: number): string {
  try {
    const name = getSystemErrorName(errno < 0 ? errno : -errno);
    // Linux has one number for both; the kernel (and its messages) call it EOPNOTSUPP.
    return name === 'ENOTSUP' ? 'EOPNOTSUPP' : name;
  } catch {
    return `errno ${Math.abs(errno)}`;
  }
}
