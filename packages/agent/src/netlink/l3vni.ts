/**
 * L3 VNI bring-up order, the netlink half (pure). A VRF's L3 VNI bridge and VXLAN must not come up
 * before FRR knows the VNI as the VRF's L3 VNI: zebra would otherwise take it for an L2 VNI
 * (flooding, wrong router MAC). So whenever one of them would come up in this apply (created,
 * recreated, or found down), it is created or left *down* and reported as a gate; the agent brings it
 * up after FRR's reload, once FRR shows the VNI as that VRF's L3 VNI (../l3vni-order.ts).
 */
import { deviceNames } from '@nodenet/api';
import type { Operation } from './model.js';

export interface L3VniGate {
  /** VRF name in the spec. */
  vrf: string;
  /** The VRF's kernel device, which is also the VRF's name in FRR. */
  vrfDevice: string;
  vni: number;
  /** The VRF's VXLAN device, the one FRR must show for the VNI. */
  vxlan: string;
  /** Devices held down until FRR shows the VNI as the VRF's L3 VNI. */
  devices: string[];
}

/** The L3 VNIs of a spec: one per VRF (several VRFRouteConfigurations may name the same VRF). */
export function l3Vnis(vrfs: readonly { vrf: string; vni: number }[]): { vrf: string; vni: number }[] {
  const seen = new Map<string, { vrf: string; vni: number }>();
  for (const v of vrfs) if (!seen.has(v.vrf)) seen.set(v.vrf, { vrf: v.vrf, vni: v.vni });
  return [...seen.values()];
}

/**
 * Rewrites `ops` so that the L3 VNI devices that would come up are created down and their `up`
 * steps withheld; returns the gates the agent must pass to bring them up.
 */
export function holdL3Vnis(
  ops: readonly Operation[],
  vnis: readonly { vrf: string; vni: number }[],
): { operations: Operation[]; gates: L3VniGate[] } {
  const owner = new Map<string, { vrf: string; vni: number }>();
  for (const v of vnis) {
    owner.set(deviceNames.vrfBridge(v.vrf), v);
    owner.set(deviceNames.vrfVxlan(v.vrf), v);
  }
  const held = new Map<string, Set<string>>();
  const hold = (device: string): void => {
    const v = owner.get(device)!;
    const set = held.get(v.vrf) ?? new Set<string>();
    set.add(device);
    held.set(v.vrf, set);
  };
  const operations: Operation[] = [];
  for (const op of ops) {
    if ((op.op === 'create' || op.op === 'recreate') && op.device.up && owner.has(op.device.name)) {
      hold(op.device.name);
      operations.push({ ...op, device: { ...op.device, up: false } });
    } else if (op.op === 'up' && owner.has(op.device)) {
      hold(op.device);
    } else {
      operations.push(op);
    }
  }
  const gates = vnis
    .filter((v) => held.has(v.vrf))
    .map((v) => ({
      vrf: v.vrf,
      vrfDevice: deviceNames.vrf(v.vrf),
      vni: v.vni,
      vxlan: deviceNames.vrfVxlan(v.vrf),
      // Bridge first: the VXLAN is its port.
      devices: [deviceNames.vrfBridge(v.vrf), deviceNames.vrfVxlan(v.vrf)].filter((d) =>
        held.get(v.vrf)!.has(d),
      ),
    }));
  return { operations, gates };
}
