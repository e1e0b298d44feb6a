/**
 * Detects, before any change, whether the running kernel can create the device types a desired
 * state needs. Each kind is probed with a create request the kernel must refuse (an MTU of 1 is below
 * every device's minimum): a kernel without the driver answers EOPNOTSUPP ("Unknown device type"),
 * one with it fails validation (EINVAL) without creating anything.
 */
import { randomBytes } from 'node:crypto';
import netlink from 'netlink';
import type { RtNetlinkSocket } from 'netlink';
import { errnoOf } from './apply.js';
import { encodeLinkInfo, toBuffer } from './codec.js';
import { KernelSupportError } from './errors.js';

const { FlagsNew, ifla } = netlink;

export type ProbedKind = 'vrf' | 'bridge' | 'vxlan' | 'veth' | 'macvlan' | 'vlan' | 'dummy';

/** The kernel option behind each device type, for the error message. */
export const KERNEL_OPTION: Record<ProbedKind, string> = {
  vrf: 'CONFIG_NET_VRF',
  bridge: 'CONFIG_BRIDGE',
  vxlan: 'CONFIG_VXLAN',
  veth: 'CONFIG_VETH',
  macvlan: 'CONFIG_MACVLAN',
  vlan: 'CONFIG_VLAN_8021Q',
  dummy: 'CONFIG_DUMMY',
};

const LABEL: Record<ProbedKind, string> = {
  vrf: 'VRF',
  bridge: 'bridge',
  vxlan: 'VXLAN',
  veth: 'veth',
  macvlan: 'macvlan',
  vlan: '802.1Q VLAN',
  dummy: 'dummy',
};

/** Whether the kernel knows this device type. */
export async function probeKind(socket: RtNetlinkSocket, kind: ProbedKind): Promise<boolean> {
  const name = `nnprobe${randomBytes(4).toString('hex')}`;
  const linkinfo =
    kind === 'vlan' || kind === 'dummy'
      ? toBuffer(ifla.formatInfo({ kind }))
      : encodeLinkInfo({
          kind,
          ...(kind === 'vrf' ? { vrfTable: 1 } : {}),
          ...(kind === 'vxlan' ? { vxlan: { vni: 1, local: '127.0.0.1', port: 4789, learning: false } } : {}),
          ...(kind === 'veth' ? { veth: { peer: `${name}p`.slice(0, 15), peerMtu: 1 } } : {}),
          ...(kind === 'macvlan' ? { macvlan: { mode: 'bridge' as const } } : {}),
        });
  try {
    await socket.newLink(
      {},
      { ifname: name, mtu: 1, linkinfo },
      { flags: FlagsNew.CREATE | FlagsNew.EXCL, timeout: 10_000 },
    );
  } catch (err) {
    return errnoOf(err) !== 'EOPNOTSUPP';
  }
  // Accepted after all: the type exists; remove the probe.
  const links = await socket.getLinks();
  const probe = links.find((l) => l.attrs.ifname === name);
  if (probe?.data.index) await socket.delLink({ index: probe.data.index }).catch(() => undefined);
  return true;
}

/** The kinds the kernel lacks, each with its kernel option. */
export async function missingKinds(
  socket: RtNetlinkSocket,
  kinds: Iterable<ProbedKind>,
): Promise<{ kind: ProbedKind; config: string }[]> {
  const missing: { kind: ProbedKind; config: string }[] = [];
  for (const kind of new Set(kinds)) {
    if (!(await probeKind(socket, kind))) missing.push({ kind, config: KERNEL_OPTION[kind] });
  }
  return missing;
}

/** Throws KernelSupportError ("kernel lacks VRF devices (CONFIG_NET_VRF)") when a kind is missing. */
export async function assertKernelSupport(
  socket: RtNetlinkSocket,
  kinds: Iterable<ProbedKind>,
): Promise<void> {
  const missing = await missingKinds(socket, kinds);
  if (missing.length > 0) {
    throw new KernelSupportError(missing.map((m) => ({ kind: LABEL[m.kind], config: m.config })));
  }
}
