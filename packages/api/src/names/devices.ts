/**
 * Host device names, defined once so that validation (name length), the netlink driver and the
 * FRR renderer agree. Every device the agent creates has one of these prefixes, but ownership goes
 * by the agent's mark (interface alias `nodenet`), not by name: an unmarked `vx.7777` is left alone
 * (docs/host-devices.md).
 */
export const deviceNames = {
  /** VRF device of a VRFRouteConfiguration's VRF. */
  vrf: (vrf: string): string => `vr.${vrf}`,
  /** Bridge of a VRF's L3 VNI. */
  vrfBridge: (vrf: string): string => `br.${vrf}`,
  /** VXLAN of a VRF's L3 VNI. */
  vrfVxlan: (vrf: string): string => `vx.${vrf}`,
  /** veth end inside the default VRF, towards the VRF. */
  vrfToDefault: (vrf: string): string => `vd.${vrf}`,
  /** veth end inside the VRF, towards the default VRF. */
  defaultToVrf: (vrf: string): string => `dv.${vrf}`,
  /** Bridge of a Layer-2 network. */
  l2Bridge: (vlan: number): string => `l2.${vlan}`,
  /** VXLAN of a Layer-2 network's VNI. */
  l2Vxlan: (vni: number): string => `vx.${vni}`,
  /** veth end attached to a Layer-2 bridge, parent of its macvlan. */
  l2MacvlanPort: (vlan: number): string => `vm.${vlan}`,
  /** macvlan for host workloads on a Layer-2 network. */
  l2Macvlan: (vlan: number): string => `mv.${vlan}`,
  /** VRF device of a RoutingTable. */
  routingTable: (tableId: number): string => `taas.${tableId}`,
} as const;

/** Prefixes of every device name nodenet gives; the agent reads unmarked devices with them as look-alikes. */
export const MANAGED_DEVICE_PREFIXES = [
  'vr.',
  'br.',
  'vx.',
  'vd.',
  'dv.',
  'l2.',
  'vm.',
  'mv.',
  'taas.',
] as const;

export const isManagedDevice = (name: string): boolean =>
  MANAGED_DEVICE_PREFIXES.some((p) => name.startsWith(p));

/**
 * Name of the revision with this number and hash: `rev-<number, zero-padded to 6 digits>-<first 10
 * hex of hash>`, so that `kubectl get ncr` (sorted by name) lists revisions in number order.
 */
export const revisionName = (number: number, hash: string): string =>
  `rev-${String(number).padStart(REVISION_NUMBER_DIGITS, '0')}-${shortHash(hash)}`;

/** Length of a hash shown to people: the revision name's suffix, messages, logs, CLI columns. */
export const SHORT_HASH_LENGTH = 10;

/** The first SHORT_HASH_LENGTH characters of a content hash, as revision names carry them. */
export const shortHash = (hash: string): string => hash.slice(0, SHORT_HASH_LENGTH);
/** Digits of the number in a revision name (numbers above 999999 still work, unpadded). */
export const REVISION_NUMBER_DIGITS = 6;
