/** What bench/frr-vm.ts hands the idle-agent guest (agent-idle-vm-guest.ts), and the guard it sets. */
import type { VrfEntry } from '@nodenet/api';

/** Set by frr-vm.ts in the guest only: the guest reconfigures the machine it runs on. */
export const IDLE_GUEST_ENV = 'NODENET_IDLE_VM_GUEST';

export interface IdleInput {
  template: string;
  settings: { asn: number; routerId: string; vrfRouterId: string };
  vrf: VrfEntry[];
  /** How long the CPU time is measured, once the agent settled. */
  seconds: number;
}
