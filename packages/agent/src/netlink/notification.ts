/**
 * Whether a link or address notification changes what the driver read (pure). Right after an apply
 * the kernel announces its own follow-ups for a while (IPv6 link-local addresses and their DAD,
 * carrier and IPv6 link state of every new device); none of them is in the host model, and each
 * would otherwise send the next converged re-apply back to a full dump.
 */
import { isManagedDevice } from '@nodenet/api';
import { OWNER_ALIAS, type Device } from './model.js';
import { linkDevice, parseAddress, parseLink, type HostSnapshot } from './read.js';

const RTM_NEWLINK = 16;
const RTM_DELLINK = 17;
const RTM_NEWADDR = 20;
const RTM_DELADDR = 21;
const AF_UNSPEC = 0;
const AF_INET6 = 10;

/** One notification as the watch socket receives it. */
export interface Notification {
  type: number;
  data: Buffer;
}

export function changesSnapshot(msg: Notification, snapshot: HostSnapshot): boolean {
  try {
    switch (msg.type) {
      case RTM_NEWLINK:
      case RTM_DELLINK:
        return linkChanges(msg, snapshot);
      case RTM_NEWADDR:
      case RTM_DELADDR:
        return addressChanges(msg, snapshot);
      default:
        return true;
    }
  } catch {
    return true; // a message this code cannot read may be a change
  }
}

function linkChanges(msg: Notification, snapshot: HostSnapshot): boolean {
  const family = msg.data.readUInt8(0);
  // IPv6's per-link state (router advertisements, the token): not modelled.
  if (family === AF_INET6) return false;
  // Other families (a bridge port's state) may carry a modelled port option: counted.
  if (family !== AF_UNSPEC) return true;
  const link = parseLink(msg.data);
  const name = link.name;
  if (msg.type === RTM_DELLINK || name === undefined) return true;
  if (snapshot.nameByIndex.get(link.index) !== name) return true;
  if (link.mtu !== undefined && snapshot.mtuByName.get(name) !== link.mtu) return true;
  const owned = link.alias === OWNER_ALIAS;
  const before = (owned ? snapshot.devices : snapshot.unowned).get(name);
  if (!before) return owned || isManagedDevice(name);
  return !sameLink(before, linkDevice(link, name, snapshot));
}

/** The device as read, apart from its addresses (an address message announces those). */
const sameLink = (before: Device, now: Device): boolean =>
  JSON.stringify({ ...before, addresses: [] }) === JSON.stringify(now);

function addressChanges(msg: Notification, snapshot: HostSnapshot): boolean {
  const { index, cidr } = parseAddress(msg.data);
  if (cidr === undefined) return false;
  const name = snapshot.nameByIndex.get(index);
  if (name === undefined) return true;
  const device = snapshot.devices.get(name) ?? snapshot.unowned.get(name);
  if (!device) return false;
  return device.addresses.includes(cidr) !== (msg.type === RTM_NEWADDR);
}
