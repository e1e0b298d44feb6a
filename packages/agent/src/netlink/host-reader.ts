/**
 * The host as the driver reads it, re-read only when the kernel reported a change. A converged
 * re-apply (every resync) would otherwise dump every link and address of the node — most of its
 * cost, in the kernel as much as in the agent (issue #26).
 *
 * A watch socket joins the link and address notification groups before the first dump; every
 * notification that differs from the snapshot (notification.ts), or a lost one (ENOBUFS), makes
 * it stale. Before a snapshot is reused, one small request on the watch socket acts as a fence:
 * the kernel queues its answer behind the notifications already queued, so once it is back every
 * change made before the read was seen.
 * The driver forgets the snapshot when it changes the host itself or a plan fails (a refused
 * device may be handed over next, possibly while down: see MAX_SNAPSHOT_AGE_MS).
 */
import netlink from 'netlink';
import type { NetlinkMessage, NetlinkSocket, RtNetlinkSocket } from 'netlink';
import { changesSnapshot } from './notification.js';
import { readHost, type HostSnapshot } from './read.js';

const { createNetlink } = netlink;

const NETLINK_ROUTE = 0;
const RTM_GETLINK = 18;
const RTNLGRP_LINK = 1;
const RTNLGRP_IPV4_IFADDR = 5;
const RTNLGRP_IPV6_IFADDR = 9;
/**
 * The kernel does not announce every change: an alias or VXLAN setting changed on a device that is
 * down goes unannounced (netdev_state_change notifies only for devices that are up). A snapshot
 * this old is read again whatever the notifications said, which bounds how long such a change
 * (a device handed over to nodenet while down) goes unseen.
 */
const MAX_SNAPSHOT_AGE_MS = 5 * 60_000;
/** The loopback device: index 1 in every network namespace, the fence's harmless target. */
const LOOPBACK_INDEX = 1;

export class HostReader {
  private watch: NetlinkSocket | undefined;
  /** Counts the notifications seen (and watch failures): a snapshot is current while it is unchanged. */
  private changes = 0;
  private cached: { snapshot: HostSnapshot; changes: number; at: number } | undefined;

  constructor(private readonly dumps: () => RtNetlinkSocket) {}

  /** The host now: the last snapshot when the kernel reported no change since it was taken, else a fresh read. */
  async read(): Promise<HostSnapshot> {
    const watch = this.watching();
    const cached = this.cached;
    if (
      cached &&
      watch &&
      performance.now() - cached.at < MAX_SNAPSHOT_AGE_MS &&
      (await this.fenced(watch))
    ) {
      if (this.cached === cached && cached.changes === this.changes) return cached.snapshot;
    }
    // While the dump runs every notification counts: the dump may have read a link before it.
    this.cached = undefined;
    const changes = this.changes;
    const at = performance.now();
    const snapshot = await readHost(this.dumps());
    // A change during the dump counts after it: the next read fences and finds the count moved.
    this.cached = watch ? { snapshot, changes, at } : undefined;
    return snapshot;
  }

  /**
   * Forgets the snapshot and stops watching until the next read: the driver is about to change the
   * host, and the notifications of its own thousands of changes would only cost CPU.
   */
  forget(): void {
    if (this.watch) this.dropWatch(this.watch);
    this.cached = undefined;
  }

  close(): void {
    this.forget();
  }

  /** The watch socket, joined to the notification groups; undefined when it cannot be opened (then every read dumps). */
  private watching(): NetlinkSocket | undefined {
    if (this.watch) return this.watch;
    try {
      const watch = createNetlink(NETLINK_ROUTE, { recvBufferSize: 1 << 20, sendBufferSize: 64 << 10 });
      for (const group of [RTNLGRP_LINK, RTNLGRP_IPV4_IFADDR, RTNLGRP_IPV6_IFADDR])
        watch.addMembership(group);
      // The fence's trailing ack comes back addressed to this socket; a notification never is (it
      // carries the port of whoever made the change, or 0 for the kernel's own).
      const own = watch.address().port;
      const count = (msg: NetlinkMessage | NetlinkMessage[]): void => {
        const snapshot = this.cached?.snapshot;
        const changes = (m: NetlinkMessage): boolean =>
          m.port !== own && (!snapshot || changesSnapshot(m, snapshot));
        if ((Array.isArray(msg) ? msg : [msg]).some(changes)) this.changes++;
      };
      watch.on('message', count);
      // An unparsable datagram may be a notification: counted.
      watch.on('invalid', () => this.changes++);
      // ENOBUFS: notifications were lost. The socket is dropped; the next read opens another and dumps.
      watch.on('error', () => this.dropWatch(watch));
      this.watch = watch;
      this.cached = undefined;
      return watch;
    } catch (err) {
      console.warn(`netlink driver: no change notifications, every read dumps: ${(err as Error).message}`);
      return undefined;
    }
  }

  private dropWatch(watch: NetlinkSocket): void {
    this.changes++;
    this.cached = undefined;
    if (this.watch !== watch) return;
    this.watch = undefined;
    try {
      watch.close();
    } catch {
      // already closed by the binding after a poll error
    }
  }

  /** Waits until every notification queued before now was seen; false when the fence failed. */
  private async fenced(watch: NetlinkSocket): Promise<boolean> {
    const request = Buffer.alloc(16);
    request.writeInt32LE(LOOPBACK_INDEX, 4);
    try {
      await watch.request(RTM_GETLINK, request, { timeout: 5_000 });
      return true;
    } catch {
      this.changes++;
      return false;
    }
  }
}
