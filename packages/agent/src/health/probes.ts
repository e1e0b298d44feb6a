/**
 * The I/O of the health checks: reading link state over netlink and opening TCP connections.
 * Everything here touches the real kernel or network; the decisions live in checker.ts.
 */
import { connect } from 'node:net';
import { createRtNetlink } from 'netlink';

export interface LinkState {
  name: string;
  /** RFC 2863 operational state as the kernel reports it (`up`, `down`, `unknown`, ...). */
  operstate: string;
  /** IFF_UP: administratively up. */
  adminUp: boolean;
  /** IFF_LOWER_UP: carrier present. */
  lowerUp: boolean;
}

/** Whether a link counts as up for a health check. */
export function linkIsUp(link: LinkState): boolean {
  // Loopback, dummy, VXLAN and some virtual devices never leave operstate UNKNOWN even when they
  // work; for them the flags are the only signal (the same rule `ip link` users apply by eye).
  if (link.operstate === 'up') return true;
  return link.operstate === 'unknown' && link.adminUp && link.lowerUp;
}

/** IF_OPER_* from linux/if.h, indexed by value. */
const OPERSTATES = ['unknown', 'notpresent', 'down', 'lowerlayerdown', 'testing', 'dormant', 'up'];

export type ReadLinks = () => Promise<Map<string, LinkState>>;

/** Dumps all links of the current network namespace with one RTM_GETLINK request. */
export const readLinksNetlink: ReadLinks = async () => {
  const socket = createRtNetlink();
  try {
    const links = await socket.getLinks();
    const out = new Map<string, LinkState>();
    for (const link of links) {
      const name = link.attrs.ifname;
      if (!name) continue;
      out.set(name, {
        name,
        operstate: OPERSTATES[link.attrs.operstate ?? 0] ?? `state-${link.attrs.operstate}`,
        adminUp: link.data.flags?.up === true,
        lowerUp: link.data.flags?.lowerUp === true,
      });
    }
    return out;
  } finally {
    socket.socket.close();
  }
};

export type TcpOutcome = 'connected' | 'refused' | 'timeout' | 'error';

export interface TcpAttempt {
  outcome: TcpOutcome;
  /** Error code or a short explanation, for the check's detail. */
  detail: string;
}

/** One TCP connection attempt: resolves (never rejects) with what happened. */
export function probeTcp(host: string, port: number, timeoutMs: number): Promise<TcpAttempt> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let settled = false;
    const done = (attempt: TcpAttempt): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(attempt);
    };
    const timer = setTimeout(
      () => done({ outcome: 'timeout', detail: `no answer within ${timeoutMs} ms` }),
      timeoutMs,
    );
    socket.once('connect', () => done({ outcome: 'connected', detail: 'connected' }));
    socket.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED') done({ outcome: 'refused', detail: 'connection refused' });
      else done({ outcome: 'error', detail: err.code ?? err.message });
    });
  });
}

/** True when `err` or one of its causes is a refused connection. */
export function isConnectionRefused(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    if ((e as NodeJS.ErrnoException).code === 'ECONNREFUSED') return true;
    // AggregateError from happy-eyeballs connects carries the per-address errors.
    if (e instanceof AggregateError && e.errors.some((inner) => isConnectionRefused(inner))) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
