// The host plan's data: what it reads (a spec, the node's settings) and what it returns (steps,
// each with its disruption class). Apart from the planner so the step builders share it.
import type { NodeConfigSpec } from '@nodenet/api';
import type { FrrNodeSettings, FrrTemplate } from '../frr/render/index.js';
import type { DeviceKind, HostSettings, Operation } from '../netlink/index.js';
import type { DisruptionClass } from './disruption.js';

/** The parts of a NodeConfig spec the host plan reads (the revision hash is not one). */
export type HostSpec = Pick<NodeConfigSpec, 'vrf' | 'layer2' | 'routingTable' | 'bgpPeering' | 'agent'>;

/** The node's own values the agent takes from its settings, not from the NodeConfig. */
export interface HostPlanSettings {
  host: HostSettings;
  frr: FrrNodeSettings;
}

/** An address the node must keep reaching (the API server, its own underlay address), with what it is. */
export interface ProtectedAddress {
  address: string;
  what: string;
}

export interface HostPlanInput {
  /** The spec the host is converged on; undefined: a host nodenet has configured nothing on. */
  previous: HostSpec | undefined;
  next: HostSpec;
  /**
   * The FRR template a side renders with when its spec carries none (no AgentConfiguration selects
   * the node: its agent's bootstrap template), its text or parsed.
   */
  template: FrrTemplate | string;
  /** `template` for both sides, whatever the specs carry (the plugin's `--frr-template`). */
  templateOverride?: boolean;
  settings: HostPlanSettings;
  protectedAddresses?: readonly ProtectedAddress[];
}

export type NetlinkAction = 'create' | 'change' | 'recreate' | 'delete';

export interface NetlinkStep {
  action: NetlinkAction;
  device: string;
  kind?: DeviceKind;
  /** What changes (`mtu`, `address`, `VNI`, …); for a create, the device's settings. */
  attribute?: string;
  from?: string;
  to?: string;
  class: DisruptionClass;
  /** The agent's own operation, as its apply runs it. */
  operation: Operation;
}

export interface FrrStep {
  change: 'add' | 'remove';
  /** The context lines, from the top level down (`router bgp 65000 vrf vr.red`, `address-family …`). */
  context: string[];
  /** The line inside the context; undefined: the whole context. */
  line?: string;
  /** For a whole context: the lines in it (its sub-contexts are steps of their own). */
  lines?: string[];
  class: DisruptionClass;
}

/** How the agent applies the FRR difference: nothing, vtysh commands (fast path), or frr-reload.py. */
export type FrrApplyPath = 'unchanged' | 'fast-path' | 'frr-reload.py';

export interface HostPlan {
  netlink: NetlinkStep[];
  /** L3 VNI devices the apply creates down and brings up once FRR shows their VNI as L3 (l3vni.ts). */
  upAfterFrr: string[];
  frr: { path: FrrApplyPath; steps: FrrStep[] };
  /** Addresses the plan adds that take an address the node must keep reaching. */
  warnings: string[];
  /** The worst class of its steps. */
  disruption: DisruptionClass;
  /** Set when the agent would refuse `next` (it then keeps the previous config): why. */
  error?: string;
}
