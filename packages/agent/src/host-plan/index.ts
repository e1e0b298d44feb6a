/**
 * The agent's host plan, a second public entry of the package (`@nodenet/agent/host-plan`): pure
 * code only, none of the agent's I/O (no netlink socket, no native addon, no FRR process), so that
 * `kubectl nodenet diff --host` runs the agent's own renderer and diff on any machine. Also
 * re-exported by the main entry (src/index.ts).
 */
export {
  atLeast,
  DISRUPTION_CLASSES,
  frrChangeClass,
  operationClass,
  worstClass,
  type DisruptionClass,
} from './disruption.js';
export { frrStepText, hostPlan } from './host-plan.js';
export type {
  FrrApplyPath,
  FrrStep,
  HostPlan,
  HostPlanInput,
  HostPlanSettings,
  HostSpec,
  NetlinkAction,
  NetlinkStep,
  ProtectedAddress,
} from './plan-types.js';
export { hostPlanLines, netlinkStepText } from './plan-text.js';
export {
  countsText,
  fleetHostPlan,
  type ClassCounts,
  type FleetPlan,
  type FleetPlanInput,
  type NodeSpecPair,
  type PlanGroup,
} from './fleet-plan.js';
export { PREVIEW_SETTINGS, SECTIONS_TEMPLATE_TEXT, sectionsTemplate } from './preview.js';
export { parseTemplate, type FrrTemplate } from '../frr/render/index.js';
export type { FrrNodeSettings } from '../frr/render/index.js';
export type { HostSettings, Operation } from '../netlink/index.js';
export { describeOperation } from '../netlink/index.js';
