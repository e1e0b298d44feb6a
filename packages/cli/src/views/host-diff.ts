/**
 * `kubectl nodenet diff --host`: what a change makes each node's agent do (pure). Each node's spec
 * on both sides comes from `nodeConfigSpec` (as for `diff`), its host plan from the agent's own
 * code (`@nodenet/agent/host-plan`: the netlink diff and the FRR renderer the agent runs), computed
 * once per distinct spec pair; nodes with the same plan are printed once.
 */
import { nodeConfigSpec, type NetworkConfig } from '@nodenet/api';
import {
  countsText,
  fleetHostPlan,
  type ClassCounts,
  type DisruptionClass,
  type FleetPlan,
  type FrrTemplate,
  type HostPlanSettings,
  type HostSpec,
  type PlanGroup,
  type ProtectedAddress,
} from '@nodenet/agent/host-plan';
import type { DiffSide } from './diff.js';

export interface HostDiffNode {
  name: string;
  labels: Record<string, string>;
  /** The node's InternalIP addresses: a change must not take them. */
  addresses: string[];
}

export interface HostDiffInput {
  from: DiffSide | undefined;
  to: DiffSide;
  nodes: readonly HostDiffNode[];
  /** For nodes no AgentConfiguration selects; for every node with `templateOverride` (`--frr-template`). */
  template: FrrTemplate | string;
  /** With `templateOverride`: the file's name, for the header. */
  templateLabel?: string;
  templateOverride?: boolean;
  settings: HostPlanSettings;
  protectedAddresses: readonly ProtectedAddress[];
}

export interface HostDiffResult {
  from?: string;
  to: string;
  template: string;
  disruption: DisruptionClass;
  counts: ClassCounts;
  groups: {
    nodes: string[];
    disruption: DisruptionClass;
    warnings: string[];
    error?: string;
    netlink: {
      action: string;
      device: string;
      kind?: string;
      attribute?: string;
      from?: string;
      to?: string;
      class: DisruptionClass;
    }[];
    upAfterFrr: string[];
    frr: PlanGroup['plan']['frr'];
  }[];
  /** The printed plans (not in -o json: the fields above say the same). */
  fleet: FleetPlan;
}

const EMPTY: NetworkConfig = { vrf: [], layer2: [], routingTable: [] };

export function hostDiff(input: HostDiffInput): HostDiffResult {
  const from = input.from ?? { label: '(nothing)', config: EMPTY, hash: '' };
  const nodes = input.nodes.map((n) => ({
    node: n.name,
    previous: nodeConfigSpec(from, n.labels, n.name),
    next: nodeConfigSpec(input.to, n.labels, n.name),
    protectedAddresses: n.addresses.map((address) => ({ address, what: `${n.name}'s InternalIP` })),
  }));
  const fleet = fleetHostPlan({
    template: input.template,
    ...(input.templateOverride === true ? { templateOverride: true } : {}),
    settings: input.settings,
    protectedAddresses: input.protectedAddresses,
    nodes,
  });
  const override = input.templateOverride === true ? input.templateLabel : undefined;
  return {
    ...(input.from ? { from: input.from.label } : {}),
    to: input.to.label,
    template: override ?? templateLabel(nodes),
    disruption: fleet.disruption,
    counts: fleet.counts,
    groups: fleet.groups.map((g) => ({
      nodes: g.nodes,
      disruption: g.plan.disruption,
      warnings: g.plan.warnings,
      ...(g.plan.error !== undefined ? { error: g.plan.error } : {}),
      netlink: g.plan.netlink.map(({ operation: _op, ...step }) => step),
      upAfterFrr: g.plan.upAfterFrr,
      frr: g.plan.frr,
    })),
    fleet,
  };
}

/** Which templates the plans rendered with: the nodes' AgentConfigurations (from the cluster), or the stand-in. */
function templateLabel(nodes: readonly { previous: HostSpec; next: HostSpec }[]): string {
  const own = nodes.filter((n) => n.next.agent !== undefined || n.previous.agent !== undefined).length;
  const standIn = "nodenet's sections only";
  if (own === 0) return `${standIn}; --frr-template FILE for the nodes' own`;
  const fromCluster = "each node's AgentConfiguration, from the cluster";
  return own === nodes.length
    ? fromCluster
    : `${fromCluster}; ${standIn} for the ${nodes.length - own} node(s) none selects`;
}

/** Node names listed in a group's header before "…". */
const LISTED = 8;

export function renderHostDiff(r: HostDiffResult): string {
  const out: string[] = [`Host plan: ${r.from ?? '(nothing)'} → ${r.to} (FRR template: ${r.template})`, ''];
  for (const g of r.fleet.groups) {
    const first = g.nodes[0]!;
    if (g.nodes.length === 1) out.push(`${first}  [${g.plan.disruption}]`);
    else {
      const rest = g.nodes.slice(1);
      const listed =
        rest.slice(0, LISTED).join(', ') + (rest.length > LISTED ? `, … (${rest.length - LISTED} more)` : '');
      out.push(`${g.nodes.length} nodes: same plan as ${first}  [${g.plan.disruption}]`, `  also: ${listed}`);
    }
    out.push(...g.lines.map((l) => `  ${l}`), '');
  }
  if (r.fleet.groups.length === 0) out.push('No node changes.', '');
  const warned = r.groups.filter((g) => g.warnings.length > 0).reduce((n, g) => n + g.nodes.length, 0);
  out.push(
    countsText(r.counts, r.disruption) +
      (warned > 0 ? `; ${warned} take an address they must keep reaching (!): do not apply as it is` : ''),
  );
  return out.join('\n') + '\n';
}

/** Whether a plan needs a person's look before it rolls: a refused spec or a protected address taken. */
export const needsAttention = (r: HostDiffResult): boolean =>
  r.groups.some((g) => g.warnings.length > 0 || g.error !== undefined);
