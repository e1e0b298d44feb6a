/**
 * The host plans of many nodes (pure): one `hostPlan` per distinct (previous, next) spec pair, since
 * most nodes of a fleet share one, and the nodes grouped by identical plan, so that a person reads
 * each plan once ("37 nodes: same plan as node-001").
 */
import { type FrrTemplate, parseTemplate } from '../frr/render/index.js';
import { DISRUPTION_CLASSES, worstClass, type DisruptionClass } from './disruption.js';
import { hostPlan } from './host-plan.js';
import type { HostPlan, HostPlanSettings, HostSpec, ProtectedAddress } from './plan-types.js';
import { hostPlanLines } from './plan-text.js';

export interface NodeSpecPair {
  node: string;
  previous: HostSpec | undefined;
  next: HostSpec;
  /** This node's own addresses to keep reaching (its InternalIP), on top of the fleet's. */
  protectedAddresses?: readonly ProtectedAddress[];
}

export interface FleetPlanInput {
  nodes: readonly NodeSpecPair[];
  /** For a side whose spec carries no template, or for both with `templateOverride` (host-plan.ts). */
  template: FrrTemplate | string;
  templateOverride?: boolean;
  settings: HostPlanSettings;
  /** Addresses every node must keep reaching (the API server). */
  protectedAddresses?: readonly ProtectedAddress[];
}

export interface PlanGroup {
  /** The nodes with this plan, sorted; the first one names the group. */
  nodes: string[];
  plan: HostPlan;
  /** `hostPlanLines(plan)`. */
  lines: string[];
}

/** Nodes per class; `unchanged` counts the nodes whose host the change leaves alone. */
export type ClassCounts = Record<DisruptionClass | 'unchanged' | 'refused', number>;

export interface FleetPlan {
  /** Groups with a change, worst class first, then by size (largest first), then by first node. */
  groups: PlanGroup[];
  /** Nodes per class. */
  counts: ClassCounts;
  /** The worst class of any node. */
  disruption: DisruptionClass;
  /** Distinct spec pairs planned (the rest were looked up). */
  distinctPairs: number;
}

const RANK = new Map(DISRUPTION_CLASSES.map((c, i) => [c, i]));

/**
 * Keys of spec pairs, by the identity of their entries: the specs a revision hands its nodes share
 * their entry objects (@nodenet/api `nodeConfigSpec`), so equal ids mean equal specs, found without
 * reading the entries' lists (5,000 nodes × two specs of thousands of prefixes). Entries equal in
 * content but not in identity only cost a plan of their own.
 */
class PairKeys {
  private readonly ids = new WeakMap<object, number>();
  private next = 0;

  of(p: NodeSpecPair): string {
    const guarded = p.protectedAddresses?.map((a) => `${a.address}=${a.what}`).join(',') ?? '';
    return `${this.spec(p.previous)}>${this.spec(p.next)}>${guarded}`;
  }

  private spec(s: HostSpec | undefined): string {
    if (!s) return '-';
    return [s.vrf, s.layer2, s.routingTable, s.bgpPeering ?? [], s.agent ? [s.agent] : []]
      .map((list) => this.list(list))
      .join('|');
  }

  private list(entries: readonly object[]): string {
    let out = '';
    for (const e of entries) {
      let id = this.ids.get(e);
      if (id === undefined) this.ids.set(e, (id = this.next++));
      out += `${id},`;
    }
    return out;
  }
}

export function fleetHostPlan(input: FleetPlanInput): FleetPlan {
  const template = typeof input.template === 'string' ? parseTemplate(input.template) : input.template;
  const keys = new PairKeys();
  const byPair = new Map<string, { plan: HostPlan; lines: string[] }>();
  const byText = new Map<string, PlanGroup>();
  const counts: ClassCounts = {
    unchanged: 0,
    refused: 0,
    none: 0,
    refilter: 0,
    'session-reset': 0,
    'l2-interruption': 0,
    'vrf-rebuild': 0,
  };
  for (const n of [...input.nodes].sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0))) {
    const key = keys.of(n);
    let planned = byPair.get(key);
    if (!planned) {
      const plan = hostPlan({
        previous: n.previous,
        next: n.next,
        template,
        ...(input.templateOverride === true ? { templateOverride: true } : {}),
        settings: input.settings,
        protectedAddresses: [...(input.protectedAddresses ?? []), ...(n.protectedAddresses ?? [])],
      });
      planned = { plan, lines: hostPlanLines(plan) };
      byPair.set(key, planned);
    }
    const { plan, lines } = planned;
    if (plan.error !== undefined) counts.refused++;
    else if (plan.netlink.length + plan.frr.steps.length === 0) {
      counts.unchanged++;
      continue;
    } else counts[plan.disruption]++;
    const text = lines.join('\n');
    const group = byText.get(text);
    if (group) group.nodes.push(n.node);
    else byText.set(text, { nodes: [n.node], plan, lines });
  }
  const groups = [...byText.values()].sort(
    (a, b) =>
      RANK.get(b.plan.disruption)! - RANK.get(a.plan.disruption)! ||
      b.nodes.length - a.nodes.length ||
      (a.nodes[0]! < b.nodes[0]! ? -1 : 1),
  );
  return {
    groups,
    counts,
    disruption: worstClass(groups.map((g) => g.plan.disruption)),
    distinctPairs: byPair.size,
  };
}

/** `5000 nodes: 4963 unchanged, 37 l2-interruption (worst: l2-interruption)`. */
export function countsText(counts: ClassCounts, worst: DisruptionClass): string {
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const parts = (['unchanged', ...DISRUPTION_CLASSES, 'refused'] as const)
    .filter((c) => counts[c] > 0)
    .map((c) => `${counts[c]} ${c}`);
  return `${total} node${total === 1 ? '' : 's'}: ${parts.join(', ') || 'none'} (worst: ${worst})`;
}
