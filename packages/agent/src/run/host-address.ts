/**
 * Finds the VTEP address: the first global IPv4 address of the `--vtep-interface` device, read over
 * netlink in the agent's network namespace.
 */
import { createRtNetlink } from 'netlink';
import { OptionError } from '../errors.js';

export async function firstIpv4Address(ifname: string): Promise<string> {
  const socket = createRtNetlink();
  try {
    const links = await socket.getLinks();
    const link = links.find((l) => l.attrs.ifname === ifname);
    if (!link) throw new OptionError('--vtep-interface', ifname, 'no such network interface');
    const addresses = await socket.getAddresses();
    for (const a of addresses) {
      // family 2 = AF_INET; scope 0 = RT_SCOPE_UNIVERSE (skip host/link-scoped addresses)
      if (a.data.index !== link.data.index || a.data.family !== 2 || (a.data.scope ?? 0) !== 0) continue;
      const bytes = a.attrs.local ?? a.attrs.address;
      if (bytes && bytes.length === 4) return [...bytes].join('.');
    }
    throw new OptionError('--vtep-interface', ifname, 'has no global IPv4 address (set --vtep-address)');
  } finally {
    socket.socket.close();
  }
}
