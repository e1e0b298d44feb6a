/**
 * A host plan as text (pure): what `kubectl nodenet diff --host` prints per node and what the golden
 * tests fix. One line per step, its class at the end; the worst class first.
 */
import { frrStepText } from './host-plan.js';
import type { HostPlan, NetlinkStep } from './plan-types.js';

/** The lines of one node's plan, indented by `indent`. */
export function hostPlanLines(plan: HostPlan, indent = ''): string[] {
  const out: string[] = [];
  const at = (s: string): void => void out.push(indent + s);
  if (plan.error !== undefined) {
    at(`refused by the agent: ${plan.error}`);
    return out;
  }
  for (const w of plan.warnings) at(`! ${w}`);
  if (plan.netlink.length === 0 && plan.frr.steps.length === 0) {
    at('no change on the host');
    return out;
  }
  if (plan.netlink.length > 0) {
    at('netlink:');
    for (const s of plan.netlink) at(`  ${netlinkStepText(s)}  [${s.class}]`);
    if (plan.upAfterFrr.length > 0) at(`  then, once FRR shows the L3 VNI: up ${plan.upAfterFrr.join(', ')}`);
  }
  if (plan.frr.steps.length > 0) {
    at(`frr (${plan.frr.path}):`);
    for (const s of plan.frr.steps) at(`  ${frrStepText(s)}  [${s.class}]`);
  }
  return out;
}

/** `create bridge l2.200: mtu 1500, up`, `change l2.100 mtu: 1500 → 9000`, `recreate vxlan vx.red VNI: 100 → 200`. */
export function netlinkStepText(s: NetlinkStep): string {
  const what = `${s.action} ${s.kind ? `${s.kind} ` : ''}${s.device}`;
  if (s.action === 'create') return `${what}: ${s.to}`;
  if (s.action === 'delete') return what;
  if (s.from === undefined) return `${what}: ${s.attribute}`;
  if (s.attribute === 'address')
    return s.to === '-' ? `${what}: address - ${s.from}` : `${what}: address + ${s.to}`;
  return `${what}: ${s.attribute} ${s.from} → ${s.to}`;
}
